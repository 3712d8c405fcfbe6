ENTRYPOINT [ "python3", "-m", "vllm.entrypoints.openai.api_server", "--tensor-parallel-size", "1", "--host", "0.0.0.0", "--port", "8000" ]
