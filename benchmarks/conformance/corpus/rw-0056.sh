python -m vllm.entrypoints.openai.api_server --max-lora-rank 64 \
    --model model_name\
    --enable-lora \
    --lora-modules lora-name=lora_path
