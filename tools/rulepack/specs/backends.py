"""Backends and features that exclude each other: the FlashInfer MoE-EP and MegaMoE kernels, FLy verification,
the KDA prefill backend, HiSparse, direct weight reload, KV connectors, LoRA, Engram with microbatching,
NUMA lists, sleep-mode checkpoint preparation."""

from tools.rulepack.coverage_expr import AV, templated
from tools.rulepack.expr import HAS_SPEC, HISPARSE, SC, A, R, q, sub
from tools.rulepack.expr import arg_true as T
from tools.rulepack.profiles import MIXTRAL

RSM_FLY = f'({sub("speculative_config", "rejection_sample_method")} && {SC}.rejection_sample_method == "fly")'
NST = f"{SC}.num_speculative_tokens"
HAS_NST = sub("speculative_config", "num_speculative_tokens")
NOT_EHS = f'({A("speculative_config")} && derived.spec_method != "extract_hidden_states")'

FI_EP = ["flashinfer_moe_ep_cutedsl", "flashinfer_moe_ep_mega_deep_gemm"]
KV_KINDS = [
    "chunked_local_attention",
    "cross_attention",
    "encoder_only_attention",
    "full_attention",
    "mamba",
    "mla_attention",
    "sink_full_attention",
    "sliding_window",
    "sliding_window_mla",
    "unknown",
]
BPK = "args.attention_config.backend_per_kind"
BPK_BAD = f"{BPK}.filter(k, !(k in {q(KV_KINDS)}))"
IOP = "args.ir_op_priority"
KIOP = "args.kernel_config.ir_op_priority"
IOP_BOTH = (
    f"(type({IOP}[op]) == list && size({IOP}[op]) > 0 && op in {KIOP} && {KIOP}[op] != null && "
    f"size({KIOP}[op]) > 0)"
)
MOONEP = f'({A("all2all_backend")} && args.all2all_backend == "moonep")'
MOON_DTYPE = f'({A("dtype")} && args.dtype in ["half", "float16", "float", "float32"])'
RRE = (
    f"({T('enable_return_routed_experts')} || "
    f"({sub('aux_output_config', 'enable_return_routed_experts')} && "
    "args.aux_output_config.enable_return_routed_experts == true))"
)
POOLING_RUNNER = f'({A("runner")} && args.runner == "pooling")'
PD_CONNECTORS = [
    "NixlConnector",
    "NixlPullConnector",
    "NixlPushConnector",
    "MoRIIOConnector",
    "MooncakeConnector",
]

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
    # ------------------------------------------------------------------ attention, kernels, EC manager
    R(
        "backend-per-kind-unknown-kind",
        "in backend_per_kind. Valid kinds are:",
        f"{sub('attention_config', 'backend_per_kind')} && type({BPK}) == map && size({BPK_BAD}) > 0",
        ["attention_config"],
        [f"Key backend_per_kind by KV cache group kinds: {', '.join(KV_KINDS)}"],
        "AttentionConfig.validate_backend_per_kind_before (the attention config is built while the arguments "
        "are parsed).",
        ["attention"],
        message_template=(
            f"Unknown KV cache group kind '{{{{ {BPK_BAD}[0] }}}}' in backend_per_kind. Valid kinds are: "
            f"{', '.join(KV_KINDS)}."
        ),
    ),
    R(
        "ir-op-priority-set-twice",
        "specified via both ir_op_priority and KernelConfig.ir_op_priority",
        f"{A('ir_op_priority')} && {sub('kernel_config', 'ir_op_priority')} && type({IOP}) == map && "
        f"type({KIOP}) == map && {IOP}.exists(op, {IOP_BOTH})",
        ["ir_op_priority", "kernel_config"],
        ["Give each op's priority once: in --ir-op-priority or in --kernel-config.ir_op_priority"],
        "EngineArgs.create_engine_config moves --ir-op-priority into KernelConfig.ir_op_priority and refuses "
        "an op whose priority is already there.",
        ["kernels"],
        message_template=(
            f"Op priority for {{{{ {IOP}.filter(op, {IOP_BOTH})[0] }}}} specified via both "
            "ir_op_priority and KernelConfig.ir_op_priority, only one allowed at a time."
        ),
    ),
    R(
        "ec-manager-config-requires-class",
        "manager_config requires encoder_cache_manager_cls to be set.",
        f"{sub('ec_manager_config', 'manager_config')} && size(args.ec_manager_config.manager_config) > 0 && "
        f"!{sub('ec_manager_config', 'encoder_cache_manager_cls')}",
        ["ec_manager_config"],
        ["Name the custom encoder cache manager (encoder_cache_manager_cls) that reads manager_config"],
        "EncoderCacheManagerConfig.__post_init__.",
        ["ec-transfer"],
    ),
    R(
        "hisparse-requires-index-topk",
        "HiSparse is only supported for DSA models with index_topk.",
        f'{HISPARSE} && !("index_topk" in model.config)',
        ["attention_config"],
        ["Use HiSparse only with a DeepSeek sparse-attention (DSA) model", "Remove hisparse_config"],
        "VllmConfig.__post_init__: HiSparse offloads the sparse indexer's top-k KV, so the model's config "
        "must have index_topk.",
        ["hisparse"],
        needs=["model.config"],
        fix={"unset": ["attention_config.hisparse_config"]},
    ),
    # ------------------------------------------------------------------ MoonEP all2all backend
    R(
        "moonep-unquantized-only",
        "The moonep all2all backend currently supports unquantized BF16 models only; got quantization=",
        f"{MOONEP} && {A('quantization')}",
        ["all2all_backend", "quantization"],
        ["Use a different --all2all-backend for quantized models"],
        "VllmConfig.__post_init__ (the quantization given with --quantization; a checkpoint's own "
        "quantization is refused too but is not read here).",
        ["moe"],
        message_template=(
            "The moonep all2all backend currently supports unquantized BF16 models only; got "
            "quantization={{ args.quantization | !r }}. Use a different --all2all-backend for quantized "
            "models."
        ),
    ),
    R(
        "moonep-bf16-only",
        "The moonep all2all backend currently supports BF16 models only; got dtype=",
        f"{MOONEP} && !{A('quantization')} && {MOON_DTYPE}",
        ["all2all_backend", "dtype"],
        ["Serve with --dtype bfloat16", "Use a different --all2all-backend"],
        "VllmConfig.__post_init__ (the dtype given with --dtype; 'auto' follows the checkpoint and is not "
        "read here).",
        ["moe"],
        message_template=(
            "The moonep all2all backend currently supports BF16 models only; got dtype="
            '{{ args.dtype in ["half", "float16"] ? "torch.float16" : "torch.float32" }}. Use a different '
            "--all2all-backend or --dtype bfloat16."
        ),
        fix={"set": {"dtype": "bfloat16"}},
    ),
    R(
        "moonep-no-eplb",
        "The moonep all2all backend does not support EPLB yet",
        f"{MOONEP} && !{A('quantization')} && !{MOON_DTYPE} && {T('enable_eplb')}",
        ["all2all_backend", "enable_eplb"],
        ["Disable --enable-eplb", "Use a different --all2all-backend"],
        "VllmConfig.__post_init__.",
        ["moe"],
        fix={"unset": ["enable_eplb"]},
    ),
    R(
        "moonep-linear-placement",
        "The moonep all2all backend requires linear expert placement",
        f"{MOONEP} && !{A('quantization')} && !{MOON_DTYPE} && !{T('enable_eplb')} && "
        f'{A("expert_placement_strategy")} && args.expert_placement_strategy != "linear"',
        ["all2all_backend", "expert_placement_strategy"],
        ["Use --expert-placement-strategy linear (the default) with MoonEP"],
        "VllmConfig.__post_init__.",
        ["moe"],
        message_template=(
            "The moonep all2all backend requires linear expert placement: its load-time all-gather assumes "
            "each rank holds a contiguous chunk of the global expert range. Got --expert-placement-strategy "
            "{{ args.expert_placement_strategy | !r }}."
        ),
        fix={"unset": ["expert_placement_strategy"]},
    ),
    # ------------------------------------------------------------------ auxiliary outputs (routed experts)
    R(
        "aux-output-generate-only",
        "AuxOutput Connector only supports generate runners.",
        f"{RRE} && {POOLING_RUNNER}",
        ["enable_return_routed_experts", "runner"],
        ["Return routed experts only from a generate runner"],
        "VllmConfig._verify_aux_output_compatibility (0.31.0-0.33.x check Model Runner V2 first).",
        ["moe"],
    ),
    R(
        "aux-output-moe-only",
        "AuxOutput Connector only supports MoE models.",
        f"{RRE} && !{POOLING_RUNNER} && !derived.model_is_moe",
        ["enable_return_routed_experts"],
        ["Remove --enable-return-routed-experts: the model has no experts"],
        "VllmConfig._verify_aux_output_compatibility.",
        ["moe"],
        needs=["model.config"],
        fix={"unset": ["enable_return_routed_experts"]},
    ),
    R(
        "aux-output-prefix-caching",
        "AuxOutput Connector requires prefix caching.",
        f"{RRE} && !{POOLING_RUNNER} && derived.model_is_moe && has(args.enable_prefix_caching) && "
        "args.enable_prefix_caching == false",
        ["enable_return_routed_experts", "enable_prefix_caching"],
        ["Remove --no-enable-prefix-caching when returning routed experts"],
        "VllmConfig._verify_aux_output_compatibility (only an explicit --no-enable-prefix-caching is read; "
        "vLLM also refuses a model for which it turns prefix caching off itself).",
        ["moe"],
        needs=["model.config"],
        fix={"unset": ["enable_prefix_caching"]},
    ),
    R(
        "aux-output-pd-connector",
        "; PD auxiliary output is not supported.",
        f"{RRE} && {sub('kv_transfer_config', 'kv_connector')} && "
        f"args.kv_transfer_config.kv_connector in {q(PD_CONNECTORS)}",
        ["enable_return_routed_experts", "kv_transfer_config"],
        ["Return routed experts from an instance without a P/D KV connector"],
        "VllmConfig._verify_aux_output_compatibility (the connector named directly; one nested in a "
        "MultiConnector is refused too but is not read here).",
        ["moe", "kv-transfer"],
        message_template=(
            "--enable-return-routed-experts is incompatible with {{ args.kv_transfer_config.kv_connector }}; "
            "PD auxiliary output is not supported."
        ),
    ),
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
        "kv-sharing-fast-prefill-vs-eagle",
        "Fast prefill optimization for KV sharing is not compatible with EAGLE",
        f"effective.kv_sharing_fast_prefill == true && {HAS_SPEC} && "
        'derived.spec_method in ["eagle", "eagle3", "mtp", "dflash"]',
        ["kv_sharing_fast_prefill", "speculative_config"],
        ["Disable --kv-sharing-fast-prefill with EAGLE-style speculative decoding"],
        "VllmConfig.__post_init__: drafters that read the target's hidden states need correct logits for "
        "every prompt token (use_eagle() before 0.34.0, uses_target_hidden_states from 0.34.0; eagle, "
        "eagle3, mtp and dflash are such drafters on every release).",
        ["speculative-decoding"],
        fix={"unset": ["kv_sharing_fast_prefill"]},
    ),
    R(
        "hisparse-requires-hybrid-kv-cache-manager",
        "HiSparse requires the hybrid KV cache manager;",
        f"{HISPARSE} && {T('disable_hybrid_kv_cache_manager')}",
        ["attention_config", "disable_hybrid_kv_cache_manager"],
        ["Remove --disable-hybrid-kv-cache-manager"],
        "VllmConfig.__post_init__ (an explicit --disable-hybrid-kv-cache-manager; vLLM may also turn the "
        "manager off itself for some KV connectors, which is refused too but not read here).",
        ["hisparse"],
        fix={"unset": ["disable_hybrid_kv_cache_manager"]},
    ),
    R(
        "parallel-drafting-dflash-dspark-only",
        "parallel_drafting is only supported by the dflash and dspark methods, not",
        f"{HAS_SPEC} && has({SC}.parallel_drafting) && {SC}.parallel_drafting == true && "
        '!(derived.spec_method in ["dflash", "dspark"])',
        ["speculative_config"],
        ["Remove parallel_drafting: it is deprecated and only dflash and dspark draft in parallel"],
        "SpeculativeConfig._verify_args (0.34.0).",
        ["speculative-decoding"],
        message_template=(
            "parallel_drafting is only supported by the dflash and dspark methods, not "
            "{{ derived.spec_method | !r }}."
        ),
        fix={"unset": ["speculative_config.parallel_drafting"]},
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

EAGLE3 = {"method": "eagle3", "model": "org/eagle3-draft", "num_speculative_tokens": 3}

CASES = {
    "backend-per-kind-unknown-kind": (
        {"attention_config": {"backend_per_kind": {"full": "FLASH_ATTN"}}},
        {"attention_config": {"backend_per_kind": {"full_attention": "FLASH_ATTN"}}},
    ),
    "ir-op-priority-set-twice": (
        {
            "ir_op_priority": {"rms_norm": ["vllm_c"]},
            "kernel_config": {"ir_op_priority": {"rms_norm": ["native"]}},
        },
        {"kernel_config": {"ir_op_priority": {"rms_norm": ["native"]}}},
    ),
    "ec-manager-config-requires-class": (
        {"ec_manager_config": {"manager_config": {"capacity": 8}}},
        {"ec_manager_config": {"encoder_cache_manager_cls": "my.Manager", "manager_config": {"capacity": 8}}},
    ),
    "hisparse-requires-index-topk": (dict(args=HIS), dict(args=HIS, model=DSV32)),
    "moonep-unquantized-only": (
        dict(args={"all2all_backend": "moonep", "quantization": "fp8"}, model=MIXTRAL),
        dict(args={"all2all_backend": "moonep"}, model=MIXTRAL),
    ),
    "moonep-bf16-only": (
        dict(args={"all2all_backend": "moonep", "dtype": "half"}, model=MIXTRAL),
        dict(args={"all2all_backend": "moonep", "dtype": "bfloat16"}, model=MIXTRAL),
    ),
    "moonep-no-eplb": (
        dict(args={"all2all_backend": "moonep", "enable_eplb": True}, model=MIXTRAL),
        dict(args={"all2all_backend": "moonep"}, model=MIXTRAL),
    ),
    "moonep-linear-placement": (
        dict(args={"all2all_backend": "moonep", "expert_placement_strategy": "round_robin"}, model=MIXTRAL),
        dict(args={"all2all_backend": "moonep", "expert_placement_strategy": "linear"}, model=MIXTRAL),
    ),
    "aux-output-generate-only": (
        dict(args={"enable_return_routed_experts": True, "runner": "pooling"}, model=MIXTRAL),
        dict(args={"enable_return_routed_experts": True, "runner": "generate"}, model=MIXTRAL),
    ),
    "aux-output-moe-only": (
        {"enable_return_routed_experts": True},
        dict(args={"enable_return_routed_experts": True}, model=MIXTRAL),
    ),
    "aux-output-prefix-caching": (
        dict(args={"enable_return_routed_experts": True, "enable_prefix_caching": False}, model=MIXTRAL),
        dict(args={"enable_return_routed_experts": True, "enable_prefix_caching": True}, model=MIXTRAL),
    ),
    "aux-output-pd-connector": (
        dict(
            args={
                "enable_return_routed_experts": True,
                "kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"},
            },
            model=MIXTRAL,
        ),
        dict(
            args={
                "enable_return_routed_experts": True,
                "kv_transfer_config": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"},
            },
            model=MIXTRAL,
        ),
    ),
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
    "kv-sharing-fast-prefill-vs-eagle": (
        {"kv_sharing_fast_prefill": True, "speculative_config": EAGLE3},
        {
            "kv_sharing_fast_prefill": True,
            "speculative_config": {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4},
        },
    ),
    "hisparse-requires-hybrid-kv-cache-manager": (
        dict(args={**HIS, "disable_hybrid_kv_cache_manager": True}, model=DSV32),
        dict(args=HIS, model=DSV32),
    ),
    "parallel-drafting-dflash-dspark-only": (
        {"speculative_config": {**EAGLE3, "parallel_drafting": True}},
        {"speculative_config": {**EAGLE3, "parallel_drafting": False}},
    ),
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
