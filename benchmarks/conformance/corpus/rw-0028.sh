export CUDA_VISIBLE_DEVICES=0,1,2,3 && nohup vllm serve Qwen3-32B-AWQ \
--tensor-parallel-size 4 \
--dtype half \
--cpu-offload-gb 1 \
--gpu-memory-utilization 0.9 \
--host 0.0.0.0 \
--enable-auto-tool-choice \
--tool-call-parser hermes \
--port 10000 > qwen3-32B.log 2>&1 & disown && tail -fn 200 qwen3-32B.log
