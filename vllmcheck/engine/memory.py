"""Will it fit? vLLM's GPU memory verdict, predicted before start-up (plain Python, no Django).

vLLM (v1, every release this product knows) sizes its KV cache in ``Worker.determine_available_memory``
(vllm/v1/worker/gpu_worker.py) and then checks it in ``check_enough_kv_cache_memory``
(vllm/v1/core/kv_cache_utils.py; kv_cache_planning.py from 0.34.0)::

    requested  = total GPU memory x gpu_memory_utilization        (or --kv-cache-memory bytes, no profiling)
    available  = requested - (weights + activation peak + non-torch memory) - CUDA graph estimate
    available <= 0                       -> "No available memory for the cache blocks. ..."
    blocks(max_model_len) x page > available -> "To serve at least one request with the model's max seq
                                            len (N), (X GiB KV cache is needed, ... the estimated maximum
                                            model length is M. ..."
    else: num_blocks = available // (page size x layers); "GPU KV cache size: T tokens"

Weights are known exactly only from the checkpoint (``model.checkpoint`` of the document: the safetensors
index's ``total_size``, or the single file's header, which the hub reads beside config.json); otherwise, or
when vLLM holds them otherwise than stored (quantized at load, padded mxfp4 experts), they are counted from
config.json's shapes. The estimate says which (``weights_basis``).

The activation peak, the non-torch memory (CUDA context, NCCL buffers) and the CUDA graph estimate are only
measured by vLLM on the GPU: here they are per-release terms whose constants were calibrated on published
vLLM logs (benchmarks/memory/), with an uncertainty band. A verdict inside the band is "uncertain", never a
refusal.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

from .memory_encoder import encoder_cache_bytes
from .memory_graphs import cudagraph_estimate, graph_counts
from .memory_mxfp4 import mxfp4_expert_bytes, mxfp4_kernel
from .types import Finding, parse_version

GiB = 1 << 30
MiB = 1 << 20

# Where the weights' bytes come from (the same words as vllmcheck.modelhub_weights, which the engine does not
# import): the checkpoint's index total_size, its single file's header, or a count from config.json's shapes.
BASIS_INDEX = "checkpoint index"
BASIS_HEADER = "safetensors header"
BASIS_SHAPES = "config shapes"

# Total memory of a GPU as vLLM sees it (torch.cuda.mem_get_info's total, what vLLM's logs and OOM errors
# print as "total capacity"/"total_gpu_memory"), in GiB: an "80 GB" H100 is 79.19 GiB.
GPU_MEMORY_GIB: dict[str, float] = {
    "H100": 79.19,
    "H100-80GB": 79.19,
    "H100-SXM": 79.19,
    "H100-PCIE": 79.19,
    "H100-NVL": 93.1,
    "H800": 79.19,
    "H200": 139.81,
    "H20": 95.0,
    "GH200": 94.5,
    "B200": 178.36,
    "A100": 79.15,
    "A100-80GB": 79.15,
    "A100-40GB": 39.39,
    "A800": 79.15,
    "L40S": 44.39,
    "L40S-48GB": 44.39,
    "L40": 44.39,
    "A6000": 47.53,
    "RTX-A6000": 47.53,
    "A40": 44.35,
    "L4": 22.03,
    "L4-24GB": 22.03,
    "A10G": 22.07,
    "A10": 22.07,
    "RTX-4090": 23.64,
    "RTX4090": 23.64,
    "RTX-3090": 23.58,
    "RTX3090": 23.58,
    "T4": 14.58,
    "V100": 31.74,
    "V100-32GB": 31.74,
    "V100-16GB": 15.77,
    "MI300X": 191.98,
}

DTYPE_BYTES = {
    "float32": 4,
    "float": 4,
    "float16": 2,
    "half": 2,
    "bfloat16": 2,
    "fp8": 1,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
    "fp8_inc": 1,
    "fp8_ds_mla": 1,
    "int8": 1,
}

# Bytes per parameter of a quantized linear layer (embeddings and norms stay in the model dtype), with the
# scales: 4-bit groups of 128 carry a 16-bit scale and a 4-bit zero; nvfp4 one fp8 scale per 16 values.
QUANT_BYTES = {
    "fp8": 1.0,
    "fbgemm_fp8": 1.0,
    "modelopt": 1.0,
    "ptpc_fp8": 1.0,
    "compressed-tensors": None,  # read from the config's quantization_config
    "awq": 0.5 + 2.5 / 128,
    "awq_marlin": 0.5 + 2.5 / 128,
    "gptq": 0.5 + 2.5 / 128,
    "gptq_marlin": 0.5 + 2.5 / 128,
    "marlin": 0.5 + 2.5 / 128,
    "bitsandbytes": 0.5 + 4 / 64,
    "nvfp4": 0.5 + 1 / 16,
    "modelopt_fp4": 0.5 + 1 / 16,
    # mxfp4 (gpt-oss experts): 0.5 + 1/32 in the checkpoint; the experts as vLLM pads them per release and
    # GPU are counted by memory_mxfp4.mxfp4_expert_bytes, this is only the bytes of other mxfp4 layers
    "mxfp4": 0.5 + 1 / 32,
    "gguf": 0.5 + 2.5 / 32,
    "experts_int8": 1.0,
}

# The terms vLLM measures on the GPU, per release range (``terms``): calibrated on published logs by
# benchmarks/memory/score.py --calibrate (the half of runs.yaml marked ``fit``), checked on the other half.
#   act_token   activation bytes per batched token per (hidden + 2 x intermediate/tp) element
#   act_fixed   fixed activation/workspace bytes of the profile run
#   sampler     bytes per sequence per vocabulary entry of the dummy sampler run (float32 logits and copies)
#   non_torch   CUDA context and allocator overhead on one GPU; non_torch_tp added with TP/PP > 1 (NCCL)
#   graphs      CUDA graph estimate (releases that subtract it: >= 0.20): first capture + per graph per layer
#   band        relative half-width of the uncertainty band on the non-weight terms, plus band_fixed bytes
TERMS: dict[str, dict[str, float]] = {
    # Calibrated by `benchmarks/memory/score.py --calibrate` on the runs marked fit (the held-out half is
    # scored, never fitted). From vLLM's code, not fitted: the activation peak is the larger of the forward
    # and the dummy sampler run (see _overheads), and the single-GPU non-torch increase, measured from the
    # worker's first snapshot (after the CUDA context), holds only workspaces: searched in 0.1-0.35 GiB.
    # Fitted: act_token, sampler (bytes per request per vocabulary entry: the logits, their float32 copy and
    # the top-k/top-p sampler's tensors, FlashInfer's or PyTorch's), non_torch_tp (every parallel fit run is
    # a TP/EP MoE, so it also carries the MoE's parallel workspace and over-counts dense TP).
    # The sampler term dominates on big GPUs: max_num_seqs is 1024 on H100/H200 (256 below 70 GiB, A100).
    "v0": {  # the v0 engine (published logs up to 0.7): profile of max_model_len tokens unless chunked
        "act_token": 1.5,  # nosec B105  # a memory term named act_token, not a secret
        "act_fixed": 0.15 * GiB,
        "sampler": 28.0,
        "non_torch": 0.35 * GiB,
        "non_torch_tp": 0.45 * GiB,
        "graphs_fixed": 0.0,
        "graphs_layer": 0.0,
        "band": 0.35,
        "band_fixed": 0.35 * GiB,
    },
    "v1": {  # 0.8 - 0.19: v1 engine, CUDA graphs captured after the KV cache is sized (not subtracted)
        "act_token": 5.0,  # nosec B105  # a memory term named act_token, not a secret
        "act_fixed": 0.15 * GiB,
        "sampler": 40.0,
        "non_torch": 0.35 * GiB,
        "non_torch_tp": 2.0 * GiB,
        "graphs_fixed": 0.0,
        "graphs_layer": 0.0,
        "band": 0.35,
        "band_fixed": 0.35 * GiB,
    },
    "v1-graphs": {  # >= 0.20: the v1 terms, and VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 subtracts the
        # CUDA graph estimate, counted per graph as vLLM's profile_cudagraph_memory does (memory_graphs): the
        # first capture is the forward's activation at the largest capture size (act_token) plus
        # graphs_fixed, every further graph graphs_layer per decoder layer of the stage. graphs_layer: 0.2
        # MiB, from one published log not in runs.yaml (vLLM issue #39610: 0.67 GiB estimated for PIECEWISE=35
        # and FULL=19 graphs of a 62-layer MiniMax-M2 at TP4): no run here checks it.
        "act_token": 5.0,  # nosec B105  # a memory term named act_token, not a secret
        "act_fixed": 0.15 * GiB,
        "sampler": 40.0,
        "non_torch": 0.35 * GiB,
        "non_torch_tp": 2.0 * GiB,
        "graphs_fixed": 0.0,
        "graphs_layer": 0.2 * MiB,
        "band": 0.35,
        "band_fixed": 0.35 * GiB,
    },
}


# The dummy sampler run's peak in bytes per request per vocabulary entry where vLLM samples with PyTorch's
# sort by default, counted from the code rather than fitted: 0.11.1-0.16 (FlashInfer's sampler became opt-in,
# VLLM_USE_FLASHINFER_SAMPLER=1, in 0.11.1; 0.17 added a Triton top-k/top-p for batches of 8 or more).
# Sampler.forward holds the model's bf16 logits (2) and their float32 copy (4); apply_top_k_top_p's
# logits.sort allocates the sorted values (4) and int64 indices (8), and PyTorch's segmented sort
# (SortStable.cu segmented_sort_pairs, over 128 rows) an int64 index per entry (8) and cub's radix-sort
# double buffer of keys and values (4 + 8). After the sort the top-p softmax and the scatter peak lower (28).
SAMPLER_TORCH_SORT = 2 + 4 + 4 + 8 + 8 + (4 + 8)


def terms_of(version: str | None) -> tuple[str, dict[str, float]]:
    v = parse_version(version)
    if v is None or v.release >= (0, 20):
        name = "v1-graphs"
    elif v.release >= (0, 8):
        name = "v1"
    else:
        name = "v0"
    if v is not None and (0, 11, 1) <= v.release < (0, 17):
        return name, {**TERMS[name], "sampler": float(SAMPLER_TORCH_SORT)}
    return name, TERMS[name]


# vLLM's messages, per release (kv_cache_utils.py _check_enough_kv_cache_memory; kv_cache_planning.py from
# 0.34.0, with _more_kv_cache_memory_hint's default hint).
_DOCS = "See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."
_HINT_034 = (
    "Try increasing `gpu_memory_utilization` when initializing the engine (this flag also controls CPU "
    "memory reservation on the CPU backend, despite its name)."
)


def no_memory_message(version: str | None) -> str:
    v = parse_version(version)
    if v is not None and v.release < (0, 22):
        return (
            "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
            f"initializing the engine. {_DOCS}"
        )
    if v is not None and v.release < (0, 34):
        return (
            "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
            "initializing the engine (this flag also controls CPU memory reservation on the CPU backend, "
            f"despite its name). {_DOCS}"
        )
    return f"No available memory for the cache blocks. {_HINT_034} {_DOCS}"


def max_len_message(
    version: str | None, max_model_len: int, needed: int, available: int, estimated: int
) -> str:
    v = parse_version(version)
    estimated_msg = (
        f"Based on the available memory, the estimated maximum model length is {estimated}. "
        if estimated > 0
        else ""
    )
    head = "model's" if v is None or v.release >= (0, 22) else "models's"
    text = (
        f"To serve at least one request with the {head} max seq len ({max_model_len}), "
        f"({format_gib(needed)} GiB KV cache is needed, which is larger than the available KV cache memory "
        f"({format_gib(available)} GiB). {estimated_msg}"
    )
    if v is not None and v.release < (0, 22):
        tail = (
            "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` "
            "when initializing the engine. "
        )
    elif v is not None and v.release < (0, 34):
        tail = (
            "Try increasing `gpu_memory_utilization` (which also controls CPU memory on the CPU backend) "
            "or decreasing `max_model_len` when initializing the engine. "
        )
    else:
        tail = f"{_HINT_034} Decreasing `max_model_len` also reduces what is needed. "
    return text + tail + _DOCS


def weights_message(weights: int, requested: int, gpu: str) -> str:
    return (
        f"the model's weights need {format_gib(weights)} GiB per GPU, more than the "
        f"{format_gib(requested)} GiB that gpu_memory_utilization gives of {gpu}: vLLM runs out of memory "
        "loading the model (torch.OutOfMemoryError: CUDA out of memory)"
    )


def format_gib(b: float) -> str:
    """vLLM's ``format_gib``: GiB rounded to 2 places."""
    return f"{round(b / GiB, 2)}"


# --- the model -------------------------------------------------------------------------------------------


def text_config(config: Mapping[str, Any]) -> Mapping[str, Any]:
    """The language model's part of a (multimodal) config."""
    for key in ("text_config", "llm_config", "language_config"):
        inner = config.get(key)
        if isinstance(inner, Mapping) and inner.get("hidden_size"):
            return {
                **inner,
                "quantization_config": config.get("quantization_config") or inner.get("quantization_config"),
            }
    return config


def _int(config: Mapping[str, Any], *keys: str, default: int = 0) -> int:
    for key in keys:
        value = config.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float) and value > 0:
            return int(value)
    return default


_MAX_LEN_KEYS = (
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)


def derived_max_model_len(config: Mapping[str, Any]) -> int | None:
    """vLLM's default max_model_len: the smallest of the config's length keys (ModelConfig's
    _get_and_verify_max_len), scaled by a yarn/dynamic rope factor when the config asks for one."""
    cfg = text_config(config)
    values = [int(cfg[k]) for k in _MAX_LEN_KEYS if isinstance(cfg.get(k), int | float) and cfg[k] > 0]
    if not values:
        return None
    length = min(values)
    rope = cfg.get("rope_scaling") or {}
    if isinstance(rope, Mapping):
        kind = rope.get("rope_type") or rope.get("type")
        factor = rope.get("factor")
        if kind in ("yarn", "dynamic", "longrope") and isinstance(factor, int | float) and factor > 1:
            original = rope.get("original_max_position_embeddings")
            if kind == "yarn" and isinstance(original, int):
                length = int(original * factor)
    return length


def _num_experts(cfg: Mapping[str, Any]) -> int:
    return _int(cfg, "n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts")


def param_counts(config: Mapping[str, Any]) -> dict[str, int]:
    """Parameters by kind, from config.json's shapes: ``embed`` (input embeddings, and the output
    projection unless tied), ``layer`` (one dense decoder layer's linear layers), ``experts`` (all experts of
    one MoE layer), ``moe_layers`` (how many layers are MoE), ``layers``."""
    cfg = text_config(config)
    h = _int(cfg, "hidden_size", "d_model", "n_embd")
    layers = _int(cfg, "num_hidden_layers", "n_layer", "num_layers")
    heads = _int(cfg, "num_attention_heads", "n_head", default=1)
    kv_heads = _int(cfg, "num_key_value_heads", "multi_query_group_num", default=heads)
    head_dim = _int(cfg, "head_dim", default=h // heads if heads else 0)
    inter = _int(cfg, "intermediate_size", "ffn_dim", "n_inner", default=4 * h)
    vocab = _int(cfg, "vocab_size", "padded_vocab_size")
    if cfg.get("kv_lora_rank"):
        q_lora = _int(cfg, "q_lora_rank")
        rope = _int(cfg, "qk_rope_head_dim")
        nope = _int(cfg, "qk_nope_head_dim")
        v_dim = _int(cfg, "v_head_dim", default=nope)
        kv_lora = _int(cfg, "kv_lora_rank")
        q = h * q_lora + q_lora * heads * (nope + rope) if q_lora else h * heads * (nope + rope)
        attn = q + h * (kv_lora + rope) + kv_lora * heads * (nope + v_dim) + heads * v_dim * h
    else:
        attn = h * heads * head_dim + 2 * h * kv_heads * head_dim + heads * head_dim * h
    experts = _num_experts(cfg)
    moe_inter = _int(cfg, "moe_intermediate_size", default=inter)
    shared = _int(cfg, "n_shared_experts", "num_shared_experts")
    shared_inter = _int(cfg, "shared_expert_intermediate_size", default=shared * moe_inter)
    dense_layers = layers
    moe_layers = 0
    expert_params = 0
    if experts:
        first_dense = _int(cfg, "first_k_dense_replace")
        moe_layers = max(0, layers - first_dense)
        dense_layers = layers - moe_layers
        expert_params = experts * 3 * h * moe_inter
    dense_mlp = 3 * h * inter
    moe_other = attn + 3 * h * shared_inter + h * experts  # shared experts and the router stay TP-sharded
    tied = bool(cfg.get("tie_word_embeddings", config.get("tie_word_embeddings", False)))
    return {
        "hidden": h,
        "attn": attn,
        "vision": vision_params(config),
        "layers": layers,
        "dense_layers": dense_layers,
        "moe_layers": moe_layers,
        "dense_layer": attn + dense_mlp,
        "moe_layer": moe_other,
        "experts": expert_params,
        "embed": vocab * h * (1 if tied else 2),
        "vocab": vocab,
        "intermediate": moe_inter * _int(cfg, "num_experts_per_tok", default=1) if experts else inter,
    }


def vision_params(config: Mapping[str, Any]) -> int:
    """Parameters of a multimodal model's vision encoder (ViT blocks: attention 4h^2, MLP 2hI, gated 3hI;
    plus a projector to the language model's width), 0 for a text-only config."""
    vision = config.get("vision_config")
    if not isinstance(vision, Mapping):
        return 0
    h = _int(vision, "hidden_size", "embed_dim", "width")
    depth = _int(vision, "num_hidden_layers", "depth", "num_layers")
    inter = _int(vision, "intermediate_size", default=4 * h)
    if not h or not depth:
        return 0
    gated = str(vision.get("hidden_act", "")) == "silu"
    out = _int(vision, "out_hidden_size", default=_int(text_config(config), "hidden_size"))
    return depth * (4 * h * h + (3 if gated else 2) * h * inter) + 4 * h * h * 2 + 4 * h * out


def _unquantized_attention(config: Mapping[str, Any]) -> bool:
    """Whether the checkpoint keeps attention in 16 bits (fbgemm_fp8's modules_to_not_convert, compressed-
    tensors' ignore list naming self_attn), as Llama-3.1-405B-Instruct-FP8 does."""
    qc = config.get("quantization_config") or text_config(config).get("quantization_config")
    if not isinstance(qc, Mapping):
        return False
    skipped = qc.get("modules_to_not_convert") or qc.get("ignore") or ()
    return isinstance(skipped, list) and any("self_attn" in str(m) for m in skipped)


def _quant_bytes(config: Mapping[str, Any], quantization: str | None) -> float | None:
    """Bytes per parameter of the linear layers when the checkpoint or --quantization quantizes them."""
    qc = config.get("quantization_config") or text_config(config).get("quantization_config")
    method = quantization
    if isinstance(qc, Mapping):
        method = method or qc.get("quant_method")
        bits = qc.get("bits") or qc.get("w_bit")
        if method in ("awq", "gptq", "awq_marlin", "gptq_marlin") and isinstance(bits, int):
            return bits / 8 + 2.5 / int(qc.get("group_size") or qc.get("q_group_size") or 128)
        if method == "compressed-tensors":
            groups = qc.get("config_groups") or {}
            for group in groups.values() if isinstance(groups, Mapping) else ():
                weights = group.get("weights") if isinstance(group, Mapping) else None
                if isinstance(weights, Mapping) and isinstance(weights.get("num_bits"), int):
                    nb = weights["num_bits"]
                    return nb / 8 + (2.5 / 128 if nb == 4 else 0.0)
            return 1.0
        if method == "bitsandbytes" and qc.get("load_in_8bit"):
            return 1.0
    if method is None:
        return None
    return QUANT_BYTES.get(str(method))


def model_dtype_bytes(config: Mapping[str, Any], dtype: str | None) -> int:
    if dtype and dtype != "auto":
        return (
            2 if dtype in ("float32", "float") else DTYPE_BYTES.get(dtype, 2)
        )  # vLLM serves fp32 as 16-bit?
    return 2


def weights_per_gpu(
    config: Mapping[str, Any],
    *,
    tp: int = 1,
    pp: int = 1,
    dp: int = 1,
    expert_parallel: bool = False,
    quantization: str | None = None,
    dtype: str | None = None,
    total_size: int | None = None,
    gpu: str | None = None,
    version: str | None = None,
) -> int:
    """Bytes of weights on the most loaded GPU: TP shards every linear layer and the vocabulary, PP gives each
    stage its layers (the first the embeddings, the last the output projection), EP spreads whole experts
    over TP x DP GPUs (without EP they are TP-sharded: the same bytes per GPU). mxfp4 experts are held as
    the release's kernel pads them on ``gpu`` (memory_mxfp4)."""
    counts = param_counts(config)
    layers = max(1, counts["layers"])
    stage_layers = math.ceil(layers / pp)
    per_dtype = model_dtype_bytes(config, dtype)
    if total_size:
        ep_gpus = tp * dp if expert_parallel else tp
        return _checkpoint_per_gpu(config, counts, total_size, tp, pp, ep_gpus, per_dtype)
    qbytes = _quant_bytes(config, quantization) or per_dtype
    dense = counts["dense_layers"] * counts["dense_layer"]
    moe_other = counts["moe_layers"] * counts["moe_layer"]
    experts = counts["moe_layers"] * counts["experts"]
    ep_gpus = tp * dp if expert_parallel else tp
    qc = config.get("quantization_config")
    experts_only = isinstance(qc, Mapping) and qc.get("quant_method") == "mxfp4"  # gpt-oss: experts only
    other_bytes = per_dtype if experts_only and experts else qbytes
    attn = counts["layers"] * counts["attn"]
    attn_bytes = per_dtype if _unquantized_attention(config) else other_bytes
    expert_bytes = experts / ep_gpus * qbytes
    if experts_only and experts:
        expert_bytes = _mxfp4_experts(config, counts, tp, ep_gpus if expert_parallel else 0, gpu, version)
    body_bytes = (
        ((dense + moe_other - attn) / tp * other_bytes + attn / tp * attn_bytes + expert_bytes)
        * stage_layers
        / layers
    )
    embed_bytes = counts["embed"] * per_dtype / tp / (2 if pp > 1 else 1)
    vision_bytes = counts["vision"] * per_dtype / tp if pp == 1 else counts["vision"] * per_dtype / tp / 2
    return int(body_bytes + embed_bytes + vision_bytes)


def _mxfp4_experts(config, counts, tp: int, ep_gpus: int, gpu: str | None, version: str | None) -> float:
    """Bytes of every layer's mxfp4 experts on one GPU: whole experts over the EP GPUs (``ep_gpus``, 0
    without EP), else each expert's intermediate split over TP, padded as the release's kernel pads it."""
    cfg = text_config(config)
    hidden = counts["hidden"]
    inter = _int(cfg, "moe_intermediate_size", "intermediate_size", default=4 * hidden)
    local = _cdiv(_num_experts(cfg), ep_gpus) if ep_gpus else _num_experts(cfg)
    part = inter if ep_gpus else _cdiv(inter, tp)
    kernel = mxfp4_kernel(gpu, version)
    return counts["moe_layers"] * local * mxfp4_expert_bytes(hidden, part, kernel, version)


def _checkpoint_per_gpu(
    config, counts, total_size: int, tp: int, pp: int, ep_gpus: int, per_dtype: int
) -> int:
    """The most loaded GPU's share of a checkpoint of ``total_size`` bytes (as vLLM holds them). The
    embeddings are in the model dtype and stored once when tied; vLLM shards the vocabulary over TP and, with
    PP, gives the first stage the embeddings and the last the output projection (its own copy when tied).
    The decoder layers (and a multimodal encoder) split over the stages; experts over EP's GPUs. Layers vLLM
    does not load for the model itself (DeepSeek's MTP layers, ``num_nextn_predict_layers``) are left out."""
    layers = max(1, counts["layers"])
    vocab_bytes = counts["vocab"] * counts["hidden"] * per_dtype
    tied = counts["embed"] == counts["vocab"] * counts["hidden"]
    body = max(0, total_size - vocab_bytes * (1 if tied else 2))
    body = body * layers / (layers + _int(text_config(config), "num_nextn_predict_layers"))
    moe_share = 0.0
    if counts["experts"]:
        total_params = counts["dense_layers"] * counts["dense_layer"] + counts["moe_layers"] * (
            counts["moe_layer"] + counts["experts"]
        )
        moe_share = counts["moe_layers"] * counts["experts"] / max(1, total_params)
    body_gpu = body * (1 - moe_share) / tp + body * moe_share / ep_gpus
    embed_gpu = vocab_bytes / tp * (1 if tied or pp > 1 else 2)
    return int(body_gpu * math.ceil(layers / pp) / layers + embed_gpu)


_FLOAT_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2}


def checkpoint_bytes(
    config: Mapping[str, Any], checkpoint: Mapping[str, Any] | None, args: Mapping[str, Any]
) -> tuple[int | None, str, str | None]:
    """(the checkpoint's bytes as vLLM holds them, the basis, a note) from a document's ``model.checkpoint``
    ({"size", "basis", "dtypes"}). An unquantized checkpoint's floats are cast to the served dtype (an fp32
    checkpoint is served in 16 bits); a quantized one is held as stored. (None, "config shapes", why) when the
    size is not known, or vLLM holds the weights otherwise than stored: quantized at load (--quantization on
    an unquantized checkpoint), or mxfp4 experts, which vLLM's kernels pad (calibrated on the shapes)."""
    size = checkpoint.get("size") if isinstance(checkpoint, Mapping) else None
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        return None, BASIS_SHAPES, None
    qc = config.get("quantization_config") or text_config(config).get("quantization_config")
    quantized = isinstance(qc, Mapping) and bool(qc)
    if args.get("quantization") and not quantized:
        return None, BASIS_SHAPES, "--quantization quantizes the checkpoint at load: weights from the shapes"
    if quantized and qc.get("quant_method") == "mxfp4":
        return None, BASIS_SHAPES, "vLLM pads mxfp4 experts: weights from the shapes"
    served = model_dtype_bytes(config, args.get("dtype"))
    dtypes = checkpoint.get("dtypes")
    if not quantized and isinstance(dtypes, Mapping) and dtypes:
        held = sum(
            int(n) * served // _FLOAT_BYTES[k] if k in _FLOAT_BYTES else int(n)
            for k, n in dtypes.items()
            if isinstance(n, int)
        )
        return held, str(checkpoint.get("basis") or BASIS_HEADER), None
    stored = str(text_config(config).get("torch_dtype") or config.get("torch_dtype") or "bfloat16")
    if not quantized and stored in ("float32", "float"):
        size = size * served // 4
    return size, str(checkpoint.get("basis") or BASIS_INDEX), None


@dataclass(frozen=True)
class KVLayout:
    """Per GPU: bytes of KV cache per token of each full-attention layer (the page size over the block
    size), how many such layers, sliding-window layers and their window, and the block size."""

    per_layer: int
    full_layers: int
    sliding_layers: int
    window: int | None
    block_size: int
    mamba_layers: int = 0
    mamba_state: int = 0  # bytes of one sequence's state in one Mamba/linear-attention layer
    attention_free: bool = False

    @property
    def per_token(self) -> int:
        """KV bytes per token over the stage's attention layers (the pool is split evenly among them)."""
        return self.per_layer * (self.full_layers + self.sliding_layers)


def kv_layout(
    config: Mapping[str, Any],
    *,
    tp: int = 1,
    pp: int = 1,
    kv_cache_dtype: str | None = None,
    dtype: str | None = None,
    block_size: int | None = None,
) -> KVLayout:
    cfg = text_config(config)
    arch = " ".join(config.get("architectures") or [])
    h = _int(cfg, "hidden_size", "d_model", "n_embd")
    layers = _int(cfg, "num_hidden_layers", "n_layer", "num_layers")
    heads = _int(cfg, "num_attention_heads", "n_head", default=1)
    kv_heads = _int(cfg, "num_key_value_heads", "multi_query_group_num", default=heads)
    head_dim = _int(cfg, "head_dim", default=h // heads if heads else 0)
    kv_dtype = kv_cache_dtype if kv_cache_dtype and kv_cache_dtype != "auto" else None
    nbytes = DTYPE_BYTES.get(kv_dtype or "", 0) or model_dtype_bytes(config, dtype)
    stage = math.ceil(layers / max(1, pp)) if layers else 0
    encoder_only = any(
        a.endswith(("ForMaskedLM", "ForSequenceClassification", "Model")) for a in arch.split()
    ) and ("Bert" in arch or "Roberta" in arch or "XLM" in arch)
    if encoder_only:
        return KVLayout(0, 0, 0, None, block_size or 16, attention_free=True)
    if cfg.get("kv_lora_rank"):  # MLA: one latent "head" of kv_lora_rank + qk_rope_head_dim, no x2
        width = _int(cfg, "kv_lora_rank") + _int(cfg, "qk_rope_head_dim")
        per = 656 if kv_cache_dtype == "fp8_ds_mla" else width * nbytes
        return KVLayout(per, stage, 0, None, block_size or 64)
    per_layer = 2 * max(1, kv_heads // tp) * head_dim * nbytes
    # Hybrid attention/Mamba models: layer types from the config.
    types = cfg.get("layer_types") or cfg.get("layers_block_type")
    mamba = 0
    sliding = 0
    window = _int(cfg, "sliding_window") or None
    if isinstance(types, list) and types:
        kinds = [str(t) for t in types]
        mamba = sum(1 for t in kinds if t in ("mamba", "linear_attention", "mamba2", "conv", "gated_delta"))
        sliding = sum(1 for t in kinds if "sliding" in t)
        full = len(kinds) - mamba - sliding
    elif isinstance(cfg.get("full_attention_interval"), int) and cfg["full_attention_interval"] > 0:
        full = layers // cfg["full_attention_interval"]
        mamba = layers - full
    elif isinstance(cfg.get("attn_layer_period"), int) and cfg.get("attn_layer_period"):
        full = layers // cfg["attn_layer_period"]
        mamba = layers - full
    elif (
        window
        and cfg.get("use_sliding_window", True) is not False
        and "Mistral" not in arch
        and "Qwen2" not in arch
    ):
        # Gemma 2/3 alternate sliding and full layers (Gemma 3: 5 sliding for 1 full).
        pattern = _int(cfg, "sliding_window_pattern", default=2)
        full = layers // pattern
        sliding = layers - full
    else:
        full = layers
    if pp > 1:
        scale = stage / max(1, layers)
        full, sliding, mamba = (math.ceil(full * scale), math.ceil(sliding * scale), math.ceil(mamba * scale))
    mamba_state = 0
    if mamba:
        d_state = _int(
            cfg, "mamba_d_state", "ssm_state_size", "state_size", "linear_key_head_dim", default=128
        )
        m_heads = _int(cfg, "mamba_n_heads", "linear_num_value_heads", default=heads)
        m_head_dim = _int(cfg, "mamba_d_head", "linear_value_head_dim", default=64)
        conv = _int(cfg, "mamba_d_conv", "linear_conv_kernel_dim", "conv_kernel", default=4)
        mamba_state = (m_heads * m_head_dim * d_state * 2 + (conv - 1) * m_heads * m_head_dim * 3 * 2) // tp
    return KVLayout(
        per_layer, full, sliding, window if sliding else None, block_size or 16, mamba, mamba_state
    )


# --- the estimate ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    gpu: str
    total: int
    requested: int
    weights: int
    weights_source: str  # "checkpoint" (its index or header) | "config" (counted from shapes)
    activation: int
    non_torch: int
    cudagraph: int
    available: int
    band: int  # bytes either side of ``available``
    kv_per_token: int  # bytes per token per GPU over the stage's attention layers
    block_size: int
    kv_tokens: int
    kv_tokens_low: int
    kv_tokens_high: int
    max_model_len: int
    max_num_seqs: int
    max_concurrency: float | None
    needed: int  # KV bytes one request of max_model_len needs
    verdict: str  # refuses | uncertain | starts
    reason: str | None  # weights | no-memory | max-seq-len | None
    message: str | None
    estimated_max_len: int | None
    fit_max_model_len: int | None  # the largest --max-model-len for max_num_seqs requests at once
    fit_max_num_seqs: int | None  # the largest --max-num-seqs at max_model_len
    release_terms: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    weights_basis: str = "config shapes"  # "checkpoint index" | "safetensors header" | "config shapes"

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["notes"] = list(self.notes)
        data["gib"] = {
            k: round(getattr(self, k) / GiB, 2)
            for k in (
                "total",
                "requested",
                "weights",
                "activation",
                "non_torch",
                "cudagraph",
                "available",
                "band",
                "needed",
            )
        }
        return data


def gpu_memory_bytes(hardware: Mapping[str, Any]) -> tuple[str, int] | None:
    """The GPU and its memory as vLLM sees it: ``gpu_memory_gib`` if given, else the known value of the
    ``gpu`` named, else ``gpu_memory_gb`` (a nominal figure, read as GB and converted)."""
    gpu = str(hardware.get("gpu") or "GPU")
    gib = hardware.get("gpu_memory_gib")
    if isinstance(gib, int | float) and not isinstance(gib, bool) and gib > 0:
        return gpu, int(float(gib) * GiB)
    known = lookup_gpu(gpu)
    if known:
        return gpu, int(known * GiB)
    gb = hardware.get("gpu_memory_gb")
    if isinstance(gb, int | float) and not isinstance(gb, bool) and gb > 0:
        return gpu, int(float(gb) * 1e9 * 0.985)  # nominal GB less what the driver keeps
    return None


def lookup_gpu(name: str) -> float | None:
    key = name.upper().replace("NVIDIA", "").replace(" ", "-").strip("-")
    for candidate in (
        key,
        key.replace("-", ""),
        key.split("-")[0] if key.startswith(("L4-", "T4-")) else key,
    ):
        for gpu, gib in GPU_MEMORY_GIB.items():
            if gpu.upper() == candidate or gpu.upper().replace("-", "") == candidate.replace("-", ""):
                return gib
    return None


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _needed(layout: KVLayout, max_len: int, batched: int) -> int:
    """KV bytes one request of ``max_len`` tokens needs (each spec's max_memory_usage_bytes)."""
    bs = layout.block_size
    page = layout.per_layer * bs
    full = _cdiv(max_len, bs) * page * layout.full_layers
    sliding = 0
    if layout.sliding_layers and layout.window:
        tokens = min(layout.window - 1 + batched, max_len)
        sliding = (_cdiv(tokens, bs) + 1) * page * layout.sliding_layers
    return full + sliding + layout.mamba_layers * layout.mamba_state


def _max_len(layout: KVLayout, available: int, upper: int, batched: int) -> int:
    """vLLM's estimate_max_model_len: binary search for the largest length that fits."""
    if _needed(layout, 1, batched) > available:
        return 0
    lo, hi, best = 1, upper, 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if _needed(layout, mid, batched) <= available:
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    return best


def _kv_tokens(layout: KVLayout, available: int, max_num_seqs: int) -> int:
    if layout.per_token <= 0 or available <= 0:
        return 0
    pool = available - layout.mamba_layers * layout.mamba_state * max_num_seqs
    blocks = max(0, pool) // (
        layout.per_layer * layout.block_size * max(1, layout.full_layers + layout.sliding_layers)
    )
    return blocks * layout.block_size


def _int_arg(args: Mapping[str, Any], name: str, default: int) -> int:
    value = args.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return default
    return int(value)


def _limits(config, args, gpu_name: str, total: int, terms_name: str) -> tuple[int, int, int, float]:
    """max_model_len, max_num_seqs, max_num_batched_tokens and gpu_memory_utilization as vLLM defaults them
    for this GPU and release."""
    derived = derived_max_model_len(config) or 2048
    max_model_len = _int_arg(args, "max_model_len", derived)
    big = total >= 70 * GiB and "A100" not in gpu_name.upper()
    default_seqs = 1024 if big or total >= 160 * GiB else 256
    default_batched = 16384 if total >= 160 * GiB else 8192 if big else 2048
    max_num_seqs = _int_arg(args, "max_num_seqs", default_seqs if terms_name != "v0" else 256)
    if terms_name == "v0":
        # v0: the profile run takes a whole max_model_len prompt, but chunked prefill (on by default past
        # 32K tokens) caps it at max_num_batched_tokens (2048 for the API server).
        chunked = max_model_len > 32768 or bool(args.get("enable_chunked_prefill"))
        batched = _int_arg(args, "max_num_batched_tokens", 2048 if chunked else max(max_model_len, 2048))
    else:
        batched = _int_arg(args, "max_num_batched_tokens", default_batched)
    util = args.get("gpu_memory_utilization")
    default_util = 0.92 if terms_name == "v1-graphs" else 0.9
    util = (
        float(util)
        if isinstance(util, int | float) and not isinstance(util, bool) and util > 0
        else default_util
    )
    return max_model_len, max_num_seqs, batched, util


def _verdict(layout, version, gpu_name, weights, requested, available, band, needed, max_model_len, batched):
    """(verdict, reason, vLLM's message, its estimated maximum model length) from the figures."""
    reason = message = None
    estimated_max_len = None
    verdict = "starts"
    if weights > requested:
        verdict, reason = "refuses", "weights"
        message = weights_message(weights, requested, gpu_name)
    elif available - band > 0 and needed <= available - band:
        verdict = "starts"
    elif available + band <= 0:
        verdict, reason, message = "refuses", "no-memory", no_memory_message(version)
    elif needed > available + band and not layout.attention_free:
        verdict, reason = "refuses", "max-seq-len"
        estimated_max_len = _max_len(layout, available, max_model_len, batched)
        message = max_len_message(version, max_model_len, needed, available, estimated_max_len)
    elif not layout.attention_free:
        verdict = "uncertain"
        reason = "no-memory" if available <= 0 else "max-seq-len"
        if available > 0:
            estimated_max_len = _max_len(layout, available, max_model_len, batched)
    return verdict, reason, message, estimated_max_len


def _weights(
    config, args, parallel, checkpoint, notes: list, where: tuple[str, str | None]
) -> tuple[int, str]:
    """(the weights' bytes on one GPU, less what --cpu-offload-gb moves to the CPU; their basis).
    ``parallel``: (tp, pp, dp, expert parallel); ``where``: (the GPU, the release), which the padding of
    mxfp4 experts depends on."""
    tp, pp, dp, ep = parallel
    total_size, basis, note = checkpoint_bytes(config, checkpoint, args)
    if note:
        notes.append(note)
    weights = weights_per_gpu(
        config,
        tp=tp,
        pp=pp,
        dp=dp,
        expert_parallel=ep,
        quantization=args.get("quantization"),
        dtype=args.get("dtype"),
        total_size=total_size,
        gpu=where[0],
        version=where[1],
    )
    offload = args.get("cpu_offload_gb")
    if isinstance(offload, int | float) and not isinstance(offload, bool) and offload > 0:
        weights = max(0, weights - int(float(offload) * GiB))
    return weights, basis


def _parallel(args: Mapping[str, Any]) -> tuple[int, int, int, bool]:
    """(tensor, pipeline, data parallel sizes, expert parallelism) of the launch."""
    return (
        _int_arg(args, "tensor_parallel_size", 1),
        _int_arg(args, "pipeline_parallel_size", 1),
        _int_arg(args, "data_parallel_size", 1),
        bool(args.get("enable_expert_parallel")),
    )


def _overheads(
    terms, counts, args, parallel: tuple[int, int, int, bool], batched: int, max_num_seqs: int
) -> tuple[int, int, int]:
    """(activation peak, non-torch memory, CUDA graphs) of the release's terms. ``parallel``: (tp, pp, dp,
    expert parallel); an expert-parallel MoE spans its data parallel ranks, whose all-to-all communicators
    hold NCCL buffers like TP's."""
    tp, pp, dp, ep = parallel
    ep_ranks = dp if ep and counts["experts"] else 1
    h = counts["hidden"]
    inter = counts["intermediate"]
    # profile_run runs the model on max_num_batched_tokens, frees its intermediates, then the dummy sampler
    # on one row per request (gpu_model_runner.py _dummy_run, then _dummy_sampler_run): the torch peak is
    # the larger of the two, not their sum.
    forward = terms["act_token"] * batched * (h + 2 * inter / tp) * 2
    sampler = terms["sampler"] * min(max_num_seqs, batched) * counts["vocab"]
    activation = int(max(forward, sampler) + terms["act_fixed"])
    non_torch = int(terms["non_torch"] + (terms["non_torch_tp"] if tp * pp * ep_ranks > 1 else 0))
    cudagraph = 0
    if terms["graphs_layer"] > 0:  # the releases that subtract vLLM's CUDA graph estimate (memory_graphs)
        piecewise, full, largest = graph_counts(args, max_num_seqs, batched)
        first = terms["graphs_fixed"] + terms["act_token"] * largest * (h + 2 * inter / tp) * 2
        per_graph = terms["graphs_layer"] * math.ceil(counts["layers"] / pp)
        cudagraph = cudagraph_estimate(first, per_graph, piecewise, full)
    return activation, non_torch, cudagraph


def _budget(kv_bytes_arg, total, util, weights, activation, non_torch, cudagraph, terms, notes):
    """(requested, available for the KV cache, the uncertainty band) in bytes."""
    if isinstance(kv_bytes_arg, int | float) and not isinstance(kv_bytes_arg, bool) and kv_bytes_arg > 0:
        requested = int(kv_bytes_arg)
        available = requested
        band = 0
        notes.append("--kv-cache-memory sets the KV cache's size: no profiling")
    else:
        requested = int(total * util)
        available = requested - weights - activation - non_torch - cudagraph
        band = int(terms["band"] * (activation + non_torch + cudagraph) + terms["band_fixed"])
    return requested, available, band


def _fits(layout, available, kv_tokens, max_model_len, max_num_seqs, batched):
    """What fits: the largest --max-model-len at --max-num-seqs, the largest --max-num-seqs at the length."""
    fit_len = fit_seqs = None
    if not layout.attention_free and available > 0 and layout.per_token:
        fit_len = min(_max_len(layout, available, 1 << 24, batched) // max(1, max_num_seqs), 1 << 24)
        fit_len = fit_len // layout.block_size * layout.block_size or None
        fit_seqs = kv_tokens // max(1, max_model_len) or None
    return fit_len, fit_seqs


def estimate(
    *,
    config: Mapping[str, Any],
    args: Mapping[str, Any],
    hardware: Mapping[str, Any],
    version: str | None,
    checkpoint: Mapping[str, Any] | None = None,
) -> Estimate | None:
    """The memory estimate of one profile on one GPU of its node, or None when the GPU's memory or the
    model's shapes are not known. ``checkpoint``: the document's ``model.checkpoint`` (the weights' bytes
    read from the checkpoint, see :func:`checkpoint_bytes`), else the weights are counted from the shapes."""
    gpu = gpu_memory_bytes(hardware)
    counts = param_counts(config)
    if gpu is None or not counts["hidden"] or not counts["layers"]:
        return None
    gpu_name, total = gpu
    tp, pp, dp, ep = _parallel(args)
    notes: list[str] = []
    terms_name, terms = terms_of(version)
    max_model_len, max_num_seqs, batched, util = _limits(config, args, gpu_name, total, terms_name)
    kv_bytes_arg = args.get("kv_cache_memory_bytes") or args.get("kv_cache_memory")
    weights, basis = _weights(config, args, (tp, pp, dp, ep), checkpoint, notes, (gpu_name, version))
    layout = kv_layout(
        config,
        tp=tp,
        pp=pp,
        kv_cache_dtype=args.get("kv_cache_dtype"),
        dtype=args.get("dtype"),
        block_size=_int_arg(args, "block_size", 0) or None,
    )
    activation, non_torch, cudagraph = _overheads(
        terms, counts, args, (tp, pp, dp, ep), batched, max_num_seqs
    )
    if terms_name != "v0":  # the v1 profile run holds the dummy encoder outputs (memory_encoder)
        activation += encoder_cache_bytes(config, args, batched, max_model_len, counts["hidden"])
    requested, available, band = _budget(
        kv_bytes_arg, total, util, weights, activation, non_torch, cudagraph, terms, notes
    )
    needed = _needed(layout, max_model_len, batched)
    kv_tokens = _kv_tokens(layout, available, max_num_seqs)
    low = _kv_tokens(layout, available - band, max_num_seqs)
    high = _kv_tokens(layout, available + band, max_num_seqs)
    if layout.attention_free:
        kv_tokens = low = high = needed = 0
    verdict, reason, message, estimated_max_len = _verdict(
        layout, version, gpu_name, weights, requested, available, band, needed, max_model_len, batched
    )
    fit_len, fit_seqs = _fits(layout, available, kv_tokens, max_model_len, max_num_seqs, batched)
    concurrency = round(kv_tokens / max_model_len, 2) if kv_tokens and max_model_len else None
    return Estimate(
        gpu=gpu_name,
        total=total,
        requested=requested,
        weights=weights,
        weights_source="config" if basis == BASIS_SHAPES else "checkpoint",
        weights_basis=basis,
        activation=activation,
        non_torch=non_torch,
        cudagraph=cudagraph,
        available=available,
        band=band,
        kv_per_token=layout.per_token,
        block_size=layout.block_size,
        kv_tokens=kv_tokens,
        kv_tokens_low=low,
        kv_tokens_high=high,
        max_model_len=max_model_len,
        max_num_seqs=max_num_seqs,
        max_concurrency=concurrency,
        needed=needed,
        verdict=verdict,
        reason=reason,
        message=message,
        estimated_max_len=estimated_max_len,
        fit_max_model_len=fit_len,
        fit_max_num_seqs=fit_seqs,
        release_terms=terms_name,
        notes=tuple(notes),
    )


# --- findings --------------------------------------------------------------------------------------------

RULE_REFUSED = "memory-refused"
RULE_UNCERTAIN = "memory-uncertain"
RULE_FITS = "memory-kv-cache"
_SOURCE = "https://github.com/vllm-project/vllm/blob/main/vllm/v1/core/kv_cache_utils.py"


def _solutions(est: Estimate) -> tuple[tuple[str, ...], dict[str, Any] | None]:
    solutions: list[str] = []
    fix: dict[str, Any] | None = None
    if est.reason == "weights":
        solutions.append(
            "Shard the weights: raise --tensor-parallel-size (or --pipeline-parallel-size) over more GPUs"
        )
        solutions.append(
            "Use a quantized checkpoint (fp8, AWQ/GPTQ 4-bit) or a node type with more GPU memory"
        )
        return tuple(solutions), None
    if est.estimated_max_len:
        length = est.estimated_max_len // est.block_size * est.block_size or est.estimated_max_len
        solutions.append(f"Set --max-model-len {length} (the longest request that fits)")
        fix = {"set": {"max_model_len": length}}
    if est.fit_max_model_len and est.fit_max_model_len < est.max_model_len:
        solutions.append(
            f"Set --max-model-len {est.fit_max_model_len} to serve --max-num-seqs {est.max_num_seqs} "
            "requests of full length at once"
        )
    solutions.append(
        "Raise --gpu-memory-utilization, use --kv-cache-dtype fp8, or raise --tensor-parallel-size"
    )
    return tuple(solutions), fix


@lru_cache(maxsize=4096)
def _cached(key: str) -> Estimate | None:
    import json

    data = json.loads(key)
    return estimate(**data)


def estimate_document(doc: Mapping[str, Any]) -> Estimate | None:
    """The estimate of a profile document (docs/findings.md), or None when it cannot be made."""
    import json

    model = doc.get("model") or {}
    config = model.get("config")
    hardware = doc.get("hardware") or {}
    if not isinstance(config, Mapping) or not isinstance(hardware, Mapping) or not hardware:
        return None
    checkpoint = model.get("checkpoint")
    try:
        key = json.dumps(
            {
                "config": config,
                "args": doc.get("args") or {},
                "hardware": hardware,
                "version": (doc.get("vllm") or {}).get("version"),
                "checkpoint": checkpoint if isinstance(checkpoint, Mapping) else None,
            },
            sort_keys=True,
            default=str,
        )
    except (TypeError, ValueError):
        return None
    try:
        return _cached(key)
    except (ArithmeticError, TypeError, ValueError):
        return None


def findings(est: Estimate | None) -> list[Finding]:
    """The memory findings: an error when vLLM refuses, a warning inside the band, else an info with the KV
    cache's size in tokens and the concurrency."""
    if est is None:
        return []
    fields = ("gpu_memory_utilization", "max_model_len")
    solutions, fix = _solutions(est)
    if est.verdict == "refuses":
        return [
            Finding(
                rule=RULE_REFUSED,
                severity="error",
                category="vllm",
                message=est.message or "",
                fields=fields if est.reason != "weights" else ("tensor_parallel_size",),
                solutions=solutions,
                source=_SOURCE,
                fix=fix,
                docs=_docs(est),
            )
        ]
    if est.verdict == "uncertain":
        what = (
            "vLLM may find no memory for the cache blocks"
            if est.reason == "no-memory"
            else f"a request of --max-model-len {est.max_model_len} may not fit in the KV cache"
        )
        return [
            Finding(
                rule=RULE_UNCERTAIN,
                severity="warning",
                category="vllm",
                message=(
                    f"{what}: the predicted KV cache memory ({format_gib(est.available)} GiB, "
                    f"{est.kv_tokens:,} tokens) is within the uncertainty band "
                    f"(±{format_gib(est.band)} GiB) of what one request needs "
                    f"({format_gib(est.needed)} GiB); {weights_said(est)}"
                ),
                fields=fields,
                solutions=solutions,
                source=_SOURCE,
                fix=fix,
                docs=_docs(est),
            )
        ]
    if est.kv_per_token == 0:
        return []
    return [
        Finding(
            rule=RULE_FITS,
            severity="info",
            category="vllm",
            message=(
                f"predicted GPU KV cache size: {est.kv_tokens:,} tokens ({est.kv_tokens_low:,}-"
                f"{est.kv_tokens_high:,}); maximum concurrency for {est.max_model_len:,} tokens per request: "
                f"{est.max_concurrency}x; {weights_said(est)}"
            ),
            fields=fields,
            solutions=tuple(
                s
                for s in (
                    f"At --max-num-seqs {est.max_num_seqs}, requests of up to "
                    f"{est.fit_max_model_len:,} tokens all fit at once"
                    if est.fit_max_model_len
                    else None,
                    f"At --max-model-len {est.max_model_len}, up to {est.fit_max_num_seqs} "
                    "requests of full length fit at once"
                    if est.fit_max_num_seqs
                    else None,
                )
                if s
            ),
            docs=_docs(est),
        )
    ]


_BASIS_WORDS = {
    BASIS_INDEX: "from the checkpoint's model.safetensors.index.json (total_size)",
    BASIS_HEADER: "from the checkpoint's model.safetensors header",
    BASIS_SHAPES: "counted from config.json's shapes",
}


def weights_said(est: Estimate) -> str:
    """The weights per GPU and the basis they were computed on, as the findings say it."""
    basis = _BASIS_WORDS.get(est.weights_basis, est.weights_basis)
    return f"weights {format_gib(est.weights)} GiB per GPU {basis}"


def _docs(est: Estimate) -> str:
    return (
        f"On one {est.gpu} ({format_gib(est.total)} GiB as vLLM sees it): "
        f"requested {format_gib(est.requested)} GiB; {weights_said(est)}, "
        f"activation peak {format_gib(est.activation)} GiB, "
        f"non-torch {format_gib(est.non_torch)} GiB, CUDA graphs {format_gib(est.cudagraph)} GiB; KV cache "
        f"{format_gib(est.available)} GiB ±{format_gib(est.band)} GiB "
        f"at {est.kv_per_token:,} bytes per token. "
        "The activation, non-torch and CUDA graph terms are calibrated on published vLLM logs "
        "(benchmarks/memory/)."
    )
