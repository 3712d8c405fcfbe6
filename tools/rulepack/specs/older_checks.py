"""Checks of the 0.2x releases that no other topic covers: --quantization-config with a --quantization that is
not an online shorthand, the deprecated use_fp4_indexer_cache against indexer_kv_dtype, the Proton profiler
with CUDA graphs, prefill context parallelism with Model Runner V1 forced, an nvfp4 KV cache on an MLA model
(and, in 0.34.0, the nvfp4_ds_mla KV cache with decode context parallelism), and ReplaySSM on an
architecture without it or with the 'all' Mamba cache mode.

Each condition was read in every release of its range (`python -m tools.rulepack.variants`)."""

from tools.rulepack.expr import ENV_V2, HAS_SPEC, SC, A, R, q, sub
from tools.rulepack.expr import arg_true as T
from tools.rulepack.specs.runtime_asserts import MLA

# ------------------------------------------------------------------------------ quantization_config
# resolve_quantization_config (EngineArgs.__post_init__): the names --quantization may have when
# --quantization-config is given, per release (sorted as vLLM prints them)
_ONLINE = {
    22: ["fp8_per_block", "fp8_per_tensor", "int8_per_channel_weight_only", "mxfp8", "online"],
    24: [
        "fp8_per_block",
        "fp8_per_channel",
        "fp8_per_tensor",
        "int8_per_channel_weight_only",
        "mxfp8",
        "online",
    ],
    26: [
        "fp8_per_block",
        "fp8_per_channel",
        "fp8_per_tensor",
        "int8_per_channel_weight_only",
        "mxfp8",
        "nvfp4_per_token",
        "online",
    ],
    28: [
        "fp8_per_block",
        "fp8_per_channel",
        "fp8_per_tensor",
        "int8_per_channel_weight_only",
        "mxfp4",
        "mxfp8",
        "nvfp4_per_token",
        "online",
    ],
}


def _by_minor(table, render):
    """CEL choosing table[k] for the largest k <= vllm.minor (table keys ascending)."""
    keys = sorted(table)
    expr = render(table[keys[0]])
    for k in keys[1:]:
        expr = f"(vllm.minor >= {k} ? {render(table[k])} : {expr})"
    return expr


def _py_list(xs):
    return '"[' + ", ".join(f"'{x}'" for x in xs) + ']"'


_QUANT_OK = _by_minor(_ONLINE, q)
QCFG = f"{A('quantization_config')} && {A('quantization')} && !(args.quantization in {_QUANT_OK})"
QCFG_0_20 = f"{A('quantization_config')} && !({A('quantization')} && args.quantization in {q(_ONLINE[22])})"

# ------------------------------------------------------------------------------------------ attention_config
AC = "args.attention_config"
FP4_INDEXER = (
    f"{sub('attention_config', 'use_fp4_indexer_cache')} && {AC}.use_fp4_indexer_cache == true && "
    f"{sub('attention_config', 'indexer_kv_dtype')} && "
    f'type({AC}.indexer_kv_dtype) == string && {AC}.indexer_kv_dtype in ["bf16", "fp8", "nvfp4"]'
)

# ------------------------------------------------------------------------------------------ profiler
PRC = "args.profiler_config"
PROTON = (
    f'{sub("profiler_config", "profiler")} && {PRC}.profiler == "proton" && '
    f'{sub("profiler_config", "proton_profiler_dir")} && {PRC}.proton_profiler_dir != "" && '
    f'!{PRC}.proton_profiler_dir.contains("://")'
)
# at this point of VllmConfig.__post_init__ only --enforce-eager or an explicit cudagraph_mode NONE has set
# the mode to NONE (the optimization level's default is applied later)
GRAPHS_NOT_OFF = (
    f"!{T('enforce_eager')} && !({sub('compilation_config', 'cudagraph_mode')} && "
    'string(args.compilation_config.cudagraph_mode).matches("^(?i)none$"))'
)

# ------------------------------------------------------------------------------------------ ReplaySSM
REPLAY = "effective.use_replayssm == true"
NEMOTRON_H = ["NemotronHForCausalLM", "NemotronHPuzzleForCausalLM"]
NANO_VL_0_34 = [
    "NemotronH_Nano_VL_V2",
    "NemotronH_Nano_Omni_Reasoning_V3",
    "NemotronH_Super_Omni_Reasoning_V3",
    "NemotronH_Omni_Reasoning_V3",
]
REPLAY_ARCHS = f"(vllm.minor >= 34 ? {q(NEMOTRON_H + NANO_VL_0_34)} : {q(NEMOTRON_H)})"
NST = f"({HAS_SPEC} && has({SC}.num_speculative_tokens) && {SC}.num_speculative_tokens != null ? " + (
    f"{SC}.num_speculative_tokens : 0)"
)

# ModelConfig.use_mla: VLLM_MLA_DISABLE turns MLA off; from 0.29.0 a bidirectional DeepSeek variant
# (hf_text_config.is_causal False) does not use MLA either
MLA_ENABLED = '!(has(env.VLLM_MLA_DISABLE) && env.VLLM_MLA_DISABLE in ["1", "true", "True"])'
_TEXT_CFG = "(has(model.config.text_config) && model.config.text_config != null)"
BIDIRECTIONAL = (
    f"({_TEXT_CFG} ? (has(model.config.text_config.is_causal) && "
    "model.config.text_config.is_causal == false) : "
    "(has(model.config.is_causal) && model.config.is_causal == false))"
)

RULES = [
    R(
        "quantization-config-requires-online-shorthand-0.20.0",
        "quantization_config is only supported when quantization is one of "
        "{sorted(valid_quantization_values)}",
        QCFG_0_20,
        ["quantization_config", "quantization"],
        [
            "Give --quantization one of the online schemes (or 'online') with --quantization-config",
            "Remove --quantization-config",
        ],
        "resolve_online_quant_config (EngineArgs.__post_init__): --quantization-config is taken only with an "
        "online quantization scheme, and refused without --quantization.",
        ["quantization"],
        values={
            "sorted(valid_quantization_values)": _py_list(_ONLINE[22]),
            "quantization": f"({A('quantization')} ? args.quantization : null)",
        },
        fix={"unset": ["quantization_config"]},
    ),
    R(
        "quantization-config-requires-online-shorthand",
        "quantization_config is only supported when quantization is one of "
        "{sorted(ONLINE_QUANT_SHORTHAND_NAMES)}",
        QCFG,
        ["quantization_config", "quantization"],
        [
            "Give --quantization an online shorthand (or 'online') with --quantization-config",
            "Remove --quantization-config",
        ],
        "resolve_quantization_config (EngineArgs.__post_init__): with --quantization set to anything but an "
        "online shorthand, --quantization-config is refused (0.22-0.23: fp8_per_block, fp8_per_tensor, "
        "int8_per_channel_weight_only, mxfp8; +fp8_per_channel 0.24; +nvfp4_per_token 0.26; +mxfp4 0.28).",
        ["quantization"],
        values={
            "sorted(ONLINE_QUANT_SHORTHAND_NAMES)": _by_minor(_ONLINE, _py_list),
            "quantization": "args.quantization",
        },
        fix={"unset": ["quantization_config"]},
    ),
    R(
        "fp4-indexer-cache-vs-indexer-kv-dtype",
        "use_fp4_indexer_cache=True conflicts with indexer_kv_dtype=",
        FP4_INDEXER,
        ["attention_config"],
        ["Remove the deprecated use_fp4_indexer_cache and set only indexer_kv_dtype"],
        "AttentionConfig.__post_init__: the deprecated use_fp4_indexer_cache=True means indexer_kv_dtype "
        "'mxfp4' and conflicts with any other explicit indexer_kv_dtype than 'auto'.",
        ["attention-backend", "kv-cache"],
        values={"self.indexer_kv_dtype": f"{AC}.indexer_kv_dtype"},
        fix={"unset": ["attention_config.use_fp4_indexer_cache"]},
    ),
    R(
        "proton-requires-cudagraphs-off",
        "The Proton profiler requires CUDA graphs to be disabled.",
        f"{PROTON} && {GRAPHS_NOT_OFF}",
        ["profiler_config", "enforce_eager", "compilation_config"],
        ["Add --enforce-eager", "Set --compilation-config.cudagraph_mode=none"],
        "VllmConfig.__post_init__: the Proton profiler needs CUDA graphs off, which at that point only "
        "--enforce-eager or an explicit cudagraph_mode NONE has done.",
        ["profiler", "cudagraph"],
        fix={"set": {"enforce_eager": True}},
    ),
    R(
        "pcp-requires-mrv2",
        "Prefill context parallelism requires Model Runner V2. Remove VLLM_USE_V2_MODEL_RUNNER=0.",
        f"effective.prefill_context_parallel_size > 1 && has({ENV_V2}) && int({ENV_V2}) == 0",
        ["prefill_context_parallel_size", "env.VLLM_USE_V2_MODEL_RUNNER"],
        ["Remove VLLM_USE_V2_MODEL_RUNNER=0 from the environment", "Set --prefill-context-parallel-size 1"],
        "VllmConfig.__post_init__: prefill context parallelism runs only on Model Runner V2, which vLLM "
        "picks by itself for it unless VLLM_USE_V2_MODEL_RUNNER=0 forces V1.",
        ["context-parallel", "model-runner-v2"],
    ),
    R(
        "nvfp4-kv-cache-vs-mla",
        "Please use a different --kv-cache-dtype (e.g., 'fp8' or 'auto') for MLA models",
        f'{A("kv_cache_dtype")} && type(args.kv_cache_dtype) == string && (args.kv_cache_dtype == "nvfp4" || '
        f'(vllm.minor >= 28 && args.kv_cache_dtype.startsWith("nvfp4"))) && ({MLA}) && {MLA_ENABLED} && '
        f"(vllm.minor < 29 || !({BIDIRECTIONAL}))",
        ["kv_cache_dtype"],
        ["Use --kv-cache-dtype fp8 or auto for an MLA model"],
        "VllmConfig model validator: an nvfp4 KV cache cannot be used by the MLA attention backends (a "
        "model whose config.json has kv_lora_rank, e.g. DeepSeek-V2/V3); 'nvfp4' only, any nvfp4* layout "
        "from 0.28.0.",
        ["kv-cache", "mla"],
        needs=["model.config"],
        fix={"set": {"kv_cache_dtype": "fp8"}},
    ),
    R(
        "nvfp4-kv-cache-vs-mla-0.30.0",
        "or 'nvfp4_ds_mla' with a sparse MLA backend) for MLA models such as DeepSeek.",
        f"{A('kv_cache_dtype')} && type(args.kv_cache_dtype) == string && "
        f'args.kv_cache_dtype.startsWith("nvfp4") && !args.kv_cache_dtype.endsWith("_ds_mla") && ({MLA}) && '
        f"!({BIDIRECTIONAL}) && {MLA_ENABLED}",
        ["kv_cache_dtype"],
        [
            "Use --kv-cache-dtype fp8 or auto for an MLA model",
            "Use --kv-cache-dtype nvfp4_ds_mla with a sparse MLA attention backend",
        ],
        "VllmConfig.validate_nvfp4_kv_cache_with_mla: the plain nvfp4 KV cache layouts cannot be used by the "
        "MLA attention backends (a model whose config.json has kv_lora_rank, e.g. DeepSeek-V2/V3, unless "
        "VLLM_MLA_DISABLE is set or the config says is_causal: false); the nvfp4_ds_mla layout is made "
        "for MLA.",
        ["kv-cache", "mla"],
        needs=["model.config"],
        fix={"set": {"kv_cache_dtype": "fp8"}},
    ),
    R(
        "nvfp4-ds-mla-kv-cache-vs-dcp",
        "nvfp4_ds_mla KV cache is not supported with decode context parallelism",
        'effective.kv_cache_dtype == "nvfp4_ds_mla" && effective.decode_context_parallel_size > 1',
        ["kv_cache_dtype", "decode_context_parallel_size"],
        ["Set --decode-context-parallel-size 1", "Use another --kv-cache-dtype (e.g. fp8) with DCP"],
        "VllmConfig.validate_nvfp4_kv_cache_with_mla: the nvfp4_ds_mla KV cache's chunked-context prefill "
        "gather is not validated under decode context parallelism (checked before the MLA check, for any "
        "model).",
        ["kv-cache", "context-parallel"],
        fix={"set": {"decode_context_parallel_size": 1}},
    ),
    R(
        "replayssm-nemotron-h-only",
        "--use-replayssm is only supported for Nemotron-H models",
        f"{REPLAY} && !(model.architecture in {q(NEMOTRON_H)})",
        ["use_replayssm"],
        ["Drop --use-replayssm (only Nemotron-H models implement ReplaySSM here)"],
        "VllmConfig.validate_mamba_cached_kernel: the model class must implement SupportsReplaySSM, which "
        "only Nemotron-H (NemotronHForCausalLM, NemotronHPuzzleForCausalLM) does in these releases.",
        ["mamba"],
        needs=["model.config"],
        values={"self.model_config.architecture": "model.architecture"},
        fix={"unset": ["use_replayssm"]},
    ),
    R(
        "replayssm-unsupported-architecture",
        "--use-replayssm is not supported for architecture",
        f"{REPLAY} && !(model.architecture in {REPLAY_ARCHS})",
        ["use_replayssm"],
        ["Drop --use-replayssm (only Nemotron-H models implement ReplaySSM)"],
        "VllmConfig.validate_mamba_cached_kernel: the model class must implement SupportsReplaySSM: "
        "Nemotron-H (and, from 0.34.0, the Nemotron-H Nano VL / Omni models).",
        ["mamba"],
        needs=["model.config"],
        values={"self.model_config.architecture": "model.architecture"},
        fix={"unset": ["use_replayssm"]},
    ),
    R(
        "replayssm-align-mode-only",
        "--use-replayssm supports prefix caching only in align mode",
        f'{REPLAY} && effective.mamba_cache_mode == "all" && (vllm.minor <= 28 || {NST} == 0)',
        ["use_replayssm", "mamba_cache_mode"],
        ["Pass --mamba-cache-mode align", "Drop --use-replayssm"],
        "VllmConfig.validate_mamba_cached_kernel: ReplaySSM keeps the Mamba state per aligned block only "
        "(from 0.29.0 checked only without speculative decoding, which takes the RecoverSSM path).",
        ["mamba", "prefix-caching"],
        fix={"set": {"mamba_cache_mode": "align"}},
    ),
]


# EngineArgs._check_feature_supported (the start of create_engine_config): one generic message for two checks
_PP_NAME = (
    "Pipeline Parallelism without Ray distributed executor or multiprocessing executor or external launcher"
)
_PARTIAL = (
    f"(({A('max_num_partial_prefills')} && args.max_num_partial_prefills != 1) || "
    f"({A('max_long_partial_prefills')} && args.max_long_partial_prefills != 1))"
)
_PP_BAD = (
    f"effective.pipeline_parallel_size > 1 && {A('distributed_executor_backend')} && "
    '!(args.distributed_executor_backend in ["ray", "mp", "external_launcher"])'
)
RULES += [
    R(
        "feature-not-supported",
        "{feature_name} is not supported. We recommend to remove {feature_name} from your config.",
        f"(vllm.minor <= 26 && {_PARTIAL}) || ({_PP_BAD})",
        ["pipeline_parallel_size", "distributed_executor_backend", "max_num_partial_prefills"],
        [
            "Use --distributed-executor-backend mp (or ray) with pipeline parallelism",
            "Remove --max-num-partial-prefills / --max-long-partial-prefills (0.26.0 and earlier)",
        ],
        "EngineArgs._check_feature_supported, at the start of create_engine_config: up to 0.26.0 concurrent "
        "partial prefills (max_num_partial_prefills or max_long_partial_prefills other than 1) are refused "
        "first; pipeline parallelism runs only with the ray, mp or external_launcher executors (or an "
        "executor class with supports_pp), so 'uni' or a class path given as a string is refused.",
        ["parallelism", "scheduler"],
        values={
            "feature_name": f'((vllm.minor <= 26 && {_PARTIAL}) ? "Concurrent Partial Prefill" : '
            f'"{_PP_NAME}")'
        },
    ),
]

NEMOTRON = {
    "name": "nvidia/NVIDIA-Nemotron-Nano-9B-v2",
    "architecture": "NemotronHForCausalLM",
    "config": {"num_attention_heads": 40, "num_key_value_heads": 8},
}
DEEPSEEK = {
    "name": "deepseek-ai/DeepSeek-V3",
    "architecture": "DeepseekV3ForCausalLM",
    "config": {"num_attention_heads": 128, "kv_lora_rank": 512},
}
_QC = {"linear": {"weight": "fp8_per_tensor"}}

CASES = {
    "quantization-config-requires-online-shorthand-0.20.0": (
        {"quantization": "fp8", "quantization_config": _QC},
        {"quantization": "fp8_per_tensor", "quantization_config": _QC},
    ),
    "quantization-config-requires-online-shorthand": (
        {"quantization": "fp8", "quantization_config": _QC},
        {"quantization": "fp8_per_block", "quantization_config": _QC},
    ),
    "fp4-indexer-cache-vs-indexer-kv-dtype": (
        {"attention_config": {"use_fp4_indexer_cache": True, "indexer_kv_dtype": "fp8"}},
        {"attention_config": {"use_fp4_indexer_cache": True, "indexer_kv_dtype": "mxfp4"}},
    ),
    "proton-requires-cudagraphs-off": (
        {"profiler_config": {"profiler": "proton", "proton_profiler_dir": "/data/proton"}},
        {
            "profiler_config": {"profiler": "proton", "proton_profiler_dir": "/data/proton"},
            "enforce_eager": True,
        },
    ),
    "pcp-requires-mrv2": (
        {"args": {"prefill_context_parallel_size": 2}, "env": {"VLLM_USE_V2_MODEL_RUNNER": "0"}},
        {"args": {"prefill_context_parallel_size": 2}},
    ),
    "nvfp4-kv-cache-vs-mla": (
        {"args": {"kv_cache_dtype": "nvfp4"}, "model": DEEPSEEK},
        {"args": {"kv_cache_dtype": "fp8"}, "model": DEEPSEEK},
    ),
    "nvfp4-kv-cache-vs-mla-0.30.0": (
        {"args": {"kv_cache_dtype": "nvfp4"}, "model": DEEPSEEK},
        {"args": {"kv_cache_dtype": "nvfp4_ds_mla"}, "model": DEEPSEEK},
    ),
    "nvfp4-ds-mla-kv-cache-vs-dcp": (
        {
            "args": {
                "kv_cache_dtype": "nvfp4_ds_mla",
                "tensor_parallel_size": 8,
                "decode_context_parallel_size": 2,
            },
            "model": DEEPSEEK,
        },
        {"args": {"kv_cache_dtype": "nvfp4_ds_mla", "tensor_parallel_size": 8}, "model": DEEPSEEK},
    ),
    "replayssm-nemotron-h-only": (
        {"args": {"use_replayssm": True}},
        {"args": {"use_replayssm": True}, "model": NEMOTRON},
    ),
    "replayssm-unsupported-architecture": (
        {"args": {"use_replayssm": True}},
        {"args": {"use_replayssm": True}, "model": NEMOTRON},
    ),
    "replayssm-align-mode-only": (
        {"args": {"use_replayssm": True, "mamba_cache_mode": "all"}, "model": NEMOTRON},
        {"args": {"use_replayssm": True, "mamba_cache_mode": "align"}, "model": NEMOTRON},
    ),
    "feature-not-supported": (
        {"pipeline_parallel_size": 2, "distributed_executor_backend": "uni"},
        {"pipeline_parallel_size": 2, "distributed_executor_backend": "mp"},
    ),
}
