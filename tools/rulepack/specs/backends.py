"""Backends and features that exclude each other: the FlashInfer MoE-EP and MegaMoE kernels, FLy verification,
the KDA prefill backend, HiSparse, direct weight reload, KV connectors, LoRA, Engram with microbatching,
NUMA lists, sleep-mode checkpoint preparation."""

from tools.rulepack.coverage_expr import AV, templated
from tools.rulepack.expr import HISPARSE, SC, A, R, q, sub
from tools.rulepack.expr import arg_true as T

RSM_FLY = f'({sub("speculative_config", "rejection_sample_method")} && {SC}.rejection_sample_method == "fly")'
NST = f"{SC}.num_speculative_tokens"
HAS_NST = sub("speculative_config", "num_speculative_tokens")
NOT_EHS = f'({A("speculative_config")} && derived.spec_method != "extract_hidden_states")'

FI_EP = ["flashinfer_moe_ep_cutedsl", "flashinfer_moe_ep_mega_deep_gemm"]
DIRECT = '(has(env.VLLM_RELOAD_MODE) && env.VLLM_RELOAD_MODE.matches("^(?i)direct$"))'
DR_DOCS = (
    "VllmConfig._verify_direct_reload_compat (0.34.0): with VLLM_RELOAD_MODE=direct, weights are reloaded "
    "in place, which these features cannot survive. Its checks run in this order."
)
DR_OFFLOAD = (
    f'({AV("offload_backend", chr(34) + "auto" + chr(34))} != "auto" || {AV("offload_group_size", "0")} > 0 '
    f"|| {AV('cpu_offload_gb', '0')} > 0)"
)
DR_TORCHAO = f'({A("quantization")} && args.quantization == "torchao")'
KVC = f"{sub('kv_transfer_config', 'kv_connector')}"
ALLOC = (
    '(has(env.PYTORCH_CUDA_ALLOC_CONF) && env.PYTORCH_CUDA_ALLOC_CONF.contains("expandable_segments:True"))'
)
MEGA_MOE = [
    "deep_gemm_mega_moe",
    "flashinfer_moe_ep_cutedsl",
    "flashinfer_moe_ep_mega_deep_gemm",
    "aiter_mega_moe",
]
UBATCHING = f"({T('enable_dbo')} || ({A('ubatch_size')} && args.ubatch_size > 1))"


def _engram_layers(cfg):
    return (
        f'("engram_layer_ids" in {cfg} && {cfg}.engram_layer_ids != null && size({cfg}.engram_layer_ids) > 0)'
    )


DSV41_ENGRAM = (
    'model.architecture == "DeepseekV41ForCausalLM" && '
    f'({_engram_layers("model.config")} || ("text_config" in model.config && '
    f"{_engram_layers('model.config.text_config')}))"
)

RULES = [
    # ------------------------------------------------------------------ MoE kernels, FLy, KDA, HiSparse
    R(
        "moe-ep-backend-owns-all2all",
        "dispatches and combines itself and cannot be paired with all2all_backend",
        f"{A('moe_backend')} && args.moe_backend in {q(FI_EP)} && {A('all2all_backend')} && "
        '!(args.all2all_backend in ["allgather_reducescatter", "passthrough", "pplx", "naive"])',
        ["moe_backend", "all2all_backend"],
        ["Leave --all2all-backend unset with a FlashInfer MoE-EP backend"],
        "bind_passthrough_all2all_backend (KernelConfig.set_platform_defaults): the FlashInfer MoE-EP "
        "megakernels run their own dispatch and combine, so vLLM binds all2all_backend to 'passthrough' and "
        "refuses any other explicit choice ('pplx' and 'naive' were already replaced by the default).",
        ["moe"],
        message_template=(
            "moe_backend={{ args.moe_backend | !r }} dispatches and combines itself and cannot be paired "
            "with all2all_backend={{ args.all2all_backend | !r }}; leave --all2all-backend unset."
        ),
        fix={"unset": ["all2all_backend"]},
    ),
    R(
        "fly-not-with-extract-hidden-states",
        "FLy is not compatible with method='extract_hidden_states'",
        f'{RSM_FLY} && {A("speculative_config")} && derived.spec_method == "extract_hidden_states"',
        ["speculative_config"],
        ["Use FLy verification with a drafting method; extract_hidden_states drafts nothing"],
        "SpeculativeConfig._verify_args.",
        ["speculative-decoding"],
    ),
    R(
        "fly-min-speculative-tokens",
        "FLy requires num_speculative_tokens to be at least 2.",
        f"{RSM_FLY} && {NOT_EHS} && {HAS_NST} && {NST} < 2",
        ["speculative_config"],
        ["Draft at least 2 tokens with FLy (num_speculative_tokens >= 2)"],
        "SpeculativeConfig._verify_args.",
        ["speculative-decoding"],
    ),
    R(
        "fly-window-below-speculative-tokens",
        "FLy requires fly_window_size to be smaller than num_speculative_tokens.",
        f"{RSM_FLY} && {NOT_EHS} && {HAS_NST} && {NST} >= 2 && "
        f"{sub('speculative_config', 'fly_window_size')} && {SC}.fly_window_size >= {NST}",
        ["speculative_config"],
        ["Give a fly_window_size below num_speculative_tokens, or leave it unset (min(6, n - 1))"],
        "SpeculativeConfig._verify_args.",
        ["speculative-decoding"],
        fix={"unset": ["speculative_config.fly_window_size"]},
    ),
    R(
        "kda-prefill-fused-rocm-only",
        "--kda-prefill-backend=fused is only available on ROCm.",
        f'{A("kda_prefill_backend")} && args.kda_prefill_backend == "fused"',
        ["kda_prefill_backend"],
        ["Use --kda-prefill-backend auto, triton, flashkda or flashinfer on NVIDIA GPUs"],
        "EngineArgs.create_engine_config; the product's target is NVIDIA CUDA.",
        ["kernels"],
        fix={"unset": ["kda_prefill_backend"]},
    ),
    R(
        "hisparse-requires-reserve-full-isl",
        "HiSparse requires --scheduler-reserve-full-isl",
        f"{HISPARSE} && {AV('scheduler_reserve_full_isl', 'true')} == false",
        ["attention_config", "scheduler_reserve_full_isl"],
        ["Remove --no-scheduler-reserve-full-isl (reserving the full input length is the default)"],
        "VllmConfig.__post_init__: HiSparse's asynchronous host loads could otherwise wait on each other "
        "forever.",
        ["hisparse"],
        fix={"unset": ["scheduler_reserve_full_isl"]},
    ),
    # ------------------------------------------------------------------ direct weight reload (0.34.0)
    R(
        "direct-reload-no-offloading",
        "Direct reload does not support weight offloading.",
        f"{DIRECT} && {DR_OFFLOAD}",
        ["env.VLLM_RELOAD_MODE", "offload_backend", "offload_group_size", "cpu_offload_gb"],
        ["Use VLLM_RELOAD_MODE=layerwise (the default) with weight offloading", "Remove weight offloading"],
        DR_DOCS,
        ["weight-reload"],
    ),
    R(
        "direct-reload-no-torchao",
        "Direct reload does not support torchao quantization.",
        f"{DIRECT} && !{DR_OFFLOAD} && {DR_TORCHAO}",
        ["env.VLLM_RELOAD_MODE", "quantization"],
        ["Use VLLM_RELOAD_MODE=layerwise (the default) with torchao quantization"],
        DR_DOCS,
        ["weight-reload"],
    ),
    R(
        "direct-reload-no-lora",
        "Direct reload does not support LoRA.",
        f"{DIRECT} && !{DR_OFFLOAD} && !{DR_TORCHAO} && {T('enable_lora')}",
        ["env.VLLM_RELOAD_MODE", "enable_lora"],
        ["Use VLLM_RELOAD_MODE=layerwise (the default) with LoRA"],
        DR_DOCS + " An online-quantization check comes before this one.",
        ["weight-reload", "lora"],
    ),
    R(
        "direct-reload-no-draft-lm-head-quantization",
        "Direct reload does not support draft_lm_head_quantization.",
        f"{DIRECT} && !{DR_OFFLOAD} && !{DR_TORCHAO} && !{T('enable_lora')} && "
        f"{sub('speculative_config', 'draft_lm_head_quantization')}",
        ["env.VLLM_RELOAD_MODE", "speculative_config"],
        ["Remove draft_lm_head_quantization, or use VLLM_RELOAD_MODE=layerwise (the default)"],
        DR_DOCS + " An online-quantization check comes before this one.",
        ["weight-reload", "speculative-decoding"],
        fix={"unset": ["speculative_config.draft_lm_head_quantization"]},
    ),
    R(
        "direct-reload-no-sharded-rdt",
        "Direct reload does not support the sharded_rdt weight-transfer backend.",
        f"{DIRECT} && !{DR_OFFLOAD} && !{DR_TORCHAO} && !{T('enable_lora')} && "
        f"!{sub('speculative_config', 'draft_lm_head_quantization')} && "
        f'{sub("weight_transfer_config", "backend")} && args.weight_transfer_config.backend == "sharded_rdt"',
        ["env.VLLM_RELOAD_MODE", "weight_transfer_config"],
        ["Use VLLM_RELOAD_MODE=layerwise or another weight-transfer backend"],
        DR_DOCS + " An online-quantization check comes before this one.",
        ["weight-reload"],
    ),
    # ------------------------------------------------------------------ KV connectors
    R(
        "kv-connector-expandable-segments",
        "is incompatible with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True unless enable_cumem_allocator",
        f"{KVC} && {ALLOC} && !{T('enable_sleep_mode')} && !{T('enable_cumem_allocator')}",
        ["kv_transfer_config", "env.PYTORCH_CUDA_ALLOC_CONF", "enable_sleep_mode"],
        [
            "Remove expandable_segments:True from PYTORCH_CUDA_ALLOC_CONF on KV-transfer instances",
            "Enable the cumem allocator (sleep mode turns it on), which keeps the KV cache on stable pages",
        ],
        "VllmConfig._verify_kv_transfer_compat: PyTorch's expandable segments can remap the KV cache that a "
        "connector has registered for RDMA. Sleep mode (which uses the cumem allocator on CUDA) is exempt, "
        "and from 0.33.0 the cumem allocator alone is too; the rule fires on neither.",
        ["kv-transfer"],
        message_template=(
            "KV connector {{ args.kv_transfer_config.kv_connector }} is incompatible with "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True unless enable_cumem_allocator is also enabled. "
            "PyTorch's CUDA VMM allocator can remap KV cache virtual addresses to different physical pages, "
            "invalidating any pinned/registered KV memory (e.g. IB memory regions registered by NIXL or "
            "Mooncake). Either unset expandable_segments:True or enable the cumem allocator (sleep mode does "
            "this automatically and also routes KV allocations through CuMemAllocator's pool, where "
            "expandable_segments is automatically disabled)."
        ),
    ),
    # ------------------------------------------------------------------ LoRA
    R(
        "lora-inkling-multimem-ar",
        "Inkling LoRA requires INKLING_MULTIMEM_AR=0",
        f'{T("enable_lora")} && model.architecture.contains("Inkling") && '
        '!(has(env.INKLING_MULTIMEM_AR) && env.INKLING_MULTIMEM_AR == "0")',
        ["enable_lora", "env.INKLING_MULTIMEM_AR"],
        ["Set INKLING_MULTIMEM_AR=0 in the deployment's environment", "Serve the model without LoRA"],
        "LoRAConfig.verify_with_model_config: Inkling's fused all-reduce path bypasses the LoRA-wrapped "
        "layers on decode-sized batches.",
        ["lora"],
        needs=["model.architecture"],
    ),
    R(
        "lora-mega-moe-backend",
        "LoRA is not supported with moe_backend=",
        f"{T('enable_lora')} && {A('moe_backend')} && args.moe_backend in {q(MEGA_MOE)}",
        ["enable_lora", "moe_backend"],
        ["Use a MoE backend that supports LoRA (e.g. --moe-backend auto)", "Serve without LoRA"],
        "LoRAConfig.verify_with_kernel_config: the MegaMoE kernels have no LoRA path.",
        ["lora", "moe"],
        message_template=(
            "LoRA is not supported with moe_backend={{ args.moe_backend | !r }}. Disable LoRA or select a "
            "MoE backend that supports LoRA."
        ),
        fix={"unset": ["moe_backend"]},
    ),
    # ------------------------------------------------------------------ Engram with microbatching
    R(
        "engram-dsv41-no-microbatching",
        "DeepSeek V4.1 Engram does not support DBO or microbatching.",
        f"{DSV41_ENGRAM} && {UBATCHING}",
        ["enable_dbo", "ubatch_size"],
        ["Disable --enable-dbo and set --ubatch-size to 0 for DeepSeek V4.1"],
        "VllmConfig._resolve_and_verify_engram_config: DeepSeek V4.1's Engram layers (engram_layer_ids in "
        "its config) cannot run split into microbatches.",
        ["engram"],
        needs=["model.architecture", "model.config"],
        fix={"unset": ["enable_dbo", "ubatch_size"]},
    ),
    # ------------------------------------------------------------------ NUMA lists, sleep mode (0.34.0)
    R(
        "numa-lists-with-numa-bind-false",
        "NUMA binding lists cannot be combined with numa_bind=False.",
        f"({A('numa_bind_nodes')} || {A('numa_bind_cpus')}) && has(args.numa_bind) && "
        "args.numa_bind == false",
        ["numa_bind", "numa_bind_nodes", "numa_bind_cpus"],
        ["Remove --no-numa-bind (NUMA lists turn binding on)", "Remove --numa-bind-nodes / --numa-bind-cpus"],
        "ParallelConfig._validate_parallel_config (0.34.0): numa_bind defaults to unset, and NUMA lists then "
        "turn binding on; only an explicit numa_bind=False conflicts.",
        ["numa"],
        fix={"unset": ["numa_bind"]},
    ),
    R(
        "checkpoint-prepare-requires-sleep-mode",
        "checkpoint_prepare_on_startup requires enable_sleep_mode",
        f"{T('checkpoint_prepare_on_startup')} && !{T('enable_sleep_mode')}",
        ["checkpoint_prepare_on_startup", "enable_sleep_mode"],
        ["Add --enable-sleep-mode", "Remove --checkpoint-prepare-on-startup"],
        "ModelConfig.__post_init__ (0.34.0).",
        ["sleep-mode"],
        fix={"set": {"enable_sleep_mode": True}},
    ),
]

WM = {"watermark_config": {"algorithm": "gumbel"}}
EAGLE = {
    "method": "eagle",
    "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
    "num_speculative_tokens": 3,
}
INKLING = {
    "name": "inkling/Inkling-7B",
    "architecture": "InklingForCausalLM",
    "config": {"num_attention_heads": 32, "num_key_value_heads": 8},
}
DSV41 = {
    "name": "deepseek-ai/DeepSeek-V4.1",
    "architecture": "DeepseekV41ForCausalLM",
    "config": {"num_attention_heads": 128, "num_key_value_heads": 128, "engram_layer_ids": [1, 15]},
}
DRE = {"VLLM_RELOAD_MODE": "direct"}
NIXL = {"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}}
SEG = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}

RULES = templated(RULES)

HIS = {"attention_config": {"hisparse_config": {"topk": 2048}}}
DSV32 = {
    "name": "deepseek-ai/DeepSeek-V3.2",
    "architecture": "DeepseekV32ForCausalLM",
    "config": {"num_attention_heads": 128, "num_key_value_heads": 128, "index_topk": 2048},
}
FLY = {"method": "ngram", "prompt_lookup_max": 4, "rejection_sample_method": "fly"}

CASES = {
    "moe-ep-backend-owns-all2all": (
        {"moe_backend": "flashinfer_moe_ep_cutedsl", "all2all_backend": "deepep_low_latency"},
        {"moe_backend": "flashinfer_moe_ep_cutedsl"},
    ),
    "fly-not-with-extract-hidden-states": (
        {
            "speculative_config": {
                "method": "extract_hidden_states",
                "num_speculative_tokens": 1,
                "rejection_sample_method": "fly",
            }
        },
        {"speculative_config": {"method": "extract_hidden_states", "num_speculative_tokens": 1}},
    ),
    "fly-min-speculative-tokens": (
        {"speculative_config": {**FLY, "num_speculative_tokens": 1}},
        {"speculative_config": {**FLY, "num_speculative_tokens": 2}},
    ),
    "fly-window-below-speculative-tokens": (
        {"speculative_config": {**FLY, "num_speculative_tokens": 4, "fly_window_size": 4}},
        {"speculative_config": {**FLY, "num_speculative_tokens": 4, "fly_window_size": 3}},
    ),
    "kda-prefill-fused-rocm-only": ({"kda_prefill_backend": "fused"}, {"kda_prefill_backend": "flashkda"}),
    "hisparse-requires-reserve-full-isl": (
        dict(args={**HIS, "scheduler_reserve_full_isl": False}, model=DSV32),
        dict(args=HIS, model=DSV32),
    ),
    "direct-reload-no-offloading": (
        dict(args={"cpu_offload_gb": 8}, env=DRE),
        dict(args={"cpu_offload_gb": 8}, env={"VLLM_RELOAD_MODE": "layerwise"}),
    ),
    "direct-reload-no-torchao": (
        dict(args={"quantization": "torchao"}, env=DRE),
        dict(args={"quantization": "torchao"}),
    ),
    "direct-reload-no-lora": (dict(args={"enable_lora": True}, env=DRE), dict(args={"enable_lora": True})),
    "direct-reload-no-draft-lm-head-quantization": (
        dict(args={"speculative_config": {**EAGLE, "draft_lm_head_quantization": "fp8"}}, env=DRE),
        dict(args={"speculative_config": EAGLE}, env=DRE),
    ),
    "direct-reload-no-sharded-rdt": (
        dict(args={"weight_transfer_config": {"backend": "sharded_rdt"}}, env=DRE),
        dict(args={"weight_transfer_config": {"backend": "sharded_rdt"}}),
    ),
    "kv-connector-expandable-segments": (
        dict(args=NIXL, env=SEG),
        dict(args={**NIXL, "enable_sleep_mode": True}, env=SEG),
    ),
    "lora-inkling-multimem-ar": (
        dict(args={"enable_lora": True}, model=INKLING),
        dict(args={"enable_lora": True}, model=INKLING, env={"INKLING_MULTIMEM_AR": "0"}),
    ),
    "lora-mega-moe-backend": (
        {"enable_lora": True, "moe_backend": "deep_gemm_mega_moe"},
        {"enable_lora": True, "moe_backend": "auto"},
    ),
    "engram-dsv41-no-microbatching": (
        dict(args={"enable_dbo": True}, model=DSV41),
        dict(args={"enable_dbo": False}, model=DSV41),
    ),
    "numa-lists-with-numa-bind-false": (
        {"numa_bind": False, "numa_bind_nodes": [0]},
        {"numa_bind_nodes": [0]},
    ),
    "checkpoint-prepare-requires-sleep-mode": (
        {"checkpoint_prepare_on_startup": True},
        {"checkpoint_prepare_on_startup": True, "enable_sleep_mode": True},
    ),
}
