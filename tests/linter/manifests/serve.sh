# vllm-version: 0.33.0
vllm serve Qwen/Qwen2.5-7B-Instruct \
  --max-num-seqs 128
