"""Value checks of SpeculativeConfig that need no model: suffix decoding's limits
(SpeculativeConfig._validate_suffix_decoding, run for method 'suffix'), dspark_draft_topk outside DSpark, and
adaptive verification with use_local_argmax_reduction."""

from tools.rulepack.expr import ADAPTIVE, HAS_SPEC, SC, R, spec_field_true, sub

SUFFIX = f'({HAS_SPEC} && derived.spec_method == "suffix")'


def sfx(key):
    return f"{SUFFIX} && {sub('speculative_config', key)}"


# Methods SpeculativeConfig.__post_init__ handles before its draft-model branch (which reads
# dspark_draft_topk): a profile naming one of them never reaches the check.
NO_DRAFT_MODEL = '["ngram", "ngram_gpu", "suffix", "custom_class", "extract_hidden_states", "dspark"]'

RULES = [
    R(
        "suffix-arctic-inference-not-installed",
        "Arctic Inference is required for suffix decoding.",
        SUFFIX,
        ["speculative_config"],
        [
            "Install Arctic Inference on the serving hosts (pip install arctic-inference==0.1.1)",
            "Use another speculative method (ngram needs no extra package)",
        ],
        "SpeculativeConfig._validate_suffix_decoding: method 'suffix' needs the arctic-inference package, "
        "which a default `pip install vllm` does not install (it is not a requirement of the wheel). The "
        "product assumes a default install; with the package installed on the serving hosts this finding "
        "can be waived. 0.34.0 no longer checks it at start-up.",
        ["speculative-decoding", "suffix-decoding", "installation"],
    ),
    R(
        "suffix-max-tree-depth-positive-0.20.0",
        "suffix_decoding_max_tree_depth={self.suffix_decoding_max_tree_depth} must be >= 1",
        f"{sfx('suffix_decoding_max_tree_depth')} && {SC}.suffix_decoding_max_tree_depth < 1",
        ["speculative_config"],
        ["Give suffix_decoding_max_tree_depth 1 or more (default 24)"],
        "SpeculativeConfig._validate_suffix_decoding (method 'suffix'), after the check that Arctic "
        "Inference is installed.",
        ["speculative-decoding", "suffix-decoding"],
        values={"self.suffix_decoding_max_tree_depth": f"{SC}.suffix_decoding_max_tree_depth"},
        fix={"unset": ["speculative_config.suffix_decoding_max_tree_depth"]},
    ),
    R(
        "suffix-max-tree-depth-positive",
        "suffix_decoding_max_tree_depth={spec.suffix_decoding_max_tree_depth} must be >= 1",
        f"{sfx('suffix_decoding_max_tree_depth')} && {SC}.suffix_decoding_max_tree_depth < 1",
        ["speculative_config"],
        ["Give suffix_decoding_max_tree_depth 1 or more (default 24)"],
        "SuffixSpeculatorConfig.configure (0.34.0, method 'suffix').",
        ["speculative-decoding", "suffix-decoding"],
        values={"spec.suffix_decoding_max_tree_depth": f"{SC}.suffix_decoding_max_tree_depth"},
        fix={"unset": ["speculative_config.suffix_decoding_max_tree_depth"]},
    ),
    R(
        "suffix-max-cached-requests-non-negative-0.20.0",
        "suffix_decoding_max_cached_requests={self.suffix_decoding_max_cached_requests} must be >= 0",
        f"{sfx('suffix_decoding_max_cached_requests')} && {SC}.suffix_decoding_max_cached_requests < 0",
        ["speculative_config"],
        ["Give suffix_decoding_max_cached_requests 0 or more (0 disables the global cache)"],
        "SpeculativeConfig._validate_suffix_decoding (method 'suffix').",
        ["speculative-decoding", "suffix-decoding"],
        values={"self.suffix_decoding_max_cached_requests": f"{SC}.suffix_decoding_max_cached_requests"},
        fix={"unset": ["speculative_config.suffix_decoding_max_cached_requests"]},
    ),
    R(
        "suffix-max-cached-requests-non-negative",
        "suffix_decoding_max_cached_requests={spec.suffix_decoding_max_cached_requests} must be >= 0",
        f"{sfx('suffix_decoding_max_cached_requests')} && {SC}.suffix_decoding_max_cached_requests < 0",
        ["speculative_config"],
        ["Give suffix_decoding_max_cached_requests 0 or more (0 disables the global cache)"],
        "SuffixSpeculatorConfig.configure (0.34.0, method 'suffix').",
        ["speculative-decoding", "suffix-decoding"],
        values={"spec.suffix_decoding_max_cached_requests": f"{SC}.suffix_decoding_max_cached_requests"},
        fix={"unset": ["speculative_config.suffix_decoding_max_cached_requests"]},
    ),
    R(
        "suffix-max-spec-factor-non-negative-0.20.0",
        "suffix_decoding_max_spec_factor={self.suffix_decoding_max_spec_factor} must be >= 0",
        f"{sfx('suffix_decoding_max_spec_factor')} && double({SC}.suffix_decoding_max_spec_factor) < 0.0",
        ["speculative_config"],
        ["Give suffix_decoding_max_spec_factor 0 or more (default 1.0)"],
        "SpeculativeConfig._validate_suffix_decoding (method 'suffix'); the field is a float.",
        ["speculative-decoding", "suffix-decoding"],
        values={"self.suffix_decoding_max_spec_factor": f"double({SC}.suffix_decoding_max_spec_factor)"},
        fix={"unset": ["speculative_config.suffix_decoding_max_spec_factor"]},
    ),
    R(
        "suffix-max-spec-factor-non-negative",
        "suffix_decoding_max_spec_factor={spec.suffix_decoding_max_spec_factor} must be >= 0",
        f"{sfx('suffix_decoding_max_spec_factor')} && double({SC}.suffix_decoding_max_spec_factor) < 0.0",
        ["speculative_config"],
        ["Give suffix_decoding_max_spec_factor 0 or more (default 1.0)"],
        "SuffixSpeculatorConfig.configure (0.34.0, method 'suffix'); the field is a float.",
        ["speculative-decoding", "suffix-decoding"],
        values={"spec.suffix_decoding_max_spec_factor": f"double({SC}.suffix_decoding_max_spec_factor)"},
        fix={"unset": ["speculative_config.suffix_decoding_max_spec_factor"]},
    ),
    R(
        "suffix-min-token-prob-range-0.20.0",
        "suffix_decoding_min_token_prob={self.suffix_decoding_min_token_prob} must be in [0, 1]",
        f"{sfx('suffix_decoding_min_token_prob')} && (double({SC}.suffix_decoding_min_token_prob) < 0.0 || "
        f"double({SC}.suffix_decoding_min_token_prob) > 1.0)",
        ["speculative_config"],
        ["Give suffix_decoding_min_token_prob between 0 and 1 (default 0.1)"],
        "SpeculativeConfig._validate_suffix_decoding (method 'suffix'); the field is a float.",
        ["speculative-decoding", "suffix-decoding"],
        values={"self.suffix_decoding_min_token_prob": f"double({SC}.suffix_decoding_min_token_prob)"},
        fix={"unset": ["speculative_config.suffix_decoding_min_token_prob"]},
    ),
    R(
        "suffix-min-token-prob-range",
        "suffix_decoding_min_token_prob={spec.suffix_decoding_min_token_prob} must be in [0, 1]",
        f"{sfx('suffix_decoding_min_token_prob')} && (double({SC}.suffix_decoding_min_token_prob) < 0.0 || "
        f"double({SC}.suffix_decoding_min_token_prob) > 1.0)",
        ["speculative_config"],
        ["Give suffix_decoding_min_token_prob between 0 and 1 (default 0.1)"],
        "SuffixSpeculatorConfig.configure (0.34.0, method 'suffix'); the field is a float.",
        ["speculative-decoding", "suffix-decoding"],
        values={"spec.suffix_decoding_min_token_prob": f"double({SC}.suffix_decoding_min_token_prob)"},
        fix={"unset": ["speculative_config.suffix_decoding_min_token_prob"]},
    ),
    R(
        "spec-dspark-draft-topk-only-dspark",
        "dspark_draft_topk is only supported by DSpark",
        f"{sub('speculative_config', 'dspark_draft_topk')} && {sub('speculative_config', 'model')} && "
        f"!(derived.spec_method in {NO_DRAFT_MODEL})",
        ["speculative_config"],
        ["Remove dspark_draft_topk, or use method 'dspark' with a DSpark draft"],
        "SpeculativeConfig.__post_init__, in its draft-model branch (a speculative model given, a method "
        "other than ngram/suffix/custom_class/extract_hidden_states): dspark_draft_topk is refused unless "
        "the method is 'dspark'.",
        ["speculative-decoding"],
        fix={"unset": ["speculative_config.dspark_draft_topk"]},
    ),
    R(
        "spec-adaptive-needs-full-cudagraphs",
        "Adaptive verification requires full CUDA graphs.",
        f"{HAS_SPEC} && {ADAPTIVE} && !(has(args.enable_lora) && args.enable_lora == true) && "
        "((has(args.enforce_eager) && args.enforce_eager == true) || "
        f"({sub('compilation_config', 'cudagraph_mode')} && "
        'string(args.compilation_config.cudagraph_mode).matches("^(?i)(none|piecewise)$")))',
        ["speculative_config", "compilation_config", "enforce_eager"],
        ["Use cudagraph_mode FULL, FULL_DECODE_ONLY or FULL_AND_PIECEWISE", "Disable adaptive verification"],
        "VllmConfig._validate_adaptive_verification (after the LoRA check): --enforce-eager or an explicit "
        "cudagraph_mode NONE / PIECEWISE leaves no full CUDA graphs.",
        ["speculative-decoding", "cudagraph"],
        range=["0.30.0", None],
    ),
    R(
        "spec-adaptive-no-local-argmax",
        "Adaptive verification estimates per-position acceptance from the draft logits, which "
        "use_local_argmax_reduction never materializes.",
        f'{HAS_SPEC} && derived.spec_method != "dspark" && {ADAPTIVE} && '
        f"{spec_field_true('use_local_argmax_reduction')}",
        ["speculative_config"],
        ["Disable enable_adaptive_verification or use_local_argmax_reduction"],
        "SpeculativeConfig._verify_args (0.30.0 - 0.33.0): a method other than DSpark computes adaptive "
        "verification from the full draft logits.",
        ["speculative-decoding"],
        range=["0.30.0", "0.33.0"],
        narrowed="0.34.0 asks the method's speculator config (adaptive_verification_uses_draft_logits) "
        "instead of comparing the method with 'dspark'",
        fix={"unset": ["speculative_config.use_local_argmax_reduction"]},
    ),
]

SUFFIX_CFG = {"method": "suffix"}
EAGLE = {"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}
ADAPT = dict(EAGLE, enable_adaptive_verification=True)

CASES = {
    "spec-adaptive-needs-full-cudagraphs": (
        {"speculative_config": ADAPT, "compilation_config": {"cudagraph_mode": "PIECEWISE"}},
        {"speculative_config": ADAPT, "compilation_config": {"cudagraph_mode": "FULL_AND_PIECEWISE"}},
    ),
    "suffix-arctic-inference-not-installed": (
        {"speculative_config": dict(SUFFIX_CFG)},
        {"speculative_config": {"method": "ngram", "num_speculative_tokens": 3}},
    ),
    "suffix-max-tree-depth-positive-0.20.0": (
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_max_tree_depth=0)},
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_max_tree_depth=8)},
    ),
    "suffix-max-tree-depth-positive": (
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_max_tree_depth=0)},
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_max_tree_depth=8)},
    ),
    "suffix-max-cached-requests-non-negative-0.20.0": (
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_max_cached_requests=-1)},
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_max_cached_requests=0)},
    ),
    "suffix-max-cached-requests-non-negative": (
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_max_cached_requests=-1)},
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_max_cached_requests=0)},
    ),
    "suffix-max-spec-factor-non-negative-0.20.0": (
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_max_spec_factor=-1)},
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_max_spec_factor=2.0)},
    ),
    "suffix-max-spec-factor-non-negative": (
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_max_spec_factor=-1)},
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_max_spec_factor=2.0)},
    ),
    "suffix-min-token-prob-range-0.20.0": (
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_min_token_prob=1.5)},
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_min_token_prob=0.5)},
    ),
    "suffix-min-token-prob-range": (
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_min_token_prob=1.5)},
        {"speculative_config": dict(SUFFIX_CFG, suffix_decoding_min_token_prob=0.5)},
    ),
    "spec-dspark-draft-topk-only-dspark": (
        {"speculative_config": dict(EAGLE, dspark_draft_topk=8)},
        {"speculative_config": EAGLE},
    ),
    "spec-adaptive-no-local-argmax": (
        {"speculative_config": dict(ADAPT, use_local_argmax_reduction=True)},
        {"speculative_config": ADAPT},
    ),
}
