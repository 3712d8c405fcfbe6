vllm serve /root/models/gemma-1b --generation-config vllm --host 0.0.0.0 --port 1338 --dtype auto --max-model-len=2048 --tensor-parallel-size 2
