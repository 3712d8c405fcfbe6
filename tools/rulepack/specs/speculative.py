"""Speculative decoding: SpeculativeConfig, async scheduling with a speculative method, the --spec-*
shorthands, LoRA with speculative tokens."""

from tools.rulepack.expr import (
    ADAPTIVE,
    ASYNC_BAD_METHOD,
    ASYNC_ON,
    HAS_LEN,
    HAS_RATES,
    HAS_SPEC,
    IDX,
    RATES,
    REJECT_METHOD,
    SC,
    SPEC_M,
    SYN,
    A,
    R,
    arg_true,
    q,
    spec_field_true,
    sub,
)
from tools.rulepack.profiles import ADAPT, LLAMA, NGRAM, SPEC_EAGLE, SYN_ARGS, m, sp

# SpeculativeConfig.method after __post_init__'s renames: the *_mtp aliases become "mtp", "[ngram]" "ngram"
_METHOD_AFTER_ALIASES = (
    f'({SC}.method.endsWith("_mtp") ? "mtp" : {SC}.method == "[ngram]" ? "ngram" : {SC}.method)'
)

# Model types with no MTP layers, which no release's SpeculativeConfig.hf_config_override maps to an MTP type
_NO_MTP_TYPES = [
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "gemma",
    "gemma2",
    "gemma3",
    "phi3",
]

_LLAMA_TYPED = {**LLAMA, "config": {**LLAMA["config"], "model_type": "llama"}}

# Both bounds of an n-gram proposer given, the lower above the upper (the method named, or, without a method,
# the model spelled as the n-gram method): SpeculativeConfig.__post_init__ and, in 0.34.0,
# NgramSpeculatorConfig.configure.
NGRAM_MIN_ABOVE_MAX = (
    f"{sub('speculative_config', 'prompt_lookup_min')} && "
    f"{sub('speculative_config', 'prompt_lookup_max')} && "
    f"{SC}.prompt_lookup_min > {SC}.prompt_lookup_max && "
    f'(({SPEC_M} && {SC}.method in ["ngram", "[ngram]", "ngram_gpu"]) || '
    f'(!{SPEC_M} && {sub("speculative_config", "model")} && {SC}.model in ["ngram", "[ngram]"]))'
)


# EngineArgs.create_speculative_config: the first shorthand (in this order) whose key the JSON also has
_SHORTHANDS = [
    ("spec_method", "method", "--spec-method"),
    ("spec_model", "model", "--spec-model"),
    ("spec_tokens", "num_speculative_tokens", "--spec-tokens"),
]


def _shorthand_conflict(pick):
    *firsts, last = _SHORTHANDS
    expr = f'"{last[pick]}"'
    for arg, key, flag in reversed(firsts):
        expr = f'({A(arg)} && {sub("speculative_config", key)}) ? "{(arg, key, flag)[pick]}" : {expr}'
    return expr


# list[float] fields: pydantic turns 1 into 1.0, and vLLM prints the list
RATES_AS_FLOATS = f"{RATES}.map(r, double(r))"

RULES = [
    R(
        "per-request-spec-decode-metrics-requires-spec",
        "--per-request-spec-decode-metrics requires speculative decoding to be enabled",
        f'effective.per_request_spec_decode_metrics != "none" && !{HAS_SPEC}',
        ["per_request_spec_decode_metrics", "speculative_config"],
        ["Remove --per-request-spec-decode-metrics", "Enable speculative decoding with --speculative-config"],
        "Per-request acceptance metrics only exist when a speculative config is given.",
        ["speculative-decoding", "observability"],
        fix={"unset": ["per_request_spec_decode_metrics"]},
    ),
    R(
        "async-scheduling-spec-method-0.20",
        "async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU kind",
        f"{ASYNC_ON} && {ASYNC_BAD_METHOD}",
        ["async_scheduling", "speculative_config"],
        ["Drop --async-scheduling", "Use an EAGLE, MTP, draft-model or ngram_gpu speculative method"],
        "With async scheduling explicitly enabled, vLLM refuses speculative methods that propose on the CPU "
        "(ngram, suffix, medusa, mlp_speculator, custom proposers).",
        ["async-scheduling", "speculative-decoding"],
        fix={"unset": ["async_scheduling"]},
    ),
    R(
        "async-scheduling-spec-method-0.25",
        "async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU/DSpark kind",
        f"{ASYNC_ON} && {ASYNC_BAD_METHOD}",
        ["async_scheduling", "speculative_config"],
        ["Drop --async-scheduling", "Use an EAGLE, MTP, draft-model, ngram_gpu or DSpark speculative method"],
        "Same check as in earlier releases; the message now names DSpark.",
        ["async-scheduling", "speculative-decoding"],
        fix={"unset": ["async_scheduling"]},
    ),
    R(
        "async-scheduling-spec-method-0.31",
        "async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU/DSpark/DFlash kind",
        f"{ASYNC_ON} && {ASYNC_BAD_METHOD}",
        ["async_scheduling", "speculative_config"],
        [
            "Drop --async-scheduling",
            "Use an EAGLE, MTP, draft-model, ngram_gpu, DSpark or DFlash speculative method",
        ],
        "Same check; the message now names DFlash. Gone in 0.33.0.",
        ["async-scheduling", "speculative-decoding"],
        fix={"unset": ["async_scheduling"]},
    ),
    R(
        "async-scheduling-vs-disable-padded-drafter-batch",
        "Async scheduling is not compatible with disable_padded_drafter_batch=True.",
        (
            f"{ASYNC_ON} && {HAS_SPEC} && !({ASYNC_BAD_METHOD}) && "
            f"{spec_field_true('disable_padded_drafter_batch')}"
        ),
        ["async_scheduling", "speculative_config"],
        ["Remove disable_padded_drafter_batch from --speculative-config", "Drop --async-scheduling"],
        "Async scheduling needs the padded drafter batch.",
        ["async-scheduling", "speculative-decoding"],
    ),
    R(
        "adaptive-verification-vs-lora",
        "Adaptive verification is not currently compatible with LoRA",
        f"{ADAPTIVE} && (has(args.enable_lora) && args.enable_lora == true)",
        ["speculative_config", "enable_lora"],
        [
            "Disable adaptive verification",
            "Serve LoRA adapters from a deployment without adaptive verification",
        ],
        (
            "The per-token LoRA mapping is built from CPU placeholder boundaries, while adaptive "
            "verification decides the trimmed batch on the GPU."
        ),
        ["speculative-decoding", "lora"],
    ),
    R(
        "adaptive-verification-vs-eager",
        "Adaptive verification is not currently compatible with enforce_eager/cudagraph_mode=none",
        (
            f"{ADAPTIVE} && (effective.enforce_eager == true || "
            f"({sub('compilation_config', 'cudagraph_mode')} && "
            f'string(args.compilation_config.cudagraph_mode).matches("^(?i)(0|none)$")))'
        ),
        ["speculative_config", "enforce_eager", "compilation_config"],
        ["Remove --enforce-eager / cudagraph_mode=none", "Disable adaptive verification"],
        (
            "The draft budget divides by step costs profiled from captured CUDA graphs; eager execution "
            "captures none."
        ),
        ["speculative-decoding", "cudagraph"],
    ),
    R(
        "adaptive-verification-vs-pipeline-parallel",
        "Adaptive verification is not currently compatible with pipeline parallelism",
        f"{ADAPTIVE} && effective.pipeline_parallel_size > 1",
        ["speculative_config", "pipeline_parallel_size"],
        ["Disable adaptive verification", "Use tensor parallelism instead of pipeline parallelism"],
        "Cost curves and confidences exist only on the last pipeline rank.",
        ["speculative-decoding", "parallelism"],
    ),
    R(
        "adaptive-verification-dspark-only",
        "Adaptive verification only supported with DSpark",
        f'{ADAPTIVE} && derived.spec_method != "dspark"',
        ["speculative_config"],
        ["Use method 'dspark'", "Remove enable_adaptive_verification"],
        "In 0.28.0-0.29.x SpeculativeConfig accepts enable_adaptive_verification only for DSpark.",
        ["speculative-decoding"],
    ),
    R(
        "spec-tensor-parallel-size-key",
        "'tensor_parallel_size' is not a valid argument in the speculative_config.",
        sub("speculative_config", "tensor_parallel_size"),
        ["speculative_config"],
        ["Rename the key to draft_tensor_parallel_size"],
        "SpeculativeConfig rejects a tensor_parallel_size key; the draft's TP is draft_tensor_parallel_size.",
        ["speculative-decoding"],
    ),
    R(
        "spec-num-speculative-tokens-positive",
        "Expected num_speculative_tokens to be greater than zero",
        (
            f"{sub('speculative_config', 'num_speculative_tokens')} && "
            f"args.speculative_config.num_speculative_tokens <= 0"
        ),
        ["speculative_config"],
        ["Set num_speculative_tokens to 1 or more", "Remove --speculative-config"],
        "SpeculativeConfig needs at least one speculative token.",
        ["speculative-decoding"],
        values={"self.num_speculative_tokens": f"{SC}.num_speculative_tokens"},
    ),
    R(
        "spec-shorthand-conflict",
        "{flag} and --speculative-config['{key}'] are mutually exclusive",
        f"({A('spec_method')} && {sub('speculative_config', 'method')}) || "
        f"({A('spec_model')} && {sub('speculative_config', 'model')}) || "
        f"({A('spec_tokens')} && {sub('speculative_config', 'num_speculative_tokens')})",
        ["spec_method", "spec_model", "spec_tokens", "speculative_config"],
        ["Give each speculative setting once: either the --spec-* shorthand or the --speculative-config key"],
        (
            "EngineArgs.create_speculative_config merges --spec-method/--spec-model/--spec-tokens into "
            "speculative_config and refuses a key given both ways ({flag} is the shorthand flag, {key} the "
            "JSON key)."
        ),
        ["speculative-decoding", "arguments"],
        values={
            "flag": _shorthand_conflict(2),
            "key": _shorthand_conflict(1),
        },
    ),
    R(
        "spec-synthetic-needs-rates-or-length",
        (
            "rejection_sample_method='synthetic' requires exactly one of synthetic_acceptance_rates or "
            "synthetic_acceptance_length."
        ),
        f"{SYN} && {HAS_RATES} == {HAS_LEN}",
        ["speculative_config"],
        [
            "Give exactly one of synthetic_acceptance_rates (one rate per speculative token) or "
            "synthetic_acceptance_length in --speculative-config"
        ],
        "SpeculativeConfig._verify_args: synthetic rejection sampling is calibrated from either per-position "
        "rates or a target mean acceptance length, not both and not neither.",
        ["speculative-decoding"],
        example_fix=(
            '# before\nvllm serve model --speculative-config \'{"method": "ngram", '
            '"num_speculative_tokens": 3, "rejection_sample_method": "synthetic"}\'\n# after\n'
            'vllm serve model --speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, '
            '"rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.5}\''
        ),
    ),
    R(
        "spec-synthetic-rates-length",
        "synthetic_acceptance_rates must have length {n}, got {rates}.",
        f"{SYN} && {HAS_RATES} && !{HAS_LEN} && size({RATES}) != {SC}.num_speculative_tokens",
        ["speculative_config"],
        ["Give one acceptance rate per speculative token (num_speculative_tokens entries)"],
        "SpeculativeConfig._resolve_synthetic_acceptance_rates: n is num_speculative_tokens.",
        ["speculative-decoding"],
        example_fix=(
            '# before\n--speculative-config \'{..., "num_speculative_tokens": 3, "rejection_sample_method": '
            '"synthetic", "synthetic_acceptance_rates": [0.9, 0.8]}\'\n# after\n'
            '--speculative-config \'{..., "num_speculative_tokens": 3, "rejection_sample_method": '
            '"synthetic", "synthetic_acceptance_rates": [0.9, 0.8, 0.7]}\''
        ),
        values={"n": f"{SC}.num_speculative_tokens", "rates": RATES_AS_FLOATS},
    ),
    R(
        "spec-synthetic-rates-in-unit-interval",
        "synthetic_acceptance_rates entries must be in [0, 1], got {rates}.",
        f"{SYN} && {HAS_RATES} && !{HAS_LEN} && size({RATES}) == {SC}.num_speculative_tokens && "
        f"{RATES}.exists(r, double(r) < 0.0 || double(r) > 1.0)",
        ["speculative_config"],
        ["Give acceptance rates between 0 and 1"],
        "SpeculativeConfig._resolve_synthetic_acceptance_rates.",
        ["speculative-decoding"],
        example_fix=(
            '# before\n"synthetic_acceptance_rates": [1.2, 0.8, 0.5]\n# after\n'
            '"synthetic_acceptance_rates": [0.95, 0.8, 0.5]'
        ),
        values={"rates": RATES_AS_FLOATS},
    ),
    R(
        "spec-synthetic-rates-non-increasing",
        "synthetic_acceptance_rates must be non-increasing, got {rates}.",
        f"{SYN} && {HAS_RATES} && !{HAS_LEN} && size({RATES}) == {SC}.num_speculative_tokens && "
        f"!{RATES}.exists(r, double(r) < 0.0 || double(r) > 1.0) && "
        f"{IDX}.exists(i, i < size({RATES}) && double({RATES}[i]) > double({RATES}[i - 1]))",
        ["speculative_config"],
        [
            "Order the acceptance rates from the first speculative position to the last, "
            "each no higher than the one before"
        ],
        (
            "SpeculativeConfig._resolve_synthetic_acceptance_rates: rates are unconditional per-position "
            "acceptance probabilities, which cannot grow with the position."
        ),
        ["speculative-decoding"],
        example_fix=(
            '# before\n"synthetic_acceptance_rates": [0.7, 0.8, 0.5]\n# after\n'
            '"synthetic_acceptance_rates": [0.8, 0.7, 0.5]'
        ),
        values={"rates": RATES_AS_FLOATS},
    ),
    R(
        "spec-synthetic-length-range",
        "synthetic_acceptance_length must be in [1, {n + 1}], got {length}.",
        f"{SYN} && {HAS_LEN} && !{HAS_RATES} && (double({SC}.synthetic_acceptance_length) < 1.0 || "
        f"double({SC}.synthetic_acceptance_length) > double({SC}.num_speculative_tokens + 1))",
        ["speculative_config"],
        ["Give a synthetic_acceptance_length between 1 and num_speculative_tokens + 1"],
        "SpeculativeConfig._resolve_synthetic_acceptance_rates: n is num_speculative_tokens; the mean "
        "acceptance length counts the bonus token.",
        ["speculative-decoding"],
        example_fix=(
            '# before\n"num_speculative_tokens": 3, "synthetic_acceptance_length": 5\n# after\n'
            '"num_speculative_tokens": 3, "synthetic_acceptance_length": 3.5'
        ),
        values={
            "n + 1": f"{SC}.num_speculative_tokens + 1",
            "length": f"double({SC}.synthetic_acceptance_length)",
        },
    ),
    R(
        "spec-synthetic-options-need-synthetic",
        (
            "synthetic_acceptance_rates / synthetic_acceptance_length are only valid with "
            "rejection_sample_method='synthetic'."
        ),
        f'{A("speculative_config")} && ({HAS_RATES} || {HAS_LEN}) && {REJECT_METHOD} != "synthetic"',
        ["speculative_config"],
        [
            'Add "rejection_sample_method": "synthetic" to --speculative-config',
            "Remove synthetic_acceptance_rates / synthetic_acceptance_length",
        ],
        "SpeculativeConfig._verify_args.",
        ["speculative-decoding"],
        example_fix=(
            "# before\n--speculative-config '{..., \"synthetic_acceptance_length\": 2.5}'\n# after\n"
            '--speculative-config \'{..., "rejection_sample_method": "synthetic", '
            '"synthetic_acceptance_length": 2.5}\''
        ),
        fix={"set": {"speculative_config.rejection_sample_method": "synthetic"}},
    ),
    R(
        "spec-ngram-lookup-min-le-max-0.20.0",
        "prompt_lookup_min={self.prompt_lookup_min} must be <= prompt_lookup_max={self.prompt_lookup_max}",
        NGRAM_MIN_ABOVE_MAX,
        ["speculative_config"],
        ["Make prompt_lookup_min at most prompt_lookup_max"],
        "SpeculativeConfig.__post_init__ (n-gram methods; when only one bound is given the other copies it).",
        ["speculative-decoding"],
        example_fix=(
            '# before\n--speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, '
            '"prompt_lookup_min": 5, "prompt_lookup_max": 2}\'\n# after\n--speculative-config '
            '\'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_min": 2, '
            '"prompt_lookup_max": 5}\''
        ),
        values={
            "self.prompt_lookup_min": f"{SC}.prompt_lookup_min",
            "self.prompt_lookup_max": f"{SC}.prompt_lookup_max",
        },
    ),
    R(
        "spec-ngram-lookup-min-le-max",
        "prompt_lookup_min={spec.prompt_lookup_min} must be <= prompt_lookup_max={spec.prompt_lookup_max}",
        NGRAM_MIN_ABOVE_MAX,
        ["speculative_config"],
        ["Make prompt_lookup_min at most prompt_lookup_max"],
        "NgramSpeculatorConfig.configure (0.34.0, ngram and ngram_gpu; when only one bound is given the "
        "other copies it).",
        ["speculative-decoding"],
        example_fix=(
            '# before\n--speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, '
            '"prompt_lookup_min": 5, "prompt_lookup_max": 2}\'\n# after\n--speculative-config '
            '\'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_min": 2, '
            '"prompt_lookup_max": 5}\''
        ),
        values={
            "spec.prompt_lookup_min": f"{SC}.prompt_lookup_min",
            "spec.prompt_lookup_max": f"{SC}.prompt_lookup_max",
        },
    ),
    R(
        "spec-mtp-needs-num-speculative-tokens",
        "num_speculative_tokens must be provided with speculative model unless the draft model config",
        (
            f"{SPEC_M} && !{sub('speculative_config', 'num_speculative_tokens')} && "
            f'(({_METHOD_AFTER_ALIASES} == "mtp" && !{sub("speculative_config", "model")}) || '
            f'{_METHOD_AFTER_ALIASES} in ["ngram", "ngram_gpu"])'
        ),
        ["speculative_config"],
        [
            "Add num_speculative_tokens to --speculative-config (e.g. 1 per MTP layer, or the n-gram "
            "proposal length)"
        ],
        (
            "SpeculativeConfig: MTP drafts from the target model itself, but vLLM only takes the target as "
            "the draft (whose config would give n_predict) when num_speculative_tokens is set, so an MTP "
            "config without it and without a draft model is refused in _verify_args; an n-gram config "
            "(ngram, ngram_gpu) has no draft config to default from, so it is refused the same way."
        ),
        ["speculative-decoding"],
    ),
    R(
        "spec-mtp-target-without-mtp-layers",
        "Unsupported speculative method: '{self.method}'",
        (
            f'{SPEC_M} && {_METHOD_AFTER_ALIASES} == "mtp" && '
            f"{sub('speculative_config', 'num_speculative_tokens')} && "
            f"!{sub('speculative_config', 'model')} && "
            f"has(model.config.model_type) && model.config.model_type in {q(_NO_MTP_TYPES)}"
        ),
        ["speculative_config", "model"],
        ["Use a speculative method the model supports (ngram, or an EAGLE/draft model)"],
        (
            "SpeculativeConfig.__post_init__ (0.20.0-0.33.x): MTP drafts with the target model's own MTP "
            "layers; a model type that hf_config_override does not turn into an MTP draft type is refused. "
            "Checked for model types that have no MTP layers in any release (llama, mistral, mixtral, qwen2, "
            "qwen3 and their MoE variants, gemma, phi3); 0.34.0 no longer raises this."
        ),
        ["speculative-decoding", "model"],
        needs=["model.config"],
        values={"self.method": '"mtp"'},
    ),
    R(
        "spec-tokens-without-model",
        "num_speculative_tokens was provided but without speculative model.",
        f"{sub('speculative_config', 'num_speculative_tokens')} && !{sub('speculative_config', 'model')} && "
        f'(!{SPEC_M} || {SC}.method in ["draft_model", "eagle", "eagle3", "medusa", "mlp_speculator"])',
        ["speculative_config"],
        [
            'Add the draft / EAGLE model to --speculative-config ("model": "org/draft")',
            "Use a method that needs no model (ngram, ngram_gpu, suffix, mtp)",
        ],
        (
            "SpeculativeConfig.__post_init__: without a method vLLM assumes a draft model; draft-model, "
            "EAGLE, EAGLE-3, Medusa and MLP-speculator methods need the model that proposes the tokens "
            "(mtp, ngram, ngram_gpu, suffix, extract_hidden_states and, from 0.25.0, dspark do not)."
        ),
        ["speculative-decoding"],
        example_fix=(
            '# before\n--speculative-config \'{"method": "eagle3", "num_speculative_tokens": 3}\'\n# after\n'
            '--speculative-config \'{"method": "eagle3", "model": "org/eagle3-draft", '
            '"num_speculative_tokens": 3}\''
        ),
        range=[None, "0.33.0"],
    ),
    R(
        "spec-custom-class-requires-model",
        (
            "method='custom_class' requires 'model' to contain the custom proposer module path (e.g., "
            "'my_module.MyProposer')."
        ),
        (
            f'{SPEC_M} && {SC}.method == "custom_class" && '
            f"{sub('speculative_config', 'num_speculative_tokens')} && "
            f"!{sub('speculative_config', 'model')}"
        ),
        ["speculative_config"],
        ["Put the proposer's import path in speculative_config.model"],
        "SpeculativeConfig.__post_init__.",
        ["speculative-decoding"],
        example_fix=(
            '# before\n--speculative-config \'{"method": "custom_class", "num_speculative_tokens": 3}\'\n'
            '# after\n--speculative-config \'{"method": "custom_class", "model": "my_module.MyProposer", '
            '"num_speculative_tokens": 3}\''
        ),
    ),
    R(
        "spec-heterogeneous-vocab-requires-draft-model",
        "use_heterogeneous_vocab only works with method='draft_model'",
        f"{sub('speculative_config', 'use_heterogeneous_vocab')} && {SC}.use_heterogeneous_vocab == true && "
        f'{SPEC_M} && {SC}.method != "draft_model"',
        ["speculative_config"],
        ["Use method draft_model", "Remove use_heterogeneous_vocab"],
        "SpeculativeConfig._verify_args (checked here for an explicit method).",
        ["speculative-decoding"],
        fix={"unset": ["speculative_config.use_heterogeneous_vocab"]},
    ),
    R(
        "spec-heterogeneous-vocab-greedy-only",
        (
            "use_heterogeneous_vocab currently only supports greedy draft sampling. Set "
            "draft_sample_method='greedy' (the default) or omit it."
        ),
        f"{sub('speculative_config', 'use_heterogeneous_vocab')} && {SC}.use_heterogeneous_vocab == true && "
        f'{sub("speculative_config", "draft_sample_method")} && {SC}.draft_sample_method != "greedy"',
        ["speculative_config"],
        ["Remove draft_sample_method (greedy is the default)"],
        "SpeculativeConfig._verify_args.",
        ["speculative-decoding"],
        fix={"unset": ["speculative_config.draft_sample_method"]},
    ),
    R(
        "lora-spec-batched-token-budget",
        "Consider increasing max_num_batched_tokens or decreasing num_speculative_tokens",
        (
            f"{arg_true('enable_lora')} && {sub('speculative_config', 'num_speculative_tokens')} && "
            f"{A('max_num_batched_tokens')} && "
            f"{A('max_num_seqs')} && args.max_num_batched_tokens < args.max_num_seqs * "
            f"({SC}.num_speculative_tokens + 1)"
        ),
        ["enable_lora", "speculative_config", "max_num_batched_tokens", "max_num_seqs"],
        [
            "Raise --max-num-batched-tokens to at least max_num_seqs x (num_speculative_tokens + 1)",
            "Lower --max-num-seqs or num_speculative_tokens",
        ],
        "EngineArgs.create_engine_config: with LoRA and speculative decoding every sequence may need "
        "num_speculative_tokens + 1 slots in one step (checked here for explicit max_num_batched_tokens and "
        "max_num_seqs; their defaults depend on the hardware).",
        ["lora", "speculative-decoding"],
    ),
]


RULES += [
    R(
        "spec-tokens-without-model-0.34",
        "num_speculative_tokens was provided but without speculative model.",
        (
            f"{sub('speculative_config', 'num_speculative_tokens')} && "
            f"!{sub('speculative_config', 'model')} && "
            f'(!{SPEC_M} || {SC}.method in ["draft_model", "eagle", "eagle3", "dflash"])'
        ),
        ["speculative_config"],
        [
            'Add the draft / EAGLE / DFlash model to --speculative-config ("model": "org/draft")',
            "Use a method that needs no model (ngram, ngram_gpu, suffix, mtp, dspark)",
        ],
        (
            "0.34.0 moved the check into the speculators' configs "
            "(DraftModelSpeculatorConfig.default_model): without a method vLLM assumes a draft model; "
            "draft-model, EAGLE, EAGLE-3 and DFlash drafts need the model that proposes the tokens (MTP and "
            "DSpark derive it from the target; ngram, ngram_gpu, "
            "suffix and extract_hidden_states need none)."
        ),
        ["speculative-decoding"],
        range=["0.34.0", None],
    ),
]

CASES = {
    "spec-tokens-without-model-0.34": (
        {"speculative_config": {"method": "dflash", "num_speculative_tokens": 3}},
        {
            "speculative_config": {
                "method": "dflash",
                "model": "org/dflash-draft",
                "num_speculative_tokens": 3,
            }
        },
    ),
    "per-request-spec-decode-metrics-requires-spec": (
        {"per_request_spec_decode_metrics": "summary"},
        m({"per_request_spec_decode_metrics": "summary"}, SPEC_EAGLE),
    ),
    "async-scheduling-spec-method-0.20": (
        {"async_scheduling": True, "speculative_config": NGRAM},
        m({"async_scheduling": True}, SPEC_EAGLE),
    ),
    "async-scheduling-spec-method-0.25": (
        {"async_scheduling": True, "speculative_config": NGRAM},
        m({"async_scheduling": True}, SPEC_EAGLE),
    ),
    "async-scheduling-spec-method-0.31": (
        {"async_scheduling": True, "speculative_config": {"method": "suffix", "num_speculative_tokens": 8}},
        {
            "async_scheduling": True,
            "speculative_config": {"method": "ngram_gpu", "num_speculative_tokens": 3},
        },
    ),
    "async-scheduling-vs-disable-padded-drafter-batch": (
        {
            "async_scheduling": True,
            "speculative_config": m(SPEC_EAGLE["speculative_config"], {"disable_padded_drafter_batch": True}),
        },
        m({"async_scheduling": True}, SPEC_EAGLE),
    ),
    "adaptive-verification-vs-lora": (m(ADAPT, {"enable_lora": True}), ADAPT),
    "adaptive-verification-vs-eager": (m(ADAPT, {"enforce_eager": True}), ADAPT),
    "adaptive-verification-vs-pipeline-parallel": (
        m(ADAPT, {"pipeline_parallel_size": 2}),
        m(ADAPT, {"tensor_parallel_size": 2}),
    ),
    "adaptive-verification-dspark-only": (
        {"speculative_config": m(SPEC_EAGLE["speculative_config"], {"enable_adaptive_verification": True})},
        ADAPT,
    ),
    "spec-tensor-parallel-size-key": (
        {"speculative_config": m(SPEC_EAGLE["speculative_config"], {"tensor_parallel_size": 1})},
        {"speculative_config": m(SPEC_EAGLE["speculative_config"], {"draft_tensor_parallel_size": 1})},
    ),
    "spec-num-speculative-tokens-positive": (
        {"speculative_config": m(NGRAM, {"num_speculative_tokens": 0})},
        {"speculative_config": NGRAM},
    ),
    "spec-shorthand-conflict": (
        {"spec_method": "ngram", "speculative_config": NGRAM},
        {"spec_tokens": 3, "speculative_config": {"method": "ngram"}},
    ),
    "spec-synthetic-needs-rates-or-length": (sp(**SYN_ARGS), sp(**SYN_ARGS, synthetic_acceptance_length=2.5)),
    "spec-synthetic-rates-length": (
        sp(**SYN_ARGS, synthetic_acceptance_rates=[0.9, 0.8]),
        sp(**SYN_ARGS, synthetic_acceptance_rates=[0.9, 0.8, 0.7]),
    ),
    "spec-synthetic-rates-in-unit-interval": (
        sp(**SYN_ARGS, synthetic_acceptance_rates=[1.2, 0.8, 0.5]),
        sp(**SYN_ARGS, synthetic_acceptance_rates=[1, 0.8, 0.5]),
    ),
    "spec-synthetic-rates-non-increasing": (
        sp(**SYN_ARGS, synthetic_acceptance_rates=[0.7, 0.8, 0.5]),
        sp(**SYN_ARGS, synthetic_acceptance_rates=[0.8, 0.8, 0.5]),
    ),
    "spec-synthetic-length-range": (
        sp(**SYN_ARGS, synthetic_acceptance_length=5),
        sp(**SYN_ARGS, synthetic_acceptance_length=4),
    ),
    "spec-synthetic-options-need-synthetic": (
        sp(synthetic_acceptance_length=2.5),
        sp(**SYN_ARGS, synthetic_acceptance_length=2.5),
    ),
    "spec-mtp-target-without-mtp-layers": (
        dict(args={"speculative_config": {"method": "mtp", "num_speculative_tokens": 1}}, model=_LLAMA_TYPED),
        dict(
            args={"speculative_config": {"method": "mtp", "num_speculative_tokens": 1}},
            model={**_LLAMA_TYPED, "config": {**_LLAMA_TYPED["config"], "model_type": "deepseek_v3"}},
        ),
    ),
    "spec-mtp-needs-num-speculative-tokens": (
        {"speculative_config": {"method": "mtp"}},
        {"speculative_config": {"method": "mtp", "num_speculative_tokens": 1}},
    ),
    "spec-ngram-lookup-min-le-max-0.20.0": (
        sp(prompt_lookup_min=5, prompt_lookup_max=2),
        sp(prompt_lookup_min=2, prompt_lookup_max=5),
    ),
    "spec-ngram-lookup-min-le-max": (
        sp(prompt_lookup_min=5, prompt_lookup_max=2),
        sp(prompt_lookup_min=2, prompt_lookup_max=5),
    ),
    "spec-tokens-without-model": (
        {"speculative_config": {"method": "eagle3", "num_speculative_tokens": 3}},
        {
            "speculative_config": {
                "method": "eagle3",
                "model": "org/eagle3-draft",
                "num_speculative_tokens": 3,
            }
        },
    ),
    "spec-custom-class-requires-model": (
        {"speculative_config": {"method": "custom_class", "num_speculative_tokens": 3}},
        {
            "speculative_config": {
                "method": "custom_class",
                "model": "my_module.MyProposer",
                "num_speculative_tokens": 3,
            }
        },
    ),
    "spec-heterogeneous-vocab-requires-draft-model": (
        sp(use_heterogeneous_vocab=True),
        {
            "speculative_config": {
                "method": "draft_model",
                "model": "org/small",
                "num_speculative_tokens": 3,
                "use_heterogeneous_vocab": True,
            }
        },
    ),
    "spec-heterogeneous-vocab-greedy-only": (
        {
            "speculative_config": {
                "method": "draft_model",
                "model": "org/small",
                "num_speculative_tokens": 3,
                "use_heterogeneous_vocab": True,
                "draft_sample_method": "probabilistic",
            }
        },
        {
            "speculative_config": {
                "method": "draft_model",
                "model": "org/small",
                "num_speculative_tokens": 3,
                "use_heterogeneous_vocab": True,
            }
        },
    ),
    "lora-spec-batched-token-budget": (
        {"enable_lora": True, "max_num_batched_tokens": 512, "max_num_seqs": 256, **sp()},
        {"enable_lora": True, "max_num_batched_tokens": 1024, "max_num_seqs": 256, **sp()},
    ),
}
