"""ReplaySSM / RecoverSSM kernel choices (VllmConfig.validate_mamba_cached_kernel): the Mamba backend, the
replay buffer length, speculative decoding, microbatching and pipeline parallelism; and the Mamba block size
without prefix caching.

The first check of that validator refuses an architecture without ReplaySSM support (a registry fact the
product does not read), so a profile these rules refuse is refused by vLLM either way."""

from tools.rulepack.coverage_expr import AV, templated
from tools.rulepack.expr import HAS_SPEC, KV_INSTANCE, SC, A, R, q
from tools.rulepack.expr import arg_true as T

REPLAY = T("use_replayssm")
KDA_0_32 = ["KimiLinearForCausalLM", "KimiK3ForConditionalGeneration"]
KDA_0_34 = [*KDA_0_32, "KimiK31ForConditionalGeneration"]
# VllmConfig.num_speculative_tokens: the speculative config's (unknown when the draft model sets it), else 0
NST = f"({HAS_SPEC} ? {SC}.num_speculative_tokens : 0)"
BACKEND = AV("mamba_backend", '"triton"')
FLASHINFER = f'string({BACKEND}).matches("^(?i)flashinfer$")'
BUFFER = AV("replayssm_buffer_len", "16")


def mamba_spec(kda):
    """ReplaySSM with speculative decoding on a Mamba2 (not a KDA/RecoverSSM) model."""
    return f"({NST} > 0 && !(model.architecture in {q(kda)}))"


def not_recover(kda):
    return f"!({NST} > 0 && model.architecture in {q(kda)})"


# RecoverSSM: ReplaySSM with speculative decoding on a KDA model (0.29.0-0.31.x use it for any model with
# speculative decoding and refuse a non-KDA one just before these checks)
RECOVER = f"({REPLAY} && {NST} > 0 && model.architecture in {q(KDA_0_34)})"
RECOVER_DOCS = (
    "VllmConfig.validate_mamba_cached_kernel, with --use-replayssm and speculative decoding (RecoverSSM)."
)

DOCS = "VllmConfig.validate_mamba_cached_kernel, with --use-replayssm."
UBATCHING = f"({T('enable_dbo')} || ({A('ubatch_size')} && args.ubatch_size > 1))"

RULES = [
    R(
        "replayssm-flashinfer-buffer-le-16",
        "FlashInfer ReplaySSM requires --replayssm-buffer-len <= 16",
        f"{REPLAY} && {FLASHINFER} && {BUFFER} > 16",
        ["use_replayssm", "mamba_backend", "replayssm_buffer_len"],
        ["Set --replayssm-buffer-len to 16 or less with --mamba-backend flashinfer"],
        DOCS,
        ["mamba"],
        fix={"set": {"replayssm_buffer_len": 16}},
    ),
    R(
        "replayssm-flashinfer-spec-buffer-len",
        "FlashInfer ReplaySSM speculative decoding requires --replayssm-buffer-len >= 1 + num_speculative",
        f"{REPLAY} && {FLASHINFER} && {BUFFER} <= 16 && {mamba_spec(KDA_0_34)} && {BUFFER} < 1 + {NST}",
        ["use_replayssm", "mamba_backend", "replayssm_buffer_len", "speculative_config"],
        ["Give --replayssm-buffer-len at least 1 + num_speculative_tokens"],
        DOCS + " The replay ring holds one verification step: the bonus token and every draft token.",
        ["mamba", "speculative-decoding"],
        needs=["model.architecture"],
        message_template=(
            "FlashInfer ReplaySSM speculative decoding requires --replayssm-buffer-len >= 1 + "
            f"num_speculative_tokens ({{{{ 1 + {NST} }}}}); got {{{{ {BUFFER} }}}}"
        ),
    ),
    R(
        "replayssm-spec-requires-flashinfer",
        "Mamba2 ReplaySSM speculative decoding requires --mamba-backend flashinfer",
        f"{REPLAY} && !{FLASHINFER} && {mamba_spec(KDA_0_34)}",
        ["use_replayssm", "mamba_backend", "speculative_config"],
        ["Use --mamba-backend flashinfer for ReplaySSM with speculative decoding"],
        DOCS + " KDA models (Kimi Linear, Kimi K3/K3.1) use RecoverSSM instead and are not concerned.",
        ["mamba", "speculative-decoding"],
        needs=["model.architecture"],
        fix={"set": {"mamba_backend": "flashinfer"}},
    ),
    R(
        "replayssm-flashinfer-align-bf16",
        "FlashInfer ReplaySSM align requires bfloat16 model inputs",
        f"{REPLAY} && {FLASHINFER} && {not_recover(KDA_0_34)} && "
        f'{A("mamba_cache_mode")} && args.mamba_cache_mode == "align" && '
        f'{A("dtype")} && args.dtype in ["half", "float16", "float", "float32"]',
        ["use_replayssm", "mamba_backend", "mamba_cache_mode", "dtype"],
        ["Serve with --dtype bfloat16", "Use --mamba-cache-mode none"],
        DOCS + " (0.34.0; a --dtype auto that resolves to another dtype is refused too but is not read here)",
        ["mamba"],
        needs=["model.architecture"],
    ),
    R(
        "replayssm-flashinfer-no-microbatching",
        "FlashInfer ReplaySSM does not support microbatching",
        f"{REPLAY} && {FLASHINFER} && {not_recover(KDA_0_34)} && {UBATCHING}",
        ["use_replayssm", "mamba_backend", "enable_dbo", "ubatch_size"],
        ["Disable --enable-dbo and set --ubatch-size to 0", "Use --mamba-backend triton"],
        DOCS + " (0.34.0)",
        ["mamba"],
        needs=["model.architecture"],
    ),
    R(
        "replayssm-flashinfer-no-pipeline-parallel",
        "FlashInfer ReplaySSM currently requires pipeline_parallel_size=1",
        f"{REPLAY} && {FLASHINFER} && {not_recover(KDA_0_34)} && {AV('pipeline_parallel_size', '1')} > 1",
        ["use_replayssm", "mamba_backend", "pipeline_parallel_size"],
        ["Run FlashInfer ReplaySSM without pipeline parallelism"],
        DOCS + " (0.34.0)",
        ["mamba"],
        needs=["model.architecture"],
    ),
    R(
        "recoverssm-no-stochastic-rounding",
        "RecoverSSM supports bfloat16/float32 SSM state caches, not --enable-mamba-cache-stochastic-rounding",
        f"{RECOVER} && {T('enable_mamba_cache_stochastic_rounding')}",
        ["use_replayssm", "speculative_config", "enable_mamba_cache_stochastic_rounding"],
        ["Remove --enable-mamba-cache-stochastic-rounding with RecoverSSM"],
        RECOVER_DOCS,
        ["mamba"],
        needs=["model.architecture"],
        fix={"unset": ["enable_mamba_cache_stochastic_rounding"]},
    ),
    R(
        "recoverssm-no-pipeline-parallel",
        "RecoverSSM currently requires pipeline_parallel_size=1",
        f"{RECOVER} && {AV('pipeline_parallel_size', '1')} > 1",
        ["use_replayssm", "speculative_config", "pipeline_parallel_size"],
        ["Run RecoverSSM without pipeline parallelism"],
        RECOVER_DOCS,
        ["mamba"],
        needs=["model.architecture"],
    ),
    R(
        "recoverssm-requires-triton",
        "RecoverSSM requires --mamba-backend triton",
        f'{RECOVER} && !string({BACKEND}).matches("^(?i)triton$")',
        ["use_replayssm", "speculative_config", "mamba_backend"],
        ["Use --mamba-backend triton (the default) with RecoverSSM"],
        RECOVER_DOCS,
        ["mamba"],
        needs=["model.architecture"],
        fix={"unset": ["mamba_backend"]},
    ),
    R(
        "replayssm-backend-triton-or-flashinfer",
        "--use-replayssm requires --mamba-backend triton or flashinfer",
        f'{REPLAY} && !{HAS_SPEC} && !string({BACKEND}).matches("^(?i)(triton|flashinfer)$")',
        ["use_replayssm", "mamba_backend"],
        ["Use --mamba-backend triton or flashinfer with --use-replayssm"],
        DOCS + " (without speculative decoding)",
        ["mamba"],
        fix={"unset": ["mamba_backend"]},
    ),
    R(
        "mamba-block-size-requires-prefix-caching",
        "--mamba-block-size can only be set with --enable-prefix-caching",
        f"{A('mamba_block_size')} && has(args.enable_prefix_caching) && "
        f"args.enable_prefix_caching == false && {A('max_model_len')} && "
        "type(args.max_model_len) == int && args.max_model_len > 0 && "
        "args.mamba_block_size != args.max_model_len",
        ["mamba_block_size", "enable_prefix_caching", "max_model_len"],
        ["Remove --mamba-block-size when prefix caching is off", "Enable prefix caching"],
        "VllmConfig.validate_mamba_block_size: without prefix caching the Mamba block is the whole sequence "
        "(max_model_len). Read when --max-model-len is given; with the derived length it is refused too but "
        "not read here.",
        ["mamba"],
        fix={"unset": ["mamba_block_size"]},
    ),
    R(
        "replayssm-no-kv-connectors",
        "--use-replayssm is incompatible with KV connectors (P/D disaggregation, KV cache offload)",
        f"{REPLAY} && !{HAS_SPEC} && {KV_INSTANCE}",
        ["use_replayssm", "kv_transfer_config"],
        ["Run ReplaySSM on an instance without a KV connector"],
        DOCS + " (without speculative decoding; RecoverSSM on KDA models is exempt from 0.33.0)",
        ["mamba", "kv-transfer"],
    ),
]
RULES = templated(RULES)

NEMOTRON_H = {
    "name": "nvidia/NVIDIA-Nemotron-Nano-9B-v2",
    "architecture": "NemotronHForCausalLM",
    "config": {"num_attention_heads": 40, "num_key_value_heads": 8},
}
FI = {"use_replayssm": True, "mamba_backend": "flashinfer"}
MTP = {"speculative_config": {"method": "mtp", "num_speculative_tokens": 3}}


def nh(args):
    return dict(args=args, model=NEMOTRON_H)


KIMI_K3 = {
    "name": "moonshotai/Kimi-K3",
    "architecture": "KimiK3ForConditionalGeneration",
    "config": {"num_attention_heads": 64, "num_key_value_heads": 8},
}
RS = {"use_replayssm": True, **MTP}


def kimi(args):
    return dict(args=args, model=KIMI_K3)


CASES = {
    "replayssm-flashinfer-buffer-le-16": (
        nh({**FI, "replayssm_buffer_len": 32}),
        nh({**FI, "replayssm_buffer_len": 16}),
    ),
    "replayssm-flashinfer-spec-buffer-len": (
        nh({**FI, **MTP, "replayssm_buffer_len": 3}),
        nh({**FI, **MTP, "replayssm_buffer_len": 4}),
    ),
    "replayssm-spec-requires-flashinfer": (
        nh({"use_replayssm": True, **MTP}),
        nh({**FI, **MTP}),
    ),
    "replayssm-flashinfer-align-bf16": (
        nh({**FI, "mamba_cache_mode": "align", "enable_prefix_caching": True, "dtype": "float16"}),
        nh({**FI, "mamba_cache_mode": "align", "enable_prefix_caching": True, "dtype": "bfloat16"}),
    ),
    "replayssm-flashinfer-no-microbatching": (
        nh({**FI, "enable_dbo": True}),
        nh({**FI}),
    ),
    "replayssm-flashinfer-no-pipeline-parallel": (
        nh({**FI, "pipeline_parallel_size": 2}),
        nh({**FI}),
    ),
    "recoverssm-no-stochastic-rounding": (
        kimi({**RS, "enable_mamba_cache_stochastic_rounding": True}),
        kimi(RS),
    ),
    "recoverssm-no-pipeline-parallel": (kimi({**RS, "pipeline_parallel_size": 2}), kimi(RS)),
    "recoverssm-requires-triton": (
        kimi({**RS, "mamba_backend": "flashinfer"}),
        kimi({**RS, "mamba_backend": "triton"}),
    ),
    "replayssm-backend-triton-or-flashinfer": (
        nh({"use_replayssm": True, "mamba_backend": "cutedsl"}),
        nh({"use_replayssm": True, "mamba_backend": "flashinfer"}),
    ),
    "mamba-block-size-requires-prefix-caching": (
        nh({"mamba_block_size": 1024, "enable_prefix_caching": False, "max_model_len": 32768}),
        nh({"mamba_block_size": 1024, "enable_prefix_caching": True, "max_model_len": 32768}),
    ),
    "replayssm-no-kv-connectors": (
        nh(
            {
                "use_replayssm": True,
                "kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"},
            }
        ),
        nh({"use_replayssm": True}),
    ),
}
