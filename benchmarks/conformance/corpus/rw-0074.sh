ray start --head --port=6379  && \
    vllm serve $MODELPATH \
    --max-num-seqs=16 \
    --max-model-len=16384 \
    --max-num-batched-tokens=16384 \
    --tensor-parallel-size 16 \
    --enable-prefix-caching \
    --enable-chunked-prefill \
    --distributed-executor-backend=ray \
    --trust-remote-code \
    --enable-reasoning \
    --reasoning-parser deepseek_r1 \
    --served-model-name deepseek-r1-250120 

ray start --block --address=$HEADPODIP:6379
