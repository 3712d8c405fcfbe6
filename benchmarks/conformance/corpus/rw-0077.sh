root@hostname:/# HIP_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen2.5-1.5B-Instruct
...
INFO:     Started server process [328]
INFO:     Waiting for application startup.
INFO:     Application startup complete.
INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)
