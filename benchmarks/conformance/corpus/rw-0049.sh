vllm serve --model /data/model/Qwen3-VL-Embedding-8B --task embedding --hos
t 0.0.0.0 --port 8011 --served-model-name Qwen3-VL-Embedding-8B --trust-remote-code --max-model-len 8192 --dtype bfloat16 --tensor-parallel-size 8 --gpu-memory-utili
zation 0.85 --enforce-eager
