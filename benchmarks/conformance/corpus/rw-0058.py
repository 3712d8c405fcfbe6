import os
os.environ["HF_HUB_ENABLE_HF_TRANSFER"] = "1"
os.environ["VLLM_USE_V1"] = "1"

import subprocess

command = (
    "nohup vllm serve Qwen/Qwen2.5-32B-Instruct --dtype auto --api-key token-abc12 "
    "--tensor-parallel-size 2 --max_model_len 2000 --gpu-memory-utilization 0.9 "
    "--max-loras 1 --max-lora-rank 128 --enable-lora --lora-path yard1/llama-2-7b-sql-lora-test "
    "> log.txt 2>&1 &"
)

subprocess.Popen(command, shell=True)
