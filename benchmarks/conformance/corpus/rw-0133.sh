#(EngineCore_DP0 pid=197) AttributeError: MoE Model GptOssForCausalLM does not support BitsAndBytes quantization yet. Ensure this model has 'get_expert_mapping' method.
#MODEL=unsloth/gpt-oss-20b-unsloth-bnb-4bit
MODEL=openai/gpt-oss-20b

#podman pull ${IMAGE} && \
podman run --rm -it \
  --device nvidia.com/gpu=all \
  --name vllm \
  --ipc=host \
  -p ${LOCAL_PORT}:${LOCAL_PORT} \
  --security-opt label=disable \
  -e HF_TOKEN="$HF_TOKEN" \
  -e PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,max_split_size_mb:128" \
  -e LMCACHE_CONFIG_FILE=/srv/lmcache.yaml \
  -v $HOME/.cache/huggingface:/root/.cache/huggingface:Z \
  -v $HOME/.cache/triton:/root/.cache/triton \
  -v $HOME/.cache/torch/inductor:/root/.cache/torch/inductor \
  -v $HOME/.cache/flashinfer:/root/.cache/flashinfer \
  -v $PWD/lmcache.yaml:/srv/lmcache.yaml:Z \
  -v $PWD/vllm-logs/supervisor:/var/log/supervisor:Z \
  -v $PWD/vllm-logs/nginx:/var/log/nginx:Z \
  ${IMAGE} \
  --model "${MODEL}" \
  --served-model-name "vllm" \
  --dtype auto \
  --enable-auto-tool-choice --tool-call-parser openai \
  --trust-remote-code \
  --kv_cache_dtype fp8 \
  --gpu-memory-utilization 0.85 \
  --max_num_seqs 4 \
  --async-scheduling \
  --cuda-graph-sizes 2048 \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}' \
  --compilation-config '{"pass_config":{"enable_fi_allreduce_fusion":true,"enable_noop":true},"custom_ops":["+rms_norm"],"cudagraph_mode":"FULL_AND_PIECEWISE"}' \
#  END
#  --enable-auto-tool-choice --tool-call-parser hermes \
#  --max-model-len ${MODEL_LEN} \
#  --rope-scaling '{"type":"dynamic","factor":4.0,"original_max_position_embeddings":32768}' \
#  --rope-scaling '{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}' \
#  --sliding-window 16384 \
#  --cpu-offload-gb 8 \
#  --kv_cache_dtype fp8 \
#  --enforce-eager True \
#  --no-enable_prefix_caching \
#  --quantization awq \
#  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both","kv_buffer_device":"cpu","kv_buffer_size":0}' \
#  --network host
