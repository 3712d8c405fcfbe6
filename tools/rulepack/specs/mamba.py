"""Mamba / SSM models: MambaConfig and the SSM cache."""

from tools.rulepack.expr import GPU_NOT_CC10, HAS_SPEC, A, R
from tools.rulepack.profiles import NGRAM

RULES = [
    R(
        "mamba-stochastic-rounding-triton-requires-cc10",
        "Stochastic rounding for Mamba cache with triton backend requires compute capability 10.0",
        (
            "effective.enable_mamba_cache_stochastic_rounding == true && "
            f'string(effective.mamba_backend).matches("^(?i)triton$") && {GPU_NOT_CC10}'
        ),
        ["enable_mamba_cache_stochastic_rounding", "mamba_backend", "hardware.gpu"],
        ["Add --mamba-backend flashinfer", "Drop --enable-mamba-cache-stochastic-rounding"],
        (
            "MambaConfig.__post_init__ (run for every model while the engine config is built): the triton "
            "backend's stochastic rounding uses the cvt.rs PTX instruction of data center Blackwell (compute "
            "capability 10.x: B200, GB200, B300, GB300). Read from hardware.gpu (a known GPU model name); "
            "vLLM checks it before the SSM cache dtype."
        ),
        ["mamba", "hardware"],
        needs=["hardware.gpu"],
        fix={"set": {"mamba_backend": "flashinfer"}},
        range=["0.34.0", None],
        narrowed=(
            "the check is in MambaConfig.__post_init__ in every release, but only 0.34.0's "
            "create_engine_config runs it again after --enable-mamba-cache-stochastic-rounding is applied "
            "(0.20.0-0.33.x construct MambaConfig with the default False and then call only "
            "validate_ssu_algorithm); real vLLM 0.33.0 accepts the flag on an H100"
        ),
    ),
    R(
        "mamba-stochastic-rounding-requires-fp16-ssm-cache",
        "Stochastic rounding for Mamba cache requires the SSM cache to be float16.",
        (
            "effective.enable_mamba_cache_stochastic_rounding == true && effective.mamba_ssm_cache_dtype != "
            '"float16"'
        ),
        ["enable_mamba_cache_stochastic_rounding", "mamba_ssm_cache_dtype"],
        ["Add --mamba-ssm-cache-dtype float16", "Drop --enable-mamba-cache-stochastic-rounding"],
        "Stochastic rounding writes a float16 SSM state cache.",
        ["mamba"],
        fix={"set": {"mamba_ssm_cache_dtype": "float16"}},
    ),
    R(
        "replayssm-no-speculative",
        "--use-replayssm does not support speculative decoding",
        f"effective.use_replayssm == true && {HAS_SPEC}",
        ["use_replayssm", "speculative_config"],
        ["Remove --speculative-config", "Drop --use-replayssm"],
        "ReplaySSM in 0.27.0-0.28.x replays single-token steps only.",
        ["mamba", "speculative-decoding"],
    ),
    R(
        "replayssm-requires-triton-backend",
        "--use-replayssm requires --mamba-backend triton",
        'effective.use_replayssm == true && effective.mamba_backend != "triton"',
        ["use_replayssm", "mamba_backend"],
        ["Use --mamba-backend triton", "Drop --use-replayssm"],
        "Until 0.29.x ReplaySSM is implemented for the triton Mamba backend only.",
        ["mamba"],
        fix={"set": {"mamba_backend": "triton"}},
    ),
    R(
        "mamba-ssu-algorithm-requires-flashinfer",
        (
            "Mamba SSU algorithm selection is only supported with the FlashInfer backend. Please set "
            "`--mamba-backend flashinfer`, or omit `--mamba-ssu-algorithm`."
        ),
        (
            f'{A("mamba_ssu_algorithm")} && args.mamba_ssu_algorithm in ["auto", "simple", "vertical", '
            f'"horizontal"] && '
            '!string(effective.mamba_backend).matches("^(?i)flashinfer$")'
        ),
        ["mamba_ssu_algorithm", "mamba_backend"],
        ["Add --mamba-backend flashinfer", "Remove --mamba-ssu-algorithm"],
        (
            "MambaConfig.validate_ssu_algorithm, run for every model while the engine config is built "
            "(mamba_backend defaults to triton)."
        ),
        ["mamba"],
        fix={"set": {"mamba_backend": "flashinfer"}},
    ),
]

CASES = {
    "mamba-stochastic-rounding-triton-requires-cc10": (
        dict(
            args={"enable_mamba_cache_stochastic_rounding": True, "mamba_ssm_cache_dtype": "float16"},
            hardware={"gpu": "H100-80GB", "gpus_per_node": 8},
        ),
        dict(
            args={"enable_mamba_cache_stochastic_rounding": True, "mamba_ssm_cache_dtype": "float16"},
            hardware={"gpu": "B200", "gpus_per_node": 8},
        ),
    ),
    "mamba-stochastic-rounding-requires-fp16-ssm-cache": (
        {"enable_mamba_cache_stochastic_rounding": True},
        {"enable_mamba_cache_stochastic_rounding": True, "mamba_ssm_cache_dtype": "float16"},
    ),
    "replayssm-no-speculative": (
        {"use_replayssm": True, "speculative_config": NGRAM},
        {"use_replayssm": True},
    ),
    "replayssm-requires-triton-backend": (
        {"use_replayssm": True, "mamba_backend": "flashinfer"},
        {"use_replayssm": True, "mamba_backend": "triton"},
    ),
    "mamba-ssu-algorithm-requires-flashinfer": (
        {"mamba_ssu_algorithm": "vertical"},
        {"mamba_ssu_algorithm": "vertical", "mamba_backend": "flashinfer"},
    ),
}
