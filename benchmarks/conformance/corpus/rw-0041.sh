vllm serve meta-llama/Meta-Llama-3.1-8B-Instruct --max_model_len 4096
