llm = LLM(model=model_path, dtype='bfloat16')
sampling_params = SamplingParams(n=50, max_tokens=600, temperature=0.2, top_p=0.95)
results = llm.generate(prompts, sampling_params, use_tqdm=True)
