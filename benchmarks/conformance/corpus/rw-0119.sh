vllm serve Qwen/QwQ-32B-AWQ \
    --port 8000 \
    --max-model-len 12000 \
    --gpu-memory-utilization 0.7 \
    --quantization awq \
    --enable-reasoning \
    --reasoning-parser deepseek_r1
