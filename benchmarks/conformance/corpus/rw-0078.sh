root@6aa49b1572ea:~/llm/cohere/c4ai-command-a-03-2025# CUDA_VISIBLE_DEVICES=1,2,3  vllm serve /root/llm/cohere/c4ai-command-a-03-2025 -tp=2 --gpu-memory-utilization 0.95 --sw
ap-space 8 --max-num-seqs=1 
