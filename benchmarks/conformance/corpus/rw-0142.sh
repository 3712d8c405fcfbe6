(vllm) lwilkinson@beaker:~/code/vllm$ python3 -m vllm.entrypoints.cli.main serve microsoft/Phi-3-small-8k-instruct --trust-remote-code --gpu-memory-utilization 0.95
