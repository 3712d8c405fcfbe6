"""Will it fit? The memory model (vllmcheck/engine/memory.py) on the issue's acceptance cases, its invariants
(hypothesis), and its refusals in vLLM's own words for every release."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.vllm_sources import RELEASES
from vllmcheck.engine import memory

# meta-llama/Llama-3.1-8B-Instruct's config.json (the fields the estimate reads): bf16, 32 layers, 8 KV heads,
# head_dim 128, so 2 x 32 x 8 x 128 x 2 = 131,072 bytes of KV cache per token.
LLAMA_8B = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 131072,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "rope_scaling": {"factor": 8.0, "rope_type": "llama3", "original_max_position_embeddings": 8192},
}


def estimate(gpu="L4", version="0.34.0", config=LLAMA_8B, **args):
    return memory.estimate(config=config, args=args, hardware={"gpu": gpu}, version=version)


def test_llama_8b_kv_bytes_per_token():
    assert memory.kv_layout(LLAMA_8B).per_token == 131_072
    assert memory.kv_layout(LLAMA_8B, tp=2).per_token == 65_536
    assert memory.kv_layout(LLAMA_8B, kv_cache_dtype="fp8").per_token == 65_536
    # more GPUs than KV heads: each keeps one head (vLLM replicates them)
    assert memory.kv_layout(LLAMA_8B, tp=16).per_token == 2 * 32 * 1 * 128 * 2


def test_llama_8b_on_one_l4_is_refused_in_vllms_words():
    est = estimate("L4")
    assert est.verdict == "refuses" and est.reason == "max-seq-len"
    assert est.message.startswith(
        "To serve at least one request with the model's max seq len (131072), (16.0 GiB KV cache is needed, "
        "which is larger than the available KV cache memory ("
    )
    assert 20_000 < est.estimated_max_len < 40_000
    assert f"the estimated maximum model length is {est.estimated_max_len}." in est.message
    (finding,) = memory.findings(est)
    assert finding.severity == "error" and finding.rule == memory.RULE_REFUSED
    assert finding.fix == {"set": {"max_model_len": est.estimated_max_len // 16 * 16}}


def test_llama_8b_on_one_h100_starts_with_its_kv_cache_in_tokens():
    est = estimate("H100-80GB")
    assert est.verdict == "starts"
    assert est.total == int(79.19 * memory.GiB)
    assert 14.9 < est.weights / memory.GiB < 15.0  # vLLM logs 14.99 GiB
    assert est.kv_tokens_low <= est.kv_tokens <= est.kv_tokens_high
    assert 300_000 < est.kv_tokens < 500_000
    (finding,) = memory.findings(est)
    assert finding.severity == "info"
    assert f"predicted GPU KV cache size: {est.kv_tokens:,} tokens" in finding.message
    assert f"maximum concurrency for 131,072 tokens per request: {est.max_concurrency}x" in finding.message


def test_weights_that_do_not_fit_are_refused_and_tp_makes_them_fit():
    llama_70b = {**LLAMA_8B, "hidden_size": 8192, "intermediate_size": 28672, "num_hidden_layers": 80}
    llama_70b["num_attention_heads"] = 64
    assert estimate("H100", config=llama_70b).reason == "weights"
    assert estimate("H100", config=llama_70b, tensor_parallel_size=4, max_model_len=8192).verdict == "starts"


def test_inside_the_band_is_a_warning_not_a_refusal():
    # find the max_model_len where the need equals the prediction: just below it the verdict is uncertain
    est = estimate("L4")
    length = est.estimated_max_len + 16
    near = estimate("L4", max_model_len=length)
    assert near.verdict == "uncertain"
    (finding,) = memory.findings(near)
    assert finding.severity == "warning" and "within the uncertainty band" in finding.message


def test_what_fits_is_offered():
    est = estimate("H100-80GB", max_num_seqs=16, max_model_len=32768)
    assert est.fit_max_model_len and est.fit_max_model_len * 16 <= est.kv_tokens + 16 * 16
    assert est.fit_max_num_seqs == est.kv_tokens // 32768
    assert estimate("H100-80GB", max_num_seqs=est.fit_max_num_seqs, max_model_len=32768).verdict == "starts"


def test_mla_and_encoder_only_pages():
    deepseek = {
        "architectures": ["DeepseekV3ForCausalLM"],
        "hidden_size": 7168,
        "num_hidden_layers": 61,
        "num_attention_heads": 128,
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128,
        "v_head_dim": 128,
        "q_lora_rank": 1536,
    }
    layout = memory.kv_layout(deepseek, tp=8)
    assert layout.per_layer == (512 + 64) * 2  # one latent head, no x2 for K and V, not split by TP
    bert = {
        "architectures": ["BertModel"],
        "hidden_size": 768,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
    }
    assert memory.kv_layout(bert).attention_free
    assert memory.findings(estimate("L4", config={**bert, "vocab_size": 30522})) == []


def test_kv_cache_memory_bytes_skips_profiling():
    est = estimate("L4", kv_cache_memory_bytes=2 * memory.GiB, max_model_len=8192)
    assert est.available == 2 * memory.GiB and est.kv_tokens == 2 * memory.GiB // 131_072 // 16 * 16


@settings(max_examples=60, deadline=None)
@given(
    length=st.integers(min_value=512, max_value=131072),
    more=st.integers(min_value=0, max_value=65536),
    util=st.floats(min_value=0.5, max_value=0.95),
    less=st.floats(min_value=0.0, max_value=0.3),
    gpu=st.sampled_from(["L4", "A100-80GB", "H100-80GB", "L40S"]),
    release=st.sampled_from(["0.20.0", "0.27.1", "0.34.0"]),
)
def test_kv_cache_never_grows_with_a_longer_max_model_len_or_less_utilization(
    length, more, util, less, gpu, release
):
    base = estimate(gpu, release, max_model_len=length, gpu_memory_utilization=util)
    longer = estimate(gpu, release, max_model_len=length + more, gpu_memory_utilization=util)
    lower = estimate(gpu, release, max_model_len=length, gpu_memory_utilization=max(0.05, util - less))
    assert longer.kv_tokens <= base.kv_tokens
    assert lower.kv_tokens <= base.kv_tokens


@settings(max_examples=60, deadline=None)
@given(
    tp=st.sampled_from([1, 2, 4, 8]),
    layers=st.integers(min_value=2, max_value=96),
    hidden=st.sampled_from([1024, 2048, 4096, 8192]),
    experts=st.sampled_from([0, 8, 64]),
    ep=st.booleans(),
    checkpoint=st.one_of(st.none(), st.integers(min_value=1 << 20, max_value=1 << 41)),
    tied=st.booleans(),
    pp=st.sampled_from([1, 2, 4]),
)
def test_doubling_tp_never_raises_weights_per_gpu(tp, layers, hidden, experts, ep, checkpoint, tied, pp):
    """From the shapes or from a checkpoint's size (tied embeddings or not, any PP)."""
    config = {**LLAMA_8B, "num_hidden_layers": layers, "hidden_size": hidden, "tie_word_embeddings": tied}
    if experts:
        config.update(num_local_experts=experts, moe_intermediate_size=hidden)
    one = memory.weights_per_gpu(config, tp=tp, pp=pp, expert_parallel=ep, total_size=checkpoint)
    two = memory.weights_per_gpu(config, tp=2 * tp, pp=pp, expert_parallel=ep, total_size=checkpoint)
    assert two <= one
    assert memory.weights_per_gpu(config, tp=tp, pp=2 * pp, expert_parallel=ep, total_size=checkpoint) <= one


LLAMA_INDEX = {"size": 16060522496, "basis": "checkpoint index"}  # Llama-3.1-8B-Instruct's total_size


def with_checkpoint(checkpoint, config=LLAMA_8B, gpu="H100-80GB", **args):
    return memory.estimate(
        config=config, args=args, hardware={"gpu": gpu}, version="0.34.0", checkpoint=checkpoint
    )


def test_the_checkpoint_index_gives_the_weights_split_over_tp():
    est = with_checkpoint(LLAMA_INDEX, tensor_parallel_size=2)
    assert (est.weights, est.weights_basis, est.weights_source) == (
        16060522496 // 2,
        "checkpoint index",
        "checkpoint",
    )
    shapes = with_checkpoint(None, tensor_parallel_size=2)
    assert shapes.weights_basis == "config shapes" and shapes.weights_source == "config"
    (info,) = memory.findings(est)
    assert "weights 7.48 GiB per GPU from the checkpoint's model.safetensors.index.json" in info.message


def test_tied_embeddings_are_stored_once_but_each_pp_end_stage_holds_a_copy():
    tied = {**LLAMA_8B, "tie_word_embeddings": True}
    vocab_bytes = 128256 * 4096 * 2
    size = 16060522496 - vocab_bytes  # the same checkpoint without lm_head.weight
    one = memory.weights_per_gpu(tied, total_size=size)
    assert one == size
    two_stages = memory.weights_per_gpu(tied, pp=2, total_size=size)
    assert two_stages == (size - vocab_bytes) // 2 + vocab_bytes  # half the layers, and one vocabulary copy


def test_a_quantized_checkpoint_is_held_as_stored_and_quantizing_at_load_falls_back_to_the_shapes():
    fp8 = {**LLAMA_8B, "quantization_config": {"quant_method": "fp8"}}
    stored = {"size": 9_080_000_000, "basis": "checkpoint index"}
    assert with_checkpoint(stored, config=fp8).weights == 9_080_000_000
    online = with_checkpoint(LLAMA_INDEX, quantization="fp8")
    assert online.weights_basis == "config shapes" and online.weights < LLAMA_INDEX["size"] * 0.6
    assert "--quantization quantizes the checkpoint at load" in " ".join(online.notes)


def test_float32_tensors_of_an_unquantized_checkpoint_are_served_in_16_bits():
    header = {
        "size": 3_000_000_000,
        "basis": "safetensors header",
        "dtypes": {"F32": 2_000_000_000, "BF16": 1_000_000_000},
    }
    assert memory.checkpoint_bytes(LLAMA_8B, header, {})[:2] == (2_000_000_000, "safetensors header")
    fp32_index = {**LLAMA_8B, "torch_dtype": "float32"}
    assert memory.checkpoint_bytes(fp32_index, {"size": 4_000, "basis": "checkpoint index"}, {})[0] == 2_000


def test_mtp_layers_in_the_checkpoint_are_not_the_models():
    with_mtp = {**LLAMA_8B, "num_nextn_predict_layers": 1}
    assert memory.weights_per_gpu(with_mtp, total_size=16060522496) < memory.weights_per_gpu(
        LLAMA_8B, total_size=16060522496
    )


def _raise_texts(version: str) -> list[str]:
    """The constant text of vLLM's two refusals in _check_enough_kv_cache_memory, from its source."""
    from tests.vllm_sources import source

    root = source(version)
    for path in (root / "vllm/v1/core").glob("kv_cache_*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "_check_enough_kv_cache_memory":
                texts = []
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Raise) and isinstance(sub.exc, ast.Call):
                        (arg,) = sub.exc.args
                        texts.append(
                            "".join(
                                part.value if isinstance(part, ast.Constant) else "\0"
                                for part in (arg.values if isinstance(arg, ast.JoinedStr) else [arg])
                            )
                        )
                return texts
    raise AssertionError(f"no _check_enough_kv_cache_memory in vLLM {version}")


@pytest.mark.parametrize("version", ["0.20.0", "0.22.0", "0.27.1", "0.33.0", "0.34.0"])
def test_refusals_quote_each_releases_text(version):
    if version not in RELEASES:
        pytest.skip(f"no catalog for {version}")
    no_memory, max_len = _raise_texts(version)
    ours = memory.no_memory_message(version)
    for piece in filter(None, (p.strip() for p in no_memory.split("\0"))):
        assert piece in ours, (version, piece)
    ours = memory.max_len_message(version, 131072, 16 * memory.GiB, 3 * memory.GiB, 24000)
    for piece in filter(None, (p.strip() for p in max_len.split("\0"))):
        assert piece in ours, (version, piece)


# openai/gpt-oss-120b's config.json (the fields the estimate reads): mxfp4 experts, bf16 attention and embeddings.
GPT_OSS_120B = {
    "architectures": ["GptOssForCausalLM"],
    "hidden_size": 2880,
    "intermediate_size": 2880,
    "num_local_experts": 128,
    "num_experts_per_tok": 4,
    "num_hidden_layers": 36,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "head_dim": 64,
    "vocab_size": 201088,
    "max_position_embeddings": 131072,
    "sliding_window": 128,
    "tie_word_embeddings": False,
    "quantization_config": {"quant_method": "mxfp4"},
}


@pytest.mark.parametrize(
    ("gpu", "version", "logged_gib"),
    [
        # vLLM's "Model loading took" of gpt-oss-120b on one H100: Marlin on 0.10.1 (torch 2.7.1), issue #23278
        ("H100", "0.10.1", 65.9651),
        # the Triton kernel's Hopper layout (torch >= 2.8.1), llm-d-benchmark's config explorer (late 2025)
        ("H100", "0.11.1", 64.38),
    ],
)
def test_mxfp4_experts_are_held_as_the_releases_kernel_pads_them(gpu, version, logged_gib):
    est = estimate(gpu=gpu, version=version, config=GPT_OSS_120B, max_model_len=16000)
    assert abs(est.weights / memory.GiB - logged_gib) <= 0.02 * logged_gib
    # 0.11.0 pins torch 2.8.0: the Triton kernel keeps the strided layout, the experts as the checkpoint stores
    # them (60.77 GiB with the bf16 layers), less than either padded layout
    strided = estimate(gpu=gpu, version="0.11.0", config=GPT_OSS_120B, max_model_len=16000).weights
    assert strided < est.weights
    # on an A100 every release uses Marlin (compute capability below 9)
    assert estimate(gpu="A100", version="0.11.0", config=GPT_OSS_120B).weights > strided


def test_the_cuda_graphs_vllm_profiles_are_counted_as_it_logs_them():
    from vllmcheck.engine.memory_graphs import graph_counts

    # vLLM 0.19's log with --max-num-seqs 128 (issue #39610): "Profiling CUDA graph memory: PIECEWISE=35
    # (largest=256), FULL=19 (largest=128)"
    assert graph_counts({"max_num_seqs": 128}, 128, 8192) == (35, 19, 256)
    assert graph_counts({"enforce_eager": True}, 128, 8192) == (0, 0, 0)
    # from 0.20 the estimate is subtracted before the KV cache is sized; --enforce-eager captures no graph
    graphs = estimate(gpu="H100", version="0.34.0")
    eager = estimate(gpu="H100", version="0.34.0", enforce_eager=True)
    assert graphs.cudagraph > 0 and eager.cudagraph == 0 and eager.kv_tokens > graphs.kv_tokens
    assert estimate(gpu="H100", version="0.19.0").cudagraph == 0


def test_the_profile_run_holds_a_vision_models_dummy_encoder_outputs():
    # Qwen/Qwen2.5-VL-7B-Instruct's config.json (the fields the estimate reads)
    vl = {
        "architectures": ["Qwen2_5_VLForConditionalGeneration"],
        "hidden_size": 3584,
        "intermediate_size": 18944,
        "num_hidden_layers": 28,
        "num_attention_heads": 28,
        "num_key_value_heads": 4,
        "vocab_size": 152064,
        "max_position_embeddings": 128000,
        "vision_config": {
            "depth": 32,
            "hidden_size": 1280,
            "intermediate_size": 3420,
            "hidden_act": "silu",
            "out_hidden_size": 3584,
            "patch_size": 14,
            "spatial_merge_size": 2,
        },
    }
    images = estimate(gpu="H100", version="0.11.0", config=vl, max_model_len=32768)
    text_only = estimate(
        gpu="H100", version="0.11.0", config=vl, max_model_len=32768, limit_mm_per_prompt={"image": 0}
    )
    # 16,384 tokens of one largest image (the processor's default max_pixels) x 3584 x 2 bytes
    assert images.activation - text_only.activation == 16384 * 3584 * 2
    assert images.kv_tokens < text_only.kv_tokens
