"""What every rule sees besides the profile: the pack's header comment, description, per-release defaults of
`effective` and the derived values (see vllmcheck/rulepacks/README.md, "Pack layout")."""

from tools.rulepack.expr import (
    ADAPTIVE,
    CC,
    ENV_V2,
    EXT_LAUNCHER_PP,
    HAS_SPEC,
    HISPARSE,
    LOGITS_PROCS,
    METHOD_IS,
    PARALLEL_DRAFTING,
    SC,
    UBATCHING,
    WATERMARK,
    model_max_len,
    q,
    spec_field_true,
)

# A draft model that SpeculativeConfig keeps as method 'draft_model'. 0.20.0-0.33.0: the name and
# architecture tests of __post_init__'s "Automatically detect the method" chain all fail, and
# hf_config_override rewrites no model type of this list into an MTP type; 0.34.0:
# _resolve_checkpoint_config_class detects nothing and the model class declares no speculator config.
# Reads model.draft, so it is unknown without the draft's config.
PLAIN_DRAFT_TYPES = (
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "gemma",
    "gemma2",
    "phi3",
    "granite",
    "starcoder2",
    "gpt2",
    "opt",
)
PLAIN_DRAFT = (
    f'({SC}.model.contains("/") && !{SC}.model.matches("(?i)(eagle-|eagle3|dflash|dspark)") && '
    f'model.draft.architecture.endsWith("ForCausalLM") && '
    f'!model.draft.architecture.matches("(?i)(eagle|mtp|medusa|dspark|dflash|speculator|assistant)") && '
    f"model.draft.config.model_type in {q(PLAIN_DRAFT_TYPES)} && "
    f"!has(model.draft.config.speculators_config))"
)

HEADER = """\
# Built-in rule pack of vLLM Profiles (format: vllmcheck/rulepacks/README.md).
#
# category vllm: checks vLLM itself runs while building its configuration at `vllm serve` start-up
#   (EngineArgs.create_engine_config(), the config classes' __post_init__/validators). `message` is vLLM's
#   text verbatim (implicit string concatenation joined). Where vLLM formats values into the text (f-strings),
#   the placeholder is kept exactly as written in vLLM's source, e.g. `{self.nnodes}`, so every message can be
#   found in the release's source with a plain search.
# `versions` is the exact range of releases (among 0.20.0 ... 0.34.0) whose source has the check with that
#   text; a range still open in 0.34.0 is left open. `source` links the check in the newest release of the
#   range (the commit is the release's __commit_id__).
# Inputs the profile cannot know are assumed to be the product's target: NVIDIA CUDA GPUs, triton installed,
#   no third-party logits-processor plugins installed, a default `pip install vllm` (no Ray, no
#   arctic-inference). Facts that need the model read model.architecture / model.config, so a profile
#   without them gets "could not verify" rather than a guess.
# Python's `bool(int(value))` parsing of VLLM_USE_V2_MODEL_RUNNER is `int(env.X) != 0` in CEL.
# Also category vllm: the `vllm serve` entrypoint's own argument checks, which run before the engine config is
#   built (ServeSubcommand.cmd in vllm/entrypoints/cli/serve.py; validate_parsed_serve_args in
#   vllm/entrypoints/{openai,launchers,common}/cli_args.py, a file that moved twice: one rule per location).
# An escape in vLLM's string (`\\n`) is kept as written in the source, like the placeholders.
# Hardware facts the rules read (a rule that needs one gives "could not verify" when the profile does not
#   say): hardware.gpus_per_node = the GPUs visible to one vLLM node (torch.cuda.device_count()).
# A `fix` key with a dot names a key inside a dict-valued argument, the way vLLM's dotted flags do
#   (`profiler_config.profiler` is `--profiler-config.profiler`).
"""

DESCRIPTION = "vLLM start-up checks (0.20.0-0.34.0) and the organisation's sampling-replay collection policy."

DEFAULTS = [
    {
        "versions": ">=0.20.0",
        "values": {
            "tensor_parallel_size": 1,
            "pipeline_parallel_size": 1,
            "data_parallel_size": 1,
            "decode_context_parallel_size": 1,
            "prefill_context_parallel_size": 1,
            "enable_expert_parallel": False,
            "enable_eplb": False,
            "enable_elastic_ep": False,
            "data_parallel_external_lb": False,
            "data_parallel_hybrid_lb": False,
            "nnodes": 1,
            "node_rank": 0,
            "data_parallel_backend": "mp",
            "numa_bind": False,
            "logprobs_mode": "raw_logprobs",
            "enable_return_routed_experts": False,
            "kv_sharing_fast_prefill": False,
            "enable_mamba_cache_stochastic_rounding": False,
            "max_loras": 1,
            "enable_dbo": False,
            "ubatch_size": 0,
            "enforce_eager": False,
            "mamba_cache_mode": "none",
            "mamba_backend": "triton",
        },
    },
    {"versions": ">=0.27.0", "values": {"use_replayssm": False}},
    {"versions": ">=0.28.0", "values": {"return_sampling_mask": False}},
    {
        "versions": ">=0.29.0",
        "values": {"enable_trace_replay": False, "per_request_spec_decode_metrics": "none"},
    },
]
DEFAULTS.append({"versions": ">=0.20.0", "values": {"mamba_ssm_cache_dtype": "auto"}})

CC_STOCK = (
    f"(has({CC}) && {CC} != null && has({CC}.mode) && {CC}.mode != null && "
    f'string({CC}.mode).matches("^(?i)(1|stock_torch_compile)$"))'
)
SP_TP = (
    f"(has({CC}) && {CC} != null && has({CC}.pass_config) && has({CC}.pass_config.enable_sp) && "
    f"{CC}.pass_config.enable_sp == true && effective.tensor_parallel_size > 1)"
)

HYBRID_OR_ATTENTION_FREE_0_28 = [
    "BailingMoeV25ForCausalLM",
    "BailingMoeV3ForCausalLM",
    "FalconH1ForCausalLM",
    "GraniteMoeHybridForCausalLM",
    "JambaForCausalLM",
    "Lfm2ForCausalLM",
    "Lfm2MoeForCausalLM",
    "Lfm2VlForConditionalGeneration",
    "Mamba2ForCausalLM",
    "MambaForCausalLM",
    "MiniCPMV4_6ForConditionalGeneration",
    "NemotronHForCausalLM",
    "NemotronH_Nano_VL_V2",
    "OlmoHybridForCausalLM",
    "Qwen3NextForCausalLM",
    "Qwen3_5ForConditionalGeneration",
    "Qwen3_5MoeForConditionalGeneration",
    "Zamba2ForCausalLM",
    "Terratorch",
    "ColBERTLfm2Model",
]
DEFAULT_V2_0_28 = [
    "DeepseekV2ForCausalLM",
    "DeepseekV4ForCausalLM",
    "GraniteMoeForCausalLM",
    "InklingForCausalLM",
    "InklingForConditionalGeneration",
    "KimiK3ForConditionalGeneration",
    "LongcatFlashNgramForCausalLM",
    "Qwen2MoeForCausalLM",
]


def moe_key(k):
    return (
        f"(has(model.config.{k}) && model.config.{k} != null && model.config.{k} > 0) || "
        f"(has(model.config.text_config) && has(model.config.text_config.{k}) && "
        f"model.config.text_config.{k} != null && model.config.text_config.{k} > 0)"
    )


MODEL_IS_MOE = (
    "("
    + " || ".join(
        moe_key(k) for k in ("num_experts", "moe_num_experts", "n_routed_experts", "num_local_experts")
    )
    + ")"
)

DERIVED = [
    {
        "name": "model_max_len",
        "description": (
            "The max_model_len vLLM derives from config.json (ModelConfig._get_and_verify_max_len), a double"
            " as vLLM prints it (max_position_embeddings times the RoPE factor, 1.0 without one; before "
            "0.30.0 a YaRN config gives original_max_position_embeddings times its factor, from 0.30.0 the "
            "YaRN variants leave max_position_embeddings as it is). 0.0 where a profile cannot repeat the "
            "derivation: a model type not in tools/rulepack/expr.py's MAX_LEN_MODEL_TYPES, another length "
            "key, a text_config (except Llama 4's and Gemma 3's, read as vLLM reads them), per-layer RoPE, "
            "--disable-sliding-window on a model type whose sliding "
            "window transformers sets in a way expr.py does not repeat. With --disable-sliding-window, a "
            "smaller sliding window replaces max_position_embeddings. model.config already holds "
            "--hf-overrides (the product applies them, as vLLM does). A sentence-transformers checkpoint's "
            "max_seq_length (model.encoder_config) replaces the derived length, as in vLLM. The tokenizer's "
            "model_max_length (model.tokenizer_max_length) caps it for an encoder-only pooling model with "
            "absolute position embeddings, as in vLLM; for other models vLLM does not read it (needs "
            "model.config)."
        ),
        "variants": [
            {"versions": ">=0.20.0,<0.30.0", "expr": model_max_len(False)},
            {"versions": ">=0.30.0", "expr": model_max_len(True)},
        ],
    },
    {
        "name": "spec_method",
        "description": (
            "SpeculativeConfig.method after SpeculativeConfig.__post_init__: '' without a speculative "
            "config; the *_mtp aliases become 'mtp', '[ngram]' becomes 'ngram', a model of "
            "'ngram'/'[ngram]' without a method is 'ngram'. A 'draft_model' (or absent) method is refined "
            "from the draft model's own config (eagle/eagle3/dflash/dspark/medusa/mlp_speculator/mtp): it "
            "stays 'draft_model' when the draft (model.draft) is a plain causal LM, a hub id whose name "
            "has none of vLLM's method markers (eagle-, eagle3, dflash, dspark), a *ForCausalLM "
            "architecture of an ordinary model type and no speculators_config; unknown otherwise (or "
            "without the draft's config)."
        ),
        "variants": [
            {
                "versions": ">=0.20.0",
                "expr": (
                    f'!{HAS_SPEC} ? "" : '
                    f'(has({SC}.method) && {SC}.method != null && {SC}.method != "draft_model") ? '
                    f'({SC}.method.endsWith("_mtp") ? "mtp" : {SC}.method == "[ngram]" ? "ngram" : '
                    f"{SC}.method) : "
                    f'(!(has({SC}.method) && {SC}.method == "draft_model") && has({SC}.model) && '
                    f'{SC}.model in ["ngram", "[ngram]"]) ? "ngram" : '
                    f'({PLAIN_DRAFT} ? "draft_model" : {SC}.draft_model_method)'
                ),
            }
        ],
    },
    {
        "name": "is_diffusion",
        "description": (
            "ModelConfig.is_diffusion: the HF config has a non-null canvas_length (needs model.config)."
        ),
        "variants": [
            {
                "versions": ">=0.28.0",
                "expr": "has(model.config.canvas_length) && model.config.canvas_length != null",
            }
        ],
    },
    {
        "name": "model_is_moe",
        "description": (
            "ModelConfig.is_moe: num_experts / moe_num_experts / n_routed_experts / num_local_experts "
            "> 0 in the HF (text) config (needs model.config)."
        ),
        "variants": [{"versions": ">=0.20.0", "expr": MODEL_IS_MOE}],
    },
    {
        "name": "v2_unsupported",
        "description": (
            "VllmConfig._get_v2_model_runner_unsupported_features() is non-empty, as seen from "
            "_verify_sampling_replay_config (compilation mode and enable_sp count only when the "
            "user set them: their defaults are filled in later in __post_init__). No "
            "vllm.logits_processors entry-point plugins are assumed to be installed."
        ),
        "variants": [
            {
                "versions": ">=0.28.0,<0.29.0",
                "expr": " || ".join(
                    [
                        CC_STOCK,
                        SP_TP,
                        EXT_LAUNCHER_PP,
                        (
                            f'({HAS_SPEC} && !(derived.spec_method in ["eagle", "eagle3", "mtp", "dflash", '
                            f'"dspark"]))'
                        ),
                        f'({PARALLEL_DRAFTING} && !(derived.spec_method in ["dflash", "dspark"]))',
                        f"({METHOD_IS('eagle3')} && effective.pipeline_parallel_size > 1)",
                        f"({ADAPTIVE} && (has(args.enable_lora) && args.enable_lora == true))",
                        f"({ADAPTIVE} && has({CC}) && has({CC}.cudagraph_mode) && "
                        f'string({CC}.cudagraph_mode).matches("^(?i)(0|none)$"))',
                        f"({ADAPTIVE} && effective.pipeline_parallel_size > 1)",
                        "effective.enable_dbo == true",
                        "effective.enable_elastic_ep == true",
                        LOGITS_PROCS,
                        "effective.kv_sharing_fast_prefill == true",
                    ]
                ),
            },
            {
                "versions": ">=0.29.0,<0.30.0",
                "expr": " || ".join(
                    [
                        CC_STOCK,
                        SP_TP,
                        EXT_LAUNCHER_PP,
                        (
                            f'({HAS_SPEC} && !(derived.spec_method in ["eagle", "eagle3", "mtp", "dflash", '
                            f'"dspark", '
                            f'"extract_hidden_states"]))'
                        ),
                        f'({PARALLEL_DRAFTING} && !(derived.spec_method in ["dflash", "dspark"]))',
                        f"({METHOD_IS('eagle3')} && effective.pipeline_parallel_size > 1)",
                        "effective.enable_dbo == true",
                        "effective.enable_elastic_ep == true",
                        LOGITS_PROCS,
                        "effective.kv_sharing_fast_prefill == true",
                    ]
                ),
            },
            {
                "versions": ">=0.30.0,<0.31.0",
                "expr": " || ".join(
                    [
                        CC_STOCK,
                        SP_TP,
                        EXT_LAUNCHER_PP,
                        METHOD_IS(
                            "ngram",
                            "ngram_gpu",
                            "draft_model",
                            "suffix",
                            "medusa",
                            "mlp_speculator",
                            "custom_class",
                        ),
                        f'({PARALLEL_DRAFTING} && !(derived.spec_method in ["dflash", "dspark"]))',
                        UBATCHING,
                        "effective.enable_elastic_ep == true",
                        LOGITS_PROCS,
                        'effective.mamba_cache_mode == "all"',
                    ]
                ),
            },
            {
                "versions": ">=0.31.0,<0.32.0",
                "expr": " || ".join(
                    [
                        CC_STOCK,
                        SP_TP,
                        EXT_LAUNCHER_PP,
                        METHOD_IS("ngram", "ngram_gpu", "suffix", "medusa", "mlp_speculator", "custom_class"),
                        f'({PARALLEL_DRAFTING} && !(derived.spec_method in ["dflash", "dspark"]))',
                        UBATCHING,
                        "effective.enable_elastic_ep == true",
                        'effective.mamba_cache_mode == "all"',
                    ]
                ),
            },
            {
                "versions": ">=0.32.0,<0.33.0",
                "expr": " || ".join(
                    [
                        EXT_LAUNCHER_PP,
                        METHOD_IS("suffix", "medusa", "mlp_speculator", "custom_class"),
                        f'({PARALLEL_DRAFTING} && !(derived.spec_method in ["dflash", "dspark"]))',
                        spec_field_true("use_heterogeneous_vocab"),
                        UBATCHING,
                    ]
                ),
            },
            {
                "versions": ">=0.33.0,<0.34.0",
                "expr": " || ".join(
                    [
                        EXT_LAUNCHER_PP,
                        METHOD_IS("suffix", "custom_class"),
                        f'({PARALLEL_DRAFTING} && !(derived.spec_method in ["dflash", "dspark"]))',
                        spec_field_true("use_heterogeneous_vocab"),
                        UBATCHING,
                    ]
                ),
            },
        ],
    },
    {
        "name": "use_v2_model_runner",
        "description": (
            "VllmConfig.use_v2_model_runner (0.28.0-0.33.x; 0.34.0 has a single GPU model runner). 0.28.0: "
            "VLLM_USE_V2_MODEL_RUNNER if set; else V2 for prefill context parallelism, dspark, DFlash2 / "
            "mixed-attention DFlash drafts (draft-dependent: unknown) and diffusion models; else V2 only "
            "for a default-V2 model (generate runner; one of the default-V2 architectures, or a dense model "
            "that is neither hybrid nor attention-free) without V2-unsupported features. 0.29.0: the env "
            "var if set, else V2 unless a V2-unsupported feature is present. 0.30.0-0.33.x: HiSparse and "
            "watermarking force V2 first (an env of 0 with HiSparse is refused by its own rule). The ROCm "
            "V1 default (0.29.0-0.31.x) and the no-Triton fallback do not apply to the product's target "
            "(CUDA, triton installed)."
        ),
        "variants": [
            {
                "versions": ">=0.28.0,<0.29.0",
                "expr": (
                    f"has({ENV_V2}) ? int({ENV_V2}) != 0 : ("
                    "effective.prefill_context_parallel_size > 1 || "
                    f"{METHOD_IS('dspark')} || "
                    f"({METHOD_IS('dflash')} && {SC}.draft_model_architectures != null) || "
                    "derived.is_diffusion || ("
                    '(!has(args.runner) || args.runner in ["auto", "generate"]) && '
                    f"(model.architecture in {q(DEFAULT_V2_0_28)} || "
                    f"(!(model.architecture in {q(HYBRID_OR_ATTENTION_FREE_0_28)}) && "
                    f"!derived.model_is_moe)) && "
                    "!derived.v2_unsupported))"
                ),
            },
            {
                "versions": ">=0.29.0,<0.30.0",
                "expr": f"has({ENV_V2}) ? int({ENV_V2}) != 0 : !derived.v2_unsupported",
            },
            {
                "versions": ">=0.30.0,<0.34.0",
                "expr": (
                    f"{HISPARSE} || {WATERMARK} || "
                    f"(has({ENV_V2}) ? int({ENV_V2}) != 0 : !derived.v2_unsupported)"
                ),
            },
        ],
    },
]
