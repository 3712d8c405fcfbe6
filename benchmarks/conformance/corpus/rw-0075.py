# node 1
python -m sglang.launch_server \
    --model-path /dsv3_fp8_weight \
    --dist-init-addr x.x.x.x:5000 \
    --nnodes 2 \
    --node-rank 0 \
    --tp 16 \
    --trust-remote-code

# node 2
python -m sglang.launch_server \
    --model-path /dsv3_fp8_weight \
    --dist-init-addr x.x.x.x:5000 \
    --nnodes 2 \
    --node-rank 1 \
    --tp 16 \
    --trust-remote-code
