vllm serve InternVL2-26B-AWQ --served-model-name intervl2 --gpu_memory_utilization 0.99 --tensor-parallel-size 4 --limit-mm-per-prompt image=5,video=1
