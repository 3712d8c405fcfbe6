python -m vllm.entrypoints.openai.api_server --model Qwen2.5-VL-32B-Instruct --port 8000 --host 0.0.0.0 --dtype bfloat16 --tensor_parallel_size 2 --limit-mm-per-prompt image=5,video=5
