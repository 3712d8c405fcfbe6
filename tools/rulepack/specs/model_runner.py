"""Model Runner V2: the features it refuses when VLLM_USE_V2_MODEL_RUNNER forces it, and HiSparse, which
forces it."""

from tools.rulepack.expr import (
    ADAPTIVE,
    ENV_V2,
    EXT_LAUNCHER_PP,
    HAS_SPEC,
    HISPARSE,
    LOGITS_PROCS,
    PARALLEL_DRAFTING,
    SC,
    UBATCHING,
    R,
    cel_str,
    join_present,
    named,
    q,
    spec_field_true,
)
from tools.rulepack.profiles import HIS
from tools.rulepack.specs.older_checks import MLA_ENABLED
from tools.rulepack.specs.runtime_asserts import MLA

# ---------------------------------------------------------------- Model Runner V2 forced by the environment
# VllmConfig._validate_v2_model_runner() (called from __post_init__ when use_v2_model_runner) raises with the
# list from _get_v2_model_runner_unsupported_features(). The text is the same f-string in 0.23.0-0.33.0 (one
# rule: a rule's range is its message's whole range); 0.20.0-0.22.1 raise the same list after
# "VLLM_USE_V2_MODEL_RUNNER does not yet support: " (a second rule). The list differs per release, so the
# condition branches on vllm.minor. Only features readable from the arguments are checked (see the docs);
# stock torch.compile and sequence parallelism (0.22+) are left out because __post_init__ may override the
# user's values. 0.20.0-0.21.0 list only PCP, non-eagle/eagle3/mtp methods, DBO, routed experts, logits
# processors, KV sharing fast prefill and EC transfer (and hybrid models); 0.22 has 0.23's list plus reasoning
# budget enforcement (any reasoning config: --reasoning-parser or --reasoning-config).
_M = "derived.spec_method"
_EAGLE3_PP = named(
    "spec_eagle3_pipeline_parallel",
    f'({HAS_SPEC} && {_M} == "eagle3" && effective.pipeline_parallel_size > 1)',
    "EAGLE3 speculative decoding with pipeline parallelism.",
)
_DBO = "effective.enable_dbo == true"
_EEP = "effective.enable_elastic_ep == true"
_ROUTED = "effective.enable_return_routed_experts == true"
_PEMB = "(has(args.enable_prompt_embeds) && args.enable_prompt_embeds == true)"
_KVS = "effective.kv_sharing_fast_prefill == true"
_EC = "(has(args.ec_transfer_config) && args.ec_transfer_config != null)"
_PCP = "effective.prefill_context_parallel_size > 1"
_LORA = "(has(args.enable_lora) && args.enable_lora == true)"
_MAMBA_ALL = 'effective.mamba_cache_mode == "all"'
_HETERO = named(
    "spec_heterogeneous_vocab",
    spec_field_true("use_heterogeneous_vocab"),
    "speculative_config.use_heterogeneous_vocab is true (a draft with a vocabulary of its own).",
)
_ADAPTIVE = named(
    "spec_adaptive_verification",
    ADAPTIVE,
    "speculative_config.enable_adaptive_verification is true.",
)
# 0.30.0+: use_ubatching (enable_dbo or ubatch_size > 1) adds _get_dbo_unsupported_features(), which with
# VLLM_USE_V2_MODEL_RUNNER set lists only DBO combined with LoRA, speculative decoding, PP, DCP/PCP, ...
_UB_FORCED = (
    "((effective.enable_dbo == true || effective.ubatch_size > 1) && "
    f"({_LORA} || {HAS_SPEC} || effective.pipeline_parallel_size > 1 || "
    "effective.decode_context_parallel_size > 1 || effective.prefill_context_parallel_size > 1))"
)


def _list_by_minor(table):
    expr = "[]"
    for minor in sorted(table, reverse=True):
        expr = f"(vllm.minor == {minor} ? {q(table[minor])} : {expr})"
    return expr


_EEA = ["eagle", "eagle3", "mtp"]
_V2_SPEC_OK = {  # 0.20-0.29: every other method is listed
    20: _EEA,
    21: _EEA,
    22: _EEA,
    23: _EEA,
    24: _EEA + ["dflash"],
    25: _EEA + ["dflash", "dspark"],
    26: _EEA + ["dflash", "dspark"],
    27: _EEA + ["dflash", "dspark"],
    28: _EEA + ["dflash", "dspark"],
    29: _EEA + ["dflash", "dspark", "extract_hidden_states"],
}
_V2_SPEC_NOT_OK = {  # 0.30+: only these methods are listed
    30: ["ngram", "ngram_gpu", "draft_model", "suffix", "medusa", "mlp_speculator", "custom_class"],
    31: ["ngram", "ngram_gpu", "suffix", "medusa", "mlp_speculator", "custom_class"],
    32: ["suffix", "medusa", "mlp_speculator", "custom_class"],
    33: ["suffix", "custom_class"],
}
_V2_SPEC_METHOD = named(
    "mrv2_unsupported_spec_method",
    f"({HAS_SPEC} && (vllm.minor <= 29 ? !({_M} in {_list_by_minor(_V2_SPEC_OK)}) : "
    f"{_M} in {_list_by_minor(_V2_SPEC_NOT_OK)}))",
    "The speculative method is one _get_v2_model_runner_unsupported_features() lists in this release "
    "(0.20-0.29: every method but those it accepts; 0.30+: the methods it names).",
)
_V2_PD = named(
    "mrv2_unsupported_parallel_drafting",
    f'({PARALLEL_DRAFTING} && (vllm.minor <= 23 ? vllm.minor >= 22 : vllm.minor == 24 ? {_M} != "dflash" : '
    f'!({_M} in ["dflash", "dspark"])))',
    "Parallel drafting that _get_v2_model_runner_unsupported_features() lists in this release (0.22+, "
    "except for dflash from 0.24 and dspark from 0.25).",
)
# 0.22-0.25: a logits logprobs mode of a generating model (runner_type "generate": not a pooling or draft
# runner)
_LOGITS_MODE = (
    'effective.logprobs_mode in ["raw_logits", "processed_logits"] && '
    '!(has(args.runner) && args.runner in ["pooling", "draft"])'
)
# 0.22: _set_default_reasoning_config_args gives VllmConfig a reasoning_config for a reasoning parser
_REASONING = named(
    "reasoning_configured",
    '((has(args.reasoning_parser) && args.reasoning_parser != null && args.reasoning_parser != "") || '
    "(has(args.reasoning_config) && args.reasoning_config != null))",
    "VllmConfig has a reasoning_config: --reasoning-config, or a --reasoning-parser for which "
    "_set_default_reasoning_config_args makes one (0.22).",
)
# (version condition, feature) as read in each release's _get_v2_model_runner_unsupported_features();
# 0.25 dropped hybrid/align cache mode (model-dependent, not checked), 0.26 made PCP non-MLA only (left out:
# ModelConfig.use_mla) and dropped logprobs_mode.
# prefill context parallelism: unsupported by V2 until 0.25; 0.26-0.28 only for models not using MLA
# (ModelConfig.use_mla: an MLA config, unless VLLM_MLA_DISABLE turns MLA off)
_USE_MLA = f"(({MLA}) && {MLA_ENABLED})"
_PCP_V2 = named(
    "mrv2_unsupported_prefill_context_parallel",
    f"({_PCP} && (vllm.minor <= 25 || !{_USE_MLA}))",
    "Prefill context parallelism that Model Runner V2 does not support (until 0.25; 0.26-0.28 for a model "
    "not using MLA: ModelConfig.use_mla).",
)
# 0.27.0-0.28.x: without the variable, prefill context parallelism makes vLLM pick V2 by itself
# (VllmConfig.use_v2_model_runner), which then refuses it for a non-MLA model
_PCP_FORCES_V2 = f"(vllm.minor >= 27 && vllm.minor <= 28 && {_PCP} && !{_USE_MLA})"
# 0.20.0-0.22.1: ModelConfig.has_inner_state, the model class's HasInnerState interface (mamba and hybrid
# models), read from each release's model registry for the model's architecture (config.json's
# architectures[0]). 0.23-0.24 list such models only in mamba cache mode 'align', which vLLM resolves from
# prefix caching and the model class (not decided here).
_INNER_STATE_0_20 = [
    "BailingMoeV2_5ForCausalLM",
    "BambaForCausalLM",
    "ColBERTLfm2Model",
    "FalconH1ForCausalLM",
    "FalconMambaForCausalLM",
    "GraniteMoeHybridForCausalLM",
    "JambaForCausalLM",
    "JambaForSequenceClassification",
    "KimiLinearForCausalLM",
    "Lfm2ForCausalLM",
    "Lfm2MoeForCausalLM",
    "Mamba2ForCausalLM",
    "MambaForCausalLM",
    "MiniMaxForCausalLM",
    "MiniMaxM1ForCausalLM",
    "MiniMaxText01ForCausalLM",
    "NemotronHForCausalLM",
    "NemotronHPuzzleForCausalLM",
    "NemotronH_Nano_Omni_Reasoning_V3",
    "NemotronH_Nano_VL_V2",
    "NemotronH_Super_Omni_Reasoning_V3",
    "OlmoHybridForCausalLM",
    "Plamo2ForCausalLM",
    "Qwen3NextForCausalLM",
    "Zamba2ForCausalLM",
]
_INNER_STATE_0_22 = sorted(_INNER_STATE_0_20 + ["MiniCPMV4_6ForConditionalGeneration"])
_HYBRID = named(
    "mrv2_unsupported_hybrid_model",
    f"(vllm.minor <= 22 && model.architecture in "
    f"(vllm.minor == 22 ? {q(_INNER_STATE_0_22)} : {q(_INNER_STATE_0_20)}))",
    "0.20.0-0.22.1: the model has inner state (ModelConfig.has_inner_state: a mamba or hybrid "
    "architecture of that release's model registry), which Model Runner V2 does not support.",
)
# 0.24: SpeculativeConfig.uses_dynamic_speculative_decoding(), a num_speculative_tokens_per_batch_size
# schedule given
_DYNAMIC_SD = named(
    "spec_dynamic_decoding",
    f"({HAS_SPEC} && has({SC}.num_speculative_tokens_per_batch_size) && "
    f"{SC}.num_speculative_tokens_per_batch_size != null)",
    "SpeculativeConfig.uses_dynamic_speculative_decoding(): a num_speculative_tokens_per_batch_size schedule "
    "is given (0.24).",
)
V2_UNSUPPORTED = [
    ("vllm.minor <= 22", _HYBRID),
    ("vllm.minor <= 28", _PCP_V2),
    ("vllm.minor >= 24", EXT_LAUNCHER_PP),
    ("true", _V2_SPEC_METHOD),
    ("vllm.minor == 24", _DYNAMIC_SD),
    ("true", _V2_PD),
    ("vllm.minor >= 22 && vllm.minor <= 29", _EAGLE3_PP),
    ("vllm.minor == 22", _REASONING),
    ("vllm.minor == 28", f"{_ADAPTIVE} && ({_LORA} || effective.pipeline_parallel_size > 1)"),
    ("vllm.minor <= 29", _DBO),
    ("vllm.minor >= 30", _UB_FORCED),
    ("vllm.minor >= 24 && vllm.minor <= 31", _EEP),
    ("vllm.minor <= 27", f"({_ROUTED} || {_EC})"),
    ("vllm.minor <= 30", LOGITS_PROCS),
    ("vllm.minor >= 22 && vllm.minor <= 28", _PEMB),
    ("vllm.minor >= 22 && vllm.minor <= 25", _LOGITS_MODE),
    ("vllm.minor <= 29", _KVS),
    ("vllm.minor >= 30 && vllm.minor <= 31", _MAMBA_ALL),
    ("vllm.minor >= 32", _HETERO),
]
V2_UNSUPPORTED_EXPR = (
    "(" + " || ".join(f"({c} && {f})" if c != "true" else f for c, f in V2_UNSUPPORTED) + ")"
)

# The names vLLM lists, in the order of each release's _get_v2_model_runner_unsupported_features() (and, from
# 0.30.0, _get_dbo_unsupported_features() with VLLM_USE_V2_MODEL_RUNNER set): (release condition, feature,
# CEL of the name). Only the features read from the arguments (as above) are listed.
_NGRAMS = f'({HAS_SPEC} && {_M} in ["ngram", "ngram_gpu"])'
V2_UNSUPPORTED_NAMES = [
    ("vllm.minor <= 22", f"has(model.architecture) && {_HYBRID}", '"hybrid/mamba models"'),
    ("vllm.minor <= 28", _PCP_V2, '"prefill context parallelism"'),
    ("vllm.minor >= 24", EXT_LAUNCHER_PP, '"pipeline parallelism with external_launcher"'),
    ("vllm.minor >= 22 && vllm.minor <= 29", _NGRAMS, '"ngram/ngram_gpu speculative decoding"'),
    (
        "true",
        f"{_V2_SPEC_METHOD} && !(vllm.minor >= 22 && vllm.minor <= 29 && {_NGRAMS})",
        f'"speculative method \'" + {_M} + "\'"',
    ),
    ("vllm.minor == 24", _DYNAMIC_SD, '"dynamic speculative decoding"'),
    (
        "true",
        _V2_PD,
        'vllm.minor <= 23 ? "parallel drafting for speculative decoding" : '
        '"parallel drafting for EAGLE speculative decoding"',
    ),
    ("vllm.minor >= 22 && vllm.minor <= 29", _EAGLE3_PP, '"EAGLE3 with pipeline parallelism"'),
    ("vllm.minor == 22", _REASONING, '"reasoning budget enforcement"'),
    ("vllm.minor == 28", f"{_ADAPTIVE} && {_LORA}", '"adaptive verification with LoRA"'),
    (
        "vllm.minor == 28",
        f"{_ADAPTIVE} && (effective.enforce_eager == true || (has(args.compilation_config) && "
        "has(args.compilation_config.cudagraph_mode) && "
        'string(args.compilation_config.cudagraph_mode).matches("^(?i)(0|none)$")))',
        '"adaptive verification with enforce_eager/cudagraph_mode=none"',
    ),
    (
        "vllm.minor == 28",
        f"{_ADAPTIVE} && effective.pipeline_parallel_size > 1",
        '"adaptive verification with pipeline parallelism"',
    ),
    ("vllm.minor >= 32", _HETERO, '"heterogeneous-vocabulary draft models"'),
    ("vllm.minor <= 29", _DBO, '"dual batch overlap"'),
    ("vllm.minor >= 30", f"{UBATCHING} && {_LORA}", '"dual batch overlap with LoRA"'),
    ("vllm.minor >= 30", f"{UBATCHING} && {HAS_SPEC}", '"dual batch overlap with speculative decoding"'),
    (
        "vllm.minor >= 30",
        f"{UBATCHING} && effective.pipeline_parallel_size > 1",
        '"dual batch overlap with pipeline parallelism"',
    ),
    (
        "vllm.minor >= 30",
        f"{UBATCHING} && (effective.decode_context_parallel_size > 1 || "
        "effective.prefill_context_parallel_size > 1)",
        '"dual batch overlap with context parallelism"',
    ),
    ("vllm.minor >= 24 && vllm.minor <= 31", _EEP, '"elastic expert parallelism"'),
    ("vllm.minor <= 27", _ROUTED, '"routed experts capture"'),
    ("vllm.minor <= 30", LOGITS_PROCS, '"custom logits processors"'),
    ("vllm.minor >= 22 && vllm.minor <= 28", _PEMB, '"prompt embeds"'),
    (
        "vllm.minor >= 22 && vllm.minor <= 25",
        _LOGITS_MODE,
        '"logprobs mode \'" + effective.logprobs_mode + "\'"',
    ),
    ("vllm.minor <= 29", _KVS, '"KV sharing fast prefill"'),
    ("vllm.minor <= 27", _EC, '"EC transfer"'),
    ("vllm.minor >= 30 && vllm.minor <= 31", _MAMBA_ALL, "\"mamba cache mode 'all'\""),
]
V2_UNSUPPORTED_LABELS = join_present(
    [(f if c == "true" else f"{c} && {f}", name) for c, f, name in V2_UNSUPPORTED_NAMES],
    name="mrv2_unsupported_features",
    description=(
        "The names _get_v2_model_runner_unsupported_features() lists for the profile in this release (from "
        "0.30.0 with _get_dbo_unsupported_features()'s when VLLM_USE_V2_MODEL_RUNNER is set), in vLLM's "
        "order: only the features read from the arguments (see rule mrv2-forced-unsupported-features)."
    ),
)


# 0.28.0+: _verify_sampling_replay_config() runs earlier in __post_init__; where it refuses (speculative
# decoding until 0.31, custom logits processors, logprobs_mode), vLLM never reaches the V2 check.
_REPLAY_FIRST = (
    "(vllm.minor >= 28 && effective.return_sampling_mask == true && "
    f'((vllm.minor < 32 && {HAS_SPEC}) || {LOGITS_PROCS} || effective.logprobs_mode != "processed_logprobs"))'
)

RULES = [
    R(
        "hisparse-requires-mrv2",
        "HiSparse requires Model Runner V2; remove VLLM_USE_V2_MODEL_RUNNER=0.",
        f"{HISPARSE} && has({ENV_V2}) && int({ENV_V2}) == 0",
        ["attention_config", "env.VLLM_USE_V2_MODEL_RUNNER"],
        ["Remove VLLM_USE_V2_MODEL_RUNNER=0 from the environment", "Remove attention_config.hisparse_config"],
        (
            "Raised by VllmConfig.use_v2_model_runner: HiSparse forces Model Runner V2 and refuses an "
            "explicit V1."
        ),
        ["hisparse", "model-runner-v2"],
    ),
    R(
        "mrv2-forced-unsupported-features",
        "Model Runner V2 does not yet support: {', '.join(unsupported)}",
        (
            "has(env.VLLM_USE_V2_MODEL_RUNNER) ? (int(env.VLLM_USE_V2_MODEL_RUNNER) != 0 && "
            f"!{_REPLAY_FIRST} && {V2_UNSUPPORTED_EXPR}) : ({_PCP_FORCES_V2} && !{_REPLAY_FIRST})"
        ),
        [
            "env.VLLM_USE_V2_MODEL_RUNNER",
            "speculative_config",
            "logits_processors",
            "enable_dbo",
            "ubatch_size",
            "enable_elastic_ep",
            "enable_return_routed_experts",
            "enable_prompt_embeds",
            "kv_sharing_fast_prefill",
            "ec_transfer_config",
            "prefill_context_parallel_size",
            "pipeline_parallel_size",
            "distributed_executor_backend",
            "mamba_cache_mode",
        ],
        [
            "Remove VLLM_USE_V2_MODEL_RUNNER=1 (vLLM then falls back to the V1 model runner by itself)",
            "Remove the feature Model Runner V2 does not support yet in this release",
        ],
        (
            "VllmConfig._validate_v2_model_runner: with VLLM_USE_V2_MODEL_RUNNER=1 the V2 model runner is "
            "forced, and every feature in _get_v2_model_runner_unsupported_features() is refused (without "
            "the variable vLLM falls back to V1 with a warning; in 0.27-0.28 prefill context parallelism "
            "alone makes vLLM pick V2, which refuses it for a non-MLA model). The list differs per release: "
            "0.23-0.29 accept only eagle/eagle3/mtp (+dflash 0.24, +dspark 0.25, +extract_hidden_states "
            "0.29) speculative methods; 0.30 refuses ngram/ngram_gpu/draft_model/suffix/medusa/"
            "mlp_speculator/custom_class, 0.31 the same without draft_model, 0.32 suffix/medusa/"
            "mlp_speculator/custom_class, 0.33 suffix/custom_class; dynamic speculative decoding (0.24: a "
            "num_speculative_tokens_per_batch_size schedule); parallel drafting (except dflash/dspark), "
            "EAGLE3 with PP (-0.29), external_launcher with PP (0.24+), dual batch overlap (-0.29; 0.30+ "
            "only with LoRA, speculative decoding, PP or context parallelism), elastic EP (0.24-0.31), "
            "routed experts capture and EC transfer (-0.27), custom logits processors (-0.30), prompt "
            "embeds (-0.28), logprobs mode raw_logits/processed_logits (-0.25), KV sharing fast prefill "
            "(-0.29), prefill context parallelism (-0.25; 0.26-0.28 for a model not using MLA: no "
            "kv_lora_rank in config.json, or VLLM_MLA_DISABLE set), adaptive verification with LoRA or PP "
            "(0.28), mamba cache mode 'all' (0.30-0.31), heterogeneous-vocabulary drafts (0.32+). Not "
            "reported where a sampling-replay check refuses first (0.28+). Not decided by this rule: stock "
            "torch.compile and sequence parallelism (overridden in __post_init__), hybrid/mamba models in "
            "mamba cache mode 'align' (0.23-0.24: the mode is resolved from prefix caching and the model "
            "class) and a 'draft_model' method refined from the draft's config."
        ),
        ["model-runner-v2", "speculative-decoding"],
        example_fix=(
            "# before\nVLLM_USE_V2_MODEL_RUNNER=1 vllm serve model --speculative-config "
            '\'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\'\n'
            "# after\nvllm serve model --speculative-config "
            '\'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\''
        ),
        values={"', '.join(unsupported)": V2_UNSUPPORTED_LABELS},
    ),
]

RULES += [
    R(
        "mrv2-forced-unsupported-features-0.20.0",
        "VLLM_USE_V2_MODEL_RUNNER does not yet support: {",
        f"has({ENV_V2}) && int({ENV_V2}) != 0 && {V2_UNSUPPORTED_EXPR}",
        [
            "env.VLLM_USE_V2_MODEL_RUNNER",
            "speculative_config",
            "logits_processors",
            "enable_dbo",
            "enable_return_routed_experts",
            "enable_prompt_embeds",
            "kv_sharing_fast_prefill",
            "ec_transfer_config",
            "prefill_context_parallel_size",
            "pipeline_parallel_size",
            "reasoning_parser",
        ],
        [
            "Remove VLLM_USE_V2_MODEL_RUNNER=1 (these releases use the V1 model runner by default)",
            "Remove the feature Model Runner V2 does not support yet in this release",
        ],
        (
            "VllmConfig._validate_v2_model_runner: with VLLM_USE_V2_MODEL_RUNNER=1 the V2 model runner is "
            "forced and every feature it does not support yet is refused (without the variable 0.20-0.21 "
            "use V1, and 0.22 falls back to V1 with a warning). 0.20-0.21 list prefill context "
            "parallelism, speculative methods other than eagle/eagle3/mtp, dual batch overlap, routed "
            "experts capture, custom logits processors, KV sharing fast prefill and EC transfer; 0.22 "
            "also ngram/ngram_gpu (named as such), parallel drafting, EAGLE3 with pipeline parallelism, "
            "reasoning budget enforcement (a reasoning parser or config), prompt embeds and the "
            "raw_logits/processed_logits logprobs modes; every release lists hybrid/mamba models first "
            "(ModelConfig.has_inner_state: the architecture's model class in that release's registry, read "
            "from config.json). Stock torch.compile and sequence parallelism (0.22) are not decided by this "
            "rule."
        ),
        ["model-runner-v2", "speculative-decoding"],
        example_fix=(
            "# before\nVLLM_USE_V2_MODEL_RUNNER=1 vllm serve model --logits-processors "
            "my_org.processors:BanWordsProcessor\n"
            "# after\nvllm serve model --logits-processors my_org.processors:BanWordsProcessor"
        ),
        values={"', '.join(unsupported)": V2_UNSUPPORTED_LABELS},
    ),
]

# ---------------------------------------------------------------- Model Runner V1 (0.29.0-0.33.x)
# VllmConfig.__post_init__ calls _validate_v1_model_runner() where it would call _validate_v2_model_runner()
# when use_v2_model_runner is false (VLLM_USE_V2_MODEL_RUNNER=0, or without the variable a feature V2 does
# not support yet: derived.use_v2_model_runner), refusing the list of
# _get_v1_model_runner_unsupported_features(). (release condition, feature, name) in vLLM's order; the
# entries that depend on the draft model's config (mixed sliding/full and DFlash2 / candidate-head DFlash
# drafts, XPress refiners, Parse 3.5 MTP) are not decided here. 0.34.0 has no V1 (mrv2-env-var-removed).
_STEP5 = ["Step5ForCausalLM", "Step5ForConditionalGeneration"]
V1_UNSUPPORTED_NAMES = [
    ("true", _PCP, '"prefill context parallel"'),
    (
        "vllm.minor >= 31",
        # --async-scheduling as set: its default (None) is resolved to off for V1 with pipeline parallelism
        "effective.pipeline_parallel_size > 1 && has(args.async_scheduling) && args.async_scheduling == true",
        '"pipeline parallelism with async scheduling"',
    ),
    ("true", f'{HAS_SPEC} && {_M} == "dspark"', '"dspark speculative decoding"'),
    ("true", ADAPTIVE, '"adaptive draft verification"'),
    (
        "vllm.minor >= 33",
        f"{HAS_SPEC} && has({SC}.draft_lm_head_quantization) && {SC}.draft_lm_head_quantization != null",
        '"draft lm_head quantization"',
    ),
    ("true", "has(model.config) && derived.is_diffusion == true", '"diffusion models"'),
    ("true", "effective.enable_batch_sharded_sampling == true", '"batch-sharded sampling"'),
    ("vllm.minor >= 33", f"has(model.architecture) && model.architecture in {q(_STEP5)}", '"Step5"'),
]
V1_UNSUPPORTED_ITEMS = [(f if c == "true" else f"{c} && {f}", name) for c, f, name in V1_UNSUPPORTED_NAMES]
RULES += [
    R(
        "mrv1-unsupported-features",
        "Model Runner V1 does not support: {",
        "("
        + " || ".join(f"({f})" for f, _ in V1_UNSUPPORTED_ITEMS)
        + ") && derived.use_v2_model_runner == false",
        [
            "env.VLLM_USE_V2_MODEL_RUNNER",
            "prefill_context_parallel_size",
            "pipeline_parallel_size",
            "async_scheduling",
            "speculative_config",
            "enable_batch_sharded_sampling",
        ],
        [
            "Remove VLLM_USE_V2_MODEL_RUNNER=0 (vLLM then picks Model Runner V2 unless a feature it does "
            "not support yet is present)",
            "Remove the feature Model Runner V1 does not support",
        ],
        (
            "VllmConfig._validate_v1_model_runner: when vLLM runs the V1 model runner "
            "(VLLM_USE_V2_MODEL_RUNNER=0, or a feature Model Runner V2 does not support yet), the features "
            "only V2 implements are refused: prefill context parallelism, pipeline parallelism with "
            "--async-scheduling (0.31+), dspark speculative decoding, adaptive draft verification, a "
            "quantized draft lm_head (0.33), diffusion models, batch-sharded sampling and Step5 models "
            "(0.33). Drafts whose own config decides (DFlash2 / candidate-head / mixed-attention DFlash, "
            "XPress, Parse 3.5 MTP) are not decided by this rule."
        ),
        ["model-runner-v2", "context-parallel"],
        example_fix=(
            "# before\nVLLM_USE_V2_MODEL_RUNNER=0 vllm serve model --prefill-context-parallel-size 2\n"
            "# after\nvllm serve model --prefill-context-parallel-size 2"
        ),
        values={"', '.join(unsupported)": join_present(V1_UNSUPPORTED_ITEMS)},
    ),
]

_NEMOTRON_H = {
    "name": "nvidia/NVIDIA-Nemotron-Nano-9B-v2",
    "architecture": "NemotronHForCausalLM",
    "config": {
        "architectures": ["NemotronHForCausalLM"],
        "model_type": "nemotron_h",
        "num_attention_heads": 40,
    },
}
_EAGLE_PD = {"method": "eagle", "model": "org/eagle-draft", "num_speculative_tokens": 3}
RULES += [
    R(
        "mrv2-env-var-removed",
        "is no longer supported: Model Runner V1 has been removed. Unset this variable.",
        f'has({ENV_V2}) && {ENV_V2} != "1"',
        ["env.VLLM_USE_V2_MODEL_RUNNER"],
        ["Unset VLLM_USE_V2_MODEL_RUNNER (0.34.0 has only Model Runner V2)"],
        (
            "Platform.validate_environ, the first check `vllm serve` runs: from 0.34.0 Model Runner V1 "
            "is gone, and VLLM_USE_V2_MODEL_RUNNER set to anything but 1 is refused (1 only draws a "
            "warning that it is redundant)."
        ),
        ["model-runner-v2", "environment"],
        values={"value": ENV_V2},
    ),
]

# envs.removed_environment_variables (0.34.0): a removed variable and vLLM's migration hint for it.
_REMOVED_ENV = {
    "VLLM_MARLIN_INPUT_DTYPE": (
        "Marlin no longer supports 8-bit activations. Use `--quantization humming` and set the activation "
        'dtype with VLLM_HUMMING_INPUT_QUANT_CONFIG, e.g. \'{"dtype":"int8"}\'.'
    ),
}
_REMOVED_FIRST = "[" + ", ".join(f'"{k}"' for k in _REMOVED_ENV) + "].filter(k, k in env)[0]"
RULES += [
    R(
        "env-var-removed",
        "{env} has been removed. {hint}",
        "env.exists(k, k in " + q(list(_REMOVED_ENV)) + ")",
        ["env.VLLM_MARLIN_INPUT_DTYPE"],
        ["Unset the variable and follow vLLM's hint"],
        (
            "Platform.validate_environ, the first check `vllm serve` runs: from 0.34.0 a variable listed "
            "in envs.removed_environment_variables is refused with its migration hint."
        ),
        ["environment"],
        values={
            "env": _REMOVED_FIRST,
            "hint": "{"
            + ", ".join(f'"{k}": {cel_str(v)}' for k, v in _REMOVED_ENV.items())
            + "}["
            + _REMOVED_FIRST
            + "]",
        },
    ),
]

CASES = {
    "env-var-removed": (
        dict(args={}, env={"VLLM_MARLIN_INPUT_DTYPE": "fp8"}),
        dict(args={}, env={"VLLM_HUMMING_INPUT_QUANT_CONFIG": '{"dtype":"int8"}'}),
    ),
    "mrv2-env-var-removed": (
        dict(args={}, env={"VLLM_USE_V2_MODEL_RUNNER": "0"}),
        dict(args={}, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
    ),
    "hisparse-requires-mrv2": (
        dict(args=HIS, env={"VLLM_USE_V2_MODEL_RUNNER": "0"}),
        dict(args=HIS, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
    ),
    # a hybrid (mamba) model, listed first, and a custom logits processor
    "mrv2-forced-unsupported-features-0.20.0": (
        dict(
            model=_NEMOTRON_H,
            args={"logits_processors": ["my_org.processors:BanWordsProcessor"]},
            env={"VLLM_USE_V2_MODEL_RUNNER": "1"},
        ),
        dict(model=_NEMOTRON_H, args={"logits_processors": ["my_org.processors:BanWordsProcessor"]}),
    ),
    "mrv1-unsupported-features": (
        dict(args={"prefill_context_parallel_size": 2}, env={"VLLM_USE_V2_MODEL_RUNNER": "0"}),
        dict(args={"prefill_context_parallel_size": 2}),
    ),
    "mrv2-forced-unsupported-features": (
        dict(
            args={"speculative_config": dict(_EAGLE_PD, parallel_drafting=True)},
            env={"VLLM_USE_V2_MODEL_RUNNER": "1"},
        ),
        dict(args={"speculative_config": _EAGLE_PD}, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
    ),
}
