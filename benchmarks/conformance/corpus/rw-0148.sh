$ VLLM_USE_V1="0" python -m huggingfaceserver --model_id=meta-llama/Llama-3.2-1B-Instruct
