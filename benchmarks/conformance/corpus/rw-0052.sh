vllm serve /dse-qwen2-2b-mrl-v1 --port $PORT0 --host 0.0.0.0 --max-model-len 4096 --task embed --chat-template /server_vllm/template_dse_qwen2_vl.jinja
