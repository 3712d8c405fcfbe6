LLM_CPU_KVCACHE_SPACE=16 \
vllm serve meta-llama/Llama-3.1-8B-Instruct
