RAY_IGNORE_UNHANDLED_ERRORS=1 NCCL_P2P_LEVEL=NVL NCCL_IB_CUDA_SUPPORT=1 NCCL_NET_GDR_LEVEL=2 NCCL_IB_DISABLE=0  NCCL_IB_HCA=mlx5 NCCL_SOCKET_IFNAME=ens 
12f0 NCCL_DEBUG=INFO vllm serve \ 
	 /app/DeepSeek-R1 \ 
	 --served-model-name "deepseek-reasoner-1212" \ 
	 --trust-remote-code \ 
	 --host "0.0.0.0" \ 
	 --port 7860 \ 
	 --max-model-len 65536 \ 
	 --gpu-memory-utilization 0.9 \ 
	 --tensor-parallel-size 32 \ 
	 --enable-reasoning \ 
	 --reasoning-parser deepseek_r1 \ 
	 --max_num_batched_tokens 32768  --enforce-eager  --quantization fp8 \ 
	 --max-num-seqs 128 --pipeline-parallel-size 1 --enable-prefix-caching --enable-chunked-prefill  --num-speculative-tokens 1
