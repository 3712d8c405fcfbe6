(myenv1) [yajuvendra@llmhost vllm]$ vllm serve --device cuda ibm-granite/granite-3.0-2b-instruct
