VLLM_USE_V1=0 vllm serve OPEA/Mistral-Small-3.1-24B-Instruct-2503-int4-AutoRound-awq-sym \
  --tensor-parallel-size 1  \
  --max-model-len 128 \
  --gpu-memory-utilization 0.95 \
  --distributed-executor-backend ray \
  --hf-config-path mistralai/Mistral-Small-3.1-24B-Instruct-2503  \
  --tokenizer mistralai/Mistral-Small-3.1-24B-Instruct-2503  \
  --served-model-name mistral 
