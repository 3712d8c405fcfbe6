MODEL_NAME = "meta-llama/Llama-3.1-8B-Instruct"
DRAFT_MODEL_NAME = "meta-llama/Llama-3.2-1B-Instruct"

speculative_config = {
        "model": DRAFT_MODEL_NAME,
        "num_speculative_tokens": 8,
        "draft_tensor_parallel_size": N_GPU,
        "speculative_draft_tensor_parallel_size": 1,
        # "method" : "ngram",
        # "prompt_lookup_max" : 4
}

    cmd = [
        "vllm",
        "serve",
        "--uvicorn-log-level=info",
        MODEL_NAME,
        "--served-model-name",
        MODEL_NAME,
        "--host",
        "0.0.0.0",
        "--port",
        str(VLLM_PORT),
        "--speculative_config",
        json.dumps(speculative_config),
        "--max-model-len",
        "4096",
        "--enable-chunked-prefill",
        "--max-num-batched-tokens",
        "8192",
        "--max-num-seqs",
        "256",
        "--gpu-memory-utilization",
        "0.95",
        "--block-size",
        "32",
        "--swap-space",
        "4",
        "--disable-log-stats"
    ]
