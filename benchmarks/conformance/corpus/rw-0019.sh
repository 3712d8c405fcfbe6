(qwen25vl) lzh@instance-aw1rhmsz-5:~/Code/qwen2_5vl$ vllm serve /home/lzh/llm_model/Qwen/Qwen2___5-VL-72B-Instruct --dtype auto --host 127.0.0.1 --port 6006 --tensor-parallel-size 4
