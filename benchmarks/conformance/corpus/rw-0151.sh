$ vllm serve Qwen/Qwen2.5-3B-Instruct --guided-decoding-backend xgrammar:no-fallback
