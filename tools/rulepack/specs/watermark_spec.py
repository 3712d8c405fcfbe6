"""Watermarking combined with speculative decoding (VllmConfig._check_supports_watermarking, called from
VllmConfig.__post_init__ since 0.30.0; `_check_watermarking_unsupported` before 0.32.0). vLLM checks, in this
order: the draft sampling method, the rejection sampling method, parallel drafting, the speculative method,
then whether the watermarking algorithm can watermark draft tokens."""

from tools.rulepack.expr import HAS_SPEC, METHOD_IS, SC, WATERMARK, R, q, sub, subv

DRAFT_SAMPLE = subv("speculative_config", "draft_sample_method", '"greedy"')
REJECT = subv("speculative_config", "rejection_sample_method", '"standard"')
ALGO = subv("watermark_config", "algorithm", '"gumbel"')
TARGET_ONLY = f"({sub('watermark_config', 'allow_target_only_watermarking')} && " + (
    "args.watermark_config.allow_target_only_watermarking == true)"
)
NO_PARALLEL = f"!({sub('speculative_config', 'parallel_drafting')} && {SC}.parallel_drafting == true)"
# Every release of the range accepts these methods with watermarking (0.33.0 adds dflash, 0.34.0 asks the
# method's speculator config): a profile with another method is refused earlier, by another message.
SUPPORTED = METHOD_IS("dspark", "eagle", "eagle3", "mtp")
ALL_SUPPORTED = ["dflash", "dspark", "eagle", "eagle3", "mtp"]
BEFORE_METHOD = (
    f'{WATERMARK} && {HAS_SPEC} && {DRAFT_SAMPLE} == "probabilistic" && {REJECT} == "standard" && '
    f"{NO_PARALLEL}"
)

RULES = [
    R(
        "watermark-spec-draft-sample-probabilistic",
        "Speculative decoding with watermarking requires draft_sample_method='probabilistic'.",
        f'{WATERMARK} && {HAS_SPEC} && {DRAFT_SAMPLE} != "probabilistic"',
        ["watermark_config", "speculative_config"],
        [
            "Set speculative_config.draft_sample_method to 'probabilistic' (the default is 'greedy')",
            "Remove --watermark-config, or remove speculative decoding",
        ],
        "VllmConfig._check_supports_watermarking: with a watermark config, the draft tokens must be sampled "
        "probabilistically; SpeculativeConfig.draft_sample_method defaults to 'greedy', so any speculative "
        "config that does not set it is refused.",
        ["watermarking", "speculative-decoding"],
        fix={"set": {"speculative_config.draft_sample_method": "probabilistic"}},
    ),
    R(
        "watermark-spec-rejection-standard",
        "Speculative decoding with watermarking requires rejection_sample_method='standard'.",
        f'{WATERMARK} && {HAS_SPEC} && {DRAFT_SAMPLE} == "probabilistic" && {REJECT} != "standard"',
        ["watermark_config", "speculative_config"],
        ["Use speculative_config.rejection_sample_method 'standard' (the default) with watermarking"],
        "VllmConfig._check_supports_watermarking, checked after the draft sampling method.",
        ["watermarking", "speculative-decoding"],
        fix={"unset": ["speculative_config.rejection_sample_method"]},
    ),
    R(
        "watermark-parallel-drafting",
        "Parallel speculative drafting is not supported with watermarking.",
        f'{WATERMARK} && {HAS_SPEC} && {DRAFT_SAMPLE} == "probabilistic" && {REJECT} == "standard" && '
        f"!{NO_PARALLEL} && !(derived.spec_method in {q(['dflash', 'dspark'])})",
        ["watermark_config", "speculative_config"],
        ["Remove parallel_drafting from speculative_config", "Remove --watermark-config"],
        "VllmConfig watermarking check (0.30.0 - 0.33.0): parallel drafting (PARD) with a method other than "
        "dspark (0.33.0: or dflash). Only an explicit parallel_drafting is judged: 0.30.0 - 0.32.0 also "
        "refuse dflash, which turns it on by itself.",
        ["watermarking", "speculative-decoding"],
        range=["0.30.0", "0.33.0"],
        fix={"unset": ["speculative_config.parallel_drafting"]},
    ),
    R(
        "watermark-spec-method-0.30.0",
        "Watermarking supports only autoregressive model-based speculative decoding.",
        f"{BEFORE_METHOD} && !(derived.spec_method in {q(ALL_SUPPORTED)})",
        ["watermark_config", "speculative_config"],
        [
            "Use speculative method eagle, eagle3, mtp or dspark with watermarking",
            "Remove --watermark-config",
        ],
        "VllmConfig watermarking check (0.30.0 - 0.32.0): only dspark, eagle, eagle3 and mtp; dflash is "
        "refused too but not judged here, as 0.33.0 accepts it.",
        ["watermarking", "speculative-decoding"],
        range=["0.30.0", "0.32.0"],
    ),
    R(
        "watermark-spec-method-0.33.0",
        "Watermarking supports only dflash, dspark, eagle, eagle3 and mtp speculative decoding.",
        f"{BEFORE_METHOD} && !(derived.spec_method in {q(ALL_SUPPORTED)})",
        ["watermark_config", "speculative_config"],
        ["Use speculative method dflash, dspark, eagle, eagle3 or mtp with watermarking"],
        "VllmConfig._check_supports_watermarking (0.33.0).",
        ["watermarking", "speculative-decoding"],
        range=["0.33.0", "0.33.0"],
    ),
    R(
        "watermark-algorithm-no-speculative",
        "watermarking algorithm does not support speculative decoding. Set "
        "allow_target_only_watermarking=true",
        f'{WATERMARK} && {HAS_SPEC} && {DRAFT_SAMPLE} == "probabilistic" && {REJECT} == "standard" && '
        f'{NO_PARALLEL} && {SUPPORTED} && !{TARGET_ONLY} && {ALGO} != "dual_key_gumbel"',
        ["watermark_config", "speculative_config"],
        [
            "Use watermark_config.algorithm 'dual_key_gumbel', which watermarks draft tokens",
            "Set watermark_config.allow_target_only_watermarking to true to leave draft tokens unwatermarked",
        ],
        "VllmConfig._check_supports_watermarking: only the dual_key_gumbel algorithm supports speculative "
        "decoding (WatermarkConfig.supports_speculative_decoding); the default algorithm is 'gumbel'.",
        ["watermarking", "speculative-decoding"],
        values={"watermark_config.algorithm": ALGO},
        fix={"set": {"watermark_config.allow_target_only_watermarking": True}},
    ),
]

EAGLE = {"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}
PROB = dict(EAGLE, draft_sample_method="probabilistic")
WM = {"watermark_config": {"algorithm": "gumbel"}}

NGRAM_PROB = {
    "method": "ngram",
    "prompt_lookup_max": 4,
    "num_speculative_tokens": 3,
    "draft_sample_method": "probabilistic",
}
METHOD_CASE = (dict(WM, speculative_config=NGRAM_PROB), dict(WM, speculative_config=PROB))

CASES = {
    "watermark-parallel-drafting": (
        dict(WM, speculative_config=dict(PROB, parallel_drafting=True)),
        dict(WM, speculative_config=PROB),
    ),
    "watermark-spec-method-0.30.0": METHOD_CASE,
    "watermark-spec-method-0.33.0": METHOD_CASE,
    "watermark-spec-draft-sample-probabilistic": (
        dict(WM, speculative_config=EAGLE),
        dict(WM, speculative_config=PROB),
    ),
    "watermark-spec-rejection-standard": (
        dict(
            WM,
            speculative_config=dict(
                PROB, rejection_sample_method="synthetic", synthetic_acceptance_length=2.5
            ),
        ),
        dict(WM, speculative_config=PROB),
    ),
    "watermark-algorithm-no-speculative": (
        dict(WM, speculative_config=PROB),
        {"watermark_config": {"algorithm": "dual_key_gumbel"}, "speculative_config": PROB},
    ),
}
