(venv) (base) rshaw@beaker:~/vllm$ vllm serve $MODEL --tensor-parallel-size 3
