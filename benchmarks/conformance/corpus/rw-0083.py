vlm = LLM(
    model="Qwen/Qwen2.5-VL-7B-Instruct",
    tensor_parallel_size=1,
    max_model_len=8192,
    seed=42,
    enforce_eager=False,
    trust_remote_code=True,
    dtype="auto",
    quantization=None,
    max_num_seqs=32,
    gpu_memory_utilization=0.95,
    task="generate",
    limit_mm_per_prompt={"image": 2, "video": 0},
    mm_processor_kwargs={
        "max_pixels": 256 * 28 * 28,
        "min_pixels": 4 * 28 * 28,
    },
)
