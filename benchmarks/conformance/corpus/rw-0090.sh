$ vllm serve /models/Meta-Llama-3.1-405B-Instruct -tp 8 -pp 2 --speculative-model /models/Meta-Llama-3.1-8B-Instruct --use-v2-block-manager --num-speculative-tokens 5
