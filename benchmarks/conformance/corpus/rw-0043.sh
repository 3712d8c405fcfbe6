vllm serve Qwen/Qwen2.5-7B-Instruct \
	--dtype auto \
	--enable-chunked-prefill \
	--enable-prefix-caching \
	--api-key token-abc123
