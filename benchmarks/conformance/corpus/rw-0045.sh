vllm serve LGAI-EXAONE/EXAONE-4.0-32B --reasoning-parser deepseek_v3
