python3 -m vllm.entrypoints.openai.api_server --model microsoft/Phi-3-mini-128k-instruct --port 9000
