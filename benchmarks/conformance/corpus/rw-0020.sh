CUDA_VISIBLE_DEVICES=2,3 vllm serve ./deepseek-r1-14b --max_model_len 8192 --tensor-parallel-size 2
