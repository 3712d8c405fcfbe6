`NCCL_PROTO=Simple vllm serve Qwen/Qwen3.6-27B-FP8 -tp 2`
