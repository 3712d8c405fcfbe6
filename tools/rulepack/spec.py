HEADER = """\
# Built-in rule pack of vLLM Profiles (format: validation/rulepacks/README.md).
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
#   no third-party logits-processor plugins installed. Facts that need the model read model.architecture /
#   model.config, so a profile without them gets "could not verify" rather than a guess.
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

SC = "args.speculative_config"
HAS_SPEC = f"(has({SC}) && {SC} != null)"


def spec_field_true(name):
    return f"({HAS_SPEC} && has({SC}.{name}) && {SC}.{name} == true)"


ADAPTIVE = spec_field_true("enable_adaptive_verification")
PARALLEL_DRAFTING = spec_field_true("parallel_drafting")
LOGITS_PROCS = (
    "(has(args.logits_processors) && args.logits_processors != null && size(args.logits_processors) > 0)"
)
EXT_LAUNCHER_PP = (
    '(has(args.distributed_executor_backend) && args.distributed_executor_backend == "external_launcher" '
    "&& effective.pipeline_parallel_size > 1)"
)
CC = "args.compilation_config"
CC_STOCK = (
    f"(has({CC}) && {CC} != null && has({CC}.mode) && {CC}.mode != null && "
    f'string({CC}.mode).matches("^(?i)(1|stock_torch_compile)$"))'
)
SP_TP = (
    f"(has({CC}) && {CC} != null && has({CC}.pass_config) && has({CC}.pass_config.enable_sp) && "
    f"{CC}.pass_config.enable_sp == true && effective.tensor_parallel_size > 1)"
)
UBATCHING = "(effective.enable_dbo == true || effective.ubatch_size > 1)"
ENV_V2 = "env.VLLM_USE_V2_MODEL_RUNNER"
HISPARSE = (
    "(has(args.attention_config) && has(args.attention_config.hisparse_config) && "
    "args.attention_config.hisparse_config != null)"
)
WATERMARK = "(has(args.watermark_config) && args.watermark_config != null)"


def METHOD_IS(*ms):
    return f"({HAS_SPEC} && derived.spec_method in [{', '.join(chr(34) + m + chr(34) for m in ms)}])"


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


def q(xs):
    return "[" + ", ".join(f'"{x}"' for x in xs) + "]"


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
        "name": "spec_method",
        "description": (
            "SpeculativeConfig.method after SpeculativeConfig.__post_init__: '' without a speculative "
            "config; the *_mtp aliases become 'mtp', '[ngram]' becomes 'ngram', a model of "
            "'ngram'/'[ngram]' without a method is 'ngram'. A 'draft_model' (or absent) method is refined "
            "from the draft model's own config (eagle/eagle3/dflash/dspark/medusa/mlp_speculator/mtp), so "
            "it is unknown here."
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
                    f"{SC}.draft_model_method"
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

RSM = "effective.return_sampling_mask == true"
SPLIT = "Run two deployments: a serving one and a Model Runner V2 collection one"

RULES = [
    # ---------------------------------------------------------------- sampling distribution replay (P1)
    dict(
        id="sampling-replay-requires-mrv2",
        msg="sampling distribution replay requires Model Runner V2",
        when=f"{RSM} && !derived.use_v2_model_runner",
        fields=["return_sampling_mask", "env.VLLM_USE_V2_MODEL_RUNNER", "speculative_config"],
        needs=["model.architecture", "model.config"],
        solutions=[
            "Set VLLM_USE_V2_MODEL_RUNNER=1 in the deployment's environment",
            (
                "Remove whatever keeps vLLM on the V1 model runner (e.g. ngram/suffix/medusa speculative "
                "decoding, dual batch overlap, stock torch.compile, sequence parallelism)"
            ),
            "Disable return_sampling_mask if the instance does not collect replay data",
        ],
        example_fix=(
            "# before\nVLLM_USE_V2_MODEL_RUNNER=0 vllm serve model --return-sampling-mask \\\n"
            "  --logprobs-mode processed_logprobs\n# after\n"
            "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve model --return-sampling-mask \\\n"
            "  --logprobs-mode processed_logprobs"
        ),
        docs=(
            "First check of VllmConfig._verify_sampling_replay_config (called from "
            "VllmConfig.__post_init__): returning sampling masks is implemented only by Model Runner V2. "
            "Without VLLM_USE_V2_MODEL_RUNNER, vLLM picks V1 whenever the configuration has a feature V2 "
            "does not support yet (see the derived value use_v2_model_runner), so the same flags can be "
            "accepted on one release and refused on another. Removed in 0.34.0, which has a single GPU "
            "model runner."
        ),
        tags=["sampling", "model-runner-v2"],
    ),
    dict(
        id="sampling-replay-no-speculative",
        msg="sampling distribution replay does not support speculative decoding",
        when=f"{RSM} && {HAS_SPEC}",
        fields=["return_sampling_mask", "speculative_config"],
        solutions=[
            (
                "Remove speculative decoding (drop --speculative-config) from the instance that returns "
                "sampling masks"
            ),
            (
                "Run two deployments: a speculative one for serving and a non-speculative V2 one for mask "
                "collection"
            ),
            "Upgrade to vLLM 0.32.0 or later, where only adaptive verification is refused",
            "If you only need logprobs, not the mask, disable return_sampling_mask and use "
            "logprobs_mode='processed_logprobs' instead",
        ],
        example_fix=(
            "# before\nvllm serve model --return-sampling-mask \\\n"
            '  --speculative-config \'{"method": "ngram", "num_speculative_tokens": 3}\'\n'
            "# after\nvllm serve model --return-sampling-mask"
        ),
        docs=(
            "When return_sampling_mask is enabled, VllmConfig also rejects any speculative decoding "
            "configuration: sampling-distribution replay assumes a single forward's softmax/nucleus "
            "distribution, while speculative decoding samples through draft/target accept-reject, so the "
            "returned mask would not correspond to a replayable per-token distribution. Checked after the "
            "Model Runner V2 check: where the speculative method keeps vLLM on V1 (e.g. ngram in 0.31.0 "
            "without VLLM_USE_V2_MODEL_RUNNER=1) vLLM raises the V2 message first."
        ),
        fix={"unset": ["speculative_config"]},
        tags=["sampling", "speculative-decoding"],
    ),
    dict(
        id="sampling-replay-adaptive-verification",
        msg="sampling distribution replay with speculative decoding requires fixed verification boundaries",
        when=f"{RSM} && {ADAPTIVE}",
        fields=["return_sampling_mask", "speculative_config"],
        solutions=[
            "Disable adaptive verification: remove enable_adaptive_verification from --speculative-config",
            "Remove speculative decoding from the instance that returns sampling masks",
        ],
        example_fix=(
            "# before\nvllm serve model --return-sampling-mask --logprobs-mode processed_logprobs \\\n"
            '  --speculative-config \'{"method": "dspark", "num_speculative_tokens": 7, '
            '"enable_adaptive_verification": true}\'\n# after\n'
            "vllm serve model --return-sampling-mask --logprobs-mode processed_logprobs \\\n"
            '  --speculative-config \'{"method": "dspark", "num_speculative_tokens": 7}\''
        ),
        docs=(
            "From 0.32.0 sampling-distribution replay works with speculative decoding, as long as the "
            "verification boundaries are fixed: adaptive verification trims the verified batch on the GPU, "
            "so the returned masks would not line up with replayable positions."
        ),
        tags=["sampling", "speculative-decoding"],
    ),
    dict(
        id="sampling-replay-no-diffusion",
        msg="sampling distribution replay does not support diffusion models",
        when=f"{RSM} && derived.is_diffusion",
        fields=["return_sampling_mask", "model"],
        needs=["model.config"],
        solutions=[
            "Disable return_sampling_mask for discrete-diffusion (dLLM) models",
            "Collect replay data with an autoregressive model",
        ],
        example_fix=(
            "# before\nvllm serve diffusion-model --return-sampling-mask\n# after\nvllm serve diffusion-model"
        ),
        docs=(
            "Discrete diffusion models (HF config with canvas_length) decode a canvas of positions per step; "
            "there is no single per-token sampling distribution to replay. Needs the model's config.json to "
            "verify."
        ),
        fix={"unset": ["return_sampling_mask"]},
        tags=["sampling", "diffusion"],
    ),
    dict(
        id="sampling-replay-no-custom-logits-processors",
        msg="sampling distribution replay does not support custom logits processors",
        when=f"{RSM} && {LOGITS_PROCS}",
        fields=["return_sampling_mask", "logits_processors"],
        solutions=[
            "Remove --logits-processors from the instance that returns sampling masks",
            "Run the custom logits processors on a separate serving deployment",
        ],
        example_fix=(
            "# before\nvllm serve model --return-sampling-mask --logprobs-mode processed_logprobs \\\n"
            "  --logits-processors my_pkg.MyProcessor\n# after\n"
            "vllm serve model --return-sampling-mask --logprobs-mode processed_logprobs"
        ),
        docs=(
            "Custom logits processors change the distribution in ways the replay cannot reproduce, so vLLM "
            "refuses them together with return_sampling_mask."
        ),
        fix={"unset": ["logits_processors"]},
        tags=["sampling", "logits-processors"],
    ),
    dict(
        id="sampling-replay-requires-processed-logprobs",
        msg="sampling distribution replay requires logprobs_mode='processed_logprobs'",
        when=f'{RSM} && effective.logprobs_mode != "processed_logprobs"',
        fields=["return_sampling_mask", "logprobs_mode"],
        solutions=[
            "Add --logprobs-mode processed_logprobs",
            "Disable return_sampling_mask if raw logprobs are what you need",
        ],
        example_fix=(
            "# before\nvllm serve model --return-sampling-mask\n# after\n"
            "vllm serve model --return-sampling-mask --logprobs-mode processed_logprobs"
        ),
        docs=(
            "logprobs_mode defaults to raw_logprobs, so --return-sampling-mask alone is refused: the "
            "returned logprobs must be normalized over the same nucleus as the sampling mask."
        ),
        fix={"set": {"logprobs_mode": "processed_logprobs"}},
        tags=["sampling", "logprobs"],
    ),
    dict(
        id="trace-replay-requires-mrv2",
        msg="trace replay requires Model Runner V2",
        when="effective.enable_trace_replay == true && !derived.use_v2_model_runner",
        fields=["enable_trace_replay", "env.VLLM_USE_V2_MODEL_RUNNER"],
        needs=["model.architecture", "model.config"],
        solutions=[
            "Set VLLM_USE_V2_MODEL_RUNNER=1 in the deployment's environment",
            "Remove whatever keeps vLLM on the V1 model runner",
            "Disable --enable-trace-replay",
        ],
        example_fix=(
            "# before\nVLLM_USE_V2_MODEL_RUNNER=0 vllm serve model --enable-trace-replay\n"
            "# after\nVLLM_USE_V2_MODEL_RUNNER=1 vllm serve model --enable-trace-replay"
        ),
        docs=(
            "VllmConfig._verify_trace_replay_config: trace replay is implemented only by Model Runner V2. "
            "Removed in 0.34.0."
        ),
        tags=["trace-replay", "model-runner-v2"],
    ),
]

DEFAULTS.append({"versions": ">=0.20.0", "values": {"mamba_ssm_cache_dtype": "auto"}})


def A(name):  # an argument explicitly set (not null)
    return f"(has(args.{name}) && args.{name} != null)"


def sub(obj, key):  # a key of a dict-valued argument, set and not null
    return f"(has(args.{obj}) && args.{obj} != null && has(args.{obj}.{key}) && args.{obj}.{key} != null)"


def T(name):
    return f"effective.{name} == true"


ASYNC_ON = "(has(args.async_scheduling) && args.async_scheduling == true)"
ASYNC_BAD_METHOD = METHOD_IS("ngram", "medusa", "mlp_speculator", "suffix", "custom_class")
KV_INSTANCE = (
    f"({sub('kv_transfer_config', 'kv_connector')} && {sub('kv_transfer_config', 'kv_role')} && "
    'args.kv_transfer_config.kv_role in ["kv_producer", "kv_consumer", "kv_both"])'
)
EPLB_NRE = (
    "(has(args.eplb_config) && args.eplb_config != null && has(args.eplb_config.num_redundant_experts) && "
    "args.eplb_config.num_redundant_experts != null && args.eplb_config.num_redundant_experts != 0)"
)


def R(id, msg, when, fields, solutions, docs, tags, fix=None, **kw):
    d = dict(id=id, msg=msg, when=when, fields=fields, solutions=solutions, docs=docs, tags=tags, **kw)
    if fix:
        d["fix"] = fix
    return d


RULES += [
    # ------------------------------------------------------------------ speculative / model runner
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
        "hisparse-no-pipeline-parallel",
        "HiSparse does not support pipeline parallelism.",
        f"{HISPARSE} && effective.pipeline_parallel_size > 1",
        ["attention_config", "pipeline_parallel_size"],
        ["Use tensor parallelism instead of pipeline parallelism", "Remove attention_config.hisparse_config"],
        "HiSparse sparse attention runs on a single pipeline stage.",
        ["hisparse", "parallelism"],
        fix={"unset": ["pipeline_parallel_size"]},
    ),
    R(
        "hisparse-no-decode-context-parallel",
        "HiSparse does not support decode context parallelism.",
        f"{HISPARSE} && effective.decode_context_parallel_size > 1",
        ["attention_config", "decode_context_parallel_size"],
        ["Set decode_context_parallel_size to 1", "Remove attention_config.hisparse_config"],
        "HiSparse does not shard its KV cache across decode context parallel ranks.",
        ["hisparse", "parallelism"],
        fix={"unset": ["decode_context_parallel_size"]},
    ),
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
    ),
    # ------------------------------------------------------------------ routed experts
    R(
        "routed-experts-no-pipeline-parallel",
        "--enable-return-routed-experts is incompatible with pipeline parallelism (PP > 1).",
        "effective.enable_return_routed_experts == true && effective.pipeline_parallel_size > 1",
        ["enable_return_routed_experts", "pipeline_parallel_size"],
        [
            "Use tensor/expert parallelism instead of pipeline parallelism",
            "Drop --enable-return-routed-experts",
        ],
        "Routed-expert capture is indexed per KV slot on one pipeline stage.",
        ["moe", "parallelism"],
    ),
    R(
        "routed-experts-no-context-parallel-0.28",
        "--enable-return-routed-experts is incompatible with context parallelism (DCP > 1 or PCP > 1).",
        "effective.enable_return_routed_experts == true && "
        "(effective.decode_context_parallel_size > 1 || effective.prefill_context_parallel_size > 1)",
        ["enable_return_routed_experts", "decode_context_parallel_size", "prefill_context_parallel_size"],
        ["Set decode/prefill context parallel size to 1", "Drop --enable-return-routed-experts"],
        "Context parallelism shards the KV slots the routed-experts buffer is indexed by.",
        ["moe", "parallelism"],
    ),
    R(
        "routed-experts-no-context-parallel",
        "--enable-return-routed-experts is incompatible with context parallelism (DCP/PCP > 1).",
        "effective.enable_return_routed_experts == true && "
        "(effective.decode_context_parallel_size > 1 || effective.prefill_context_parallel_size > 1)",
        ["enable_return_routed_experts", "decode_context_parallel_size", "prefill_context_parallel_size"],
        ["Set decode/prefill context parallel size to 1", "Drop --enable-return-routed-experts"],
        "Same check as 0.28.0-0.30.x with a shorter message (now part of the AuxOutput checks).",
        ["moe", "parallelism"],
    ),
    R(
        "routed-experts-no-kv-connector",
        (
            "--enable-return-routed-experts is incompatible with KV connectors (PD disaggregation, KV cache "
            "offload)."
        ),
        f"effective.enable_return_routed_experts == true && {KV_INSTANCE}",
        ["enable_return_routed_experts", "kv_transfer_config"],
        [
            "Drop --kv-transfer-config on the instance that returns routed experts",
            "Drop --enable-return-routed-experts",
        ],
        (
            "Routing captured on a prefill instance cannot reach the decode instance, and offloaded KV "
            "blocks break the slot-indexed routed-experts buffer."
        ),
        ["moe", "kv-transfer"],
    ),
    R(
        "routed-experts-vs-adaptive-verification",
        "--enable-return-routed-experts is incompatible with adaptive speculative verification.",
        f"effective.enable_return_routed_experts == true && {ADAPTIVE}",
        ["enable_return_routed_experts", "speculative_config"],
        ["Disable adaptive verification", "Drop --enable-return-routed-experts"],
        "Adaptive verification trims the batch on the GPU, so captured routing would not line up.",
        ["moe", "speculative-decoding"],
    ),
    # ------------------------------------------------------------------ mamba
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
    # ------------------------------------------------------------------ parallelism
    R(
        "dp-size-local-le-dp-size",
        "data_parallel_size_local ({self.data_parallel_size_local}) must be <=",
        f"{A('data_parallel_size_local')} && args.data_parallel_size_local > effective.data_parallel_size",
        ["data_parallel_size_local", "data_parallel_size"],
        ["Lower --data-parallel-size-local to at most --data-parallel-size"],
        "ParallelConfig: the ranks on this node cannot exceed the total number of data-parallel ranks.",
        ["parallelism", "data-parallel"],
    ),
    R(
        "external-lb-requires-dp",
        "data_parallel_external_lb can only be set when data_parallel_size > 1",
        "effective.data_parallel_external_lb == true && effective.data_parallel_size <= 1",
        ["data_parallel_external_lb", "data_parallel_size"],
        ["Remove --data-parallel-external-lb", "Set --data-parallel-size above 1"],
        "External load balancing only makes sense across several data-parallel ranks.",
        ["parallelism", "data-parallel"],
        fix={"unset": ["data_parallel_external_lb"]},
    ),
    R(
        "eplb-requires-expert-parallel",
        "enable_expert_parallel must be True to use EPLB.",
        "effective.enable_eplb == true && effective.enable_expert_parallel != true",
        ["enable_eplb", "enable_expert_parallel"],
        ["Add --enable-expert-parallel", "Drop --enable-eplb"],
        "Expert-parallel load balancing moves experts between expert-parallel ranks.",
        ["moe", "eplb"],
        fix={"set": {"enable_expert_parallel": True}},
    ),
    R(
        "eplb-requires-parallelism-0.20",
        "EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1",
        "effective.enable_eplb == true && effective.tensor_parallel_size * effective.data_parallel_size <= 1",
        ["enable_eplb", "tensor_parallel_size", "data_parallel_size"],
        ["Use tensor or data parallelism greater than 1", "Drop --enable-eplb"],
        "With a single rank there is nothing to balance.",
        ["moe", "eplb"],
    ),
    R(
        "eplb-requires-parallelism",
        "EPLB requires tensor, prefill-context, or data parallelism",
        (
            "effective.enable_eplb == true && effective.tensor_parallel_size * "
            "effective.prefill_context_parallel_size "
            "* effective.data_parallel_size <= 1"
        ),
        ["enable_eplb", "tensor_parallel_size", "prefill_context_parallel_size", "data_parallel_size"],
        ["Use tensor, prefill-context or data parallelism greater than 1", "Drop --enable-eplb"],
        "With a single rank there is nothing to balance (0.26.0 also counts prefill context parallelism).",
        ["moe", "eplb"],
    ),
    R(
        "redundant-experts-require-eplb",
        "num_redundant_experts is set to {self.eplb_config.num_redundant_experts}",
        f"effective.enable_eplb != true && {EPLB_NRE}",
        ["eplb_config", "enable_eplb"],
        ["Add --enable-eplb", "Remove eplb_config.num_redundant_experts"],
        "Redundant experts are an EPLB feature.",
        ["moe", "eplb"],
    ),
    R(
        "pcp-vs-data-parallel",
        "PCP does not support data parallelism yet.",
        "effective.prefill_context_parallel_size > 1 && effective.data_parallel_size > 1",
        ["prefill_context_parallel_size", "data_parallel_size"],
        ["Use either prefill context parallelism or data parallelism"],
        "0.26.0-0.29.x: prefill context parallelism cannot be combined with data parallelism.",
        ["parallelism"],
    ),
    R(
        "tp-divisible-by-dcp-0.20",
        "must be divisible bydcp_size=",
        "effective.tensor_parallel_size % effective.decode_context_parallel_size != 0",
        ["tensor_parallel_size", "decode_context_parallel_size"],
        ["Choose a decode_context_parallel_size that divides tensor_parallel_size"],
        "Decode context parallel groups are carved out of the tensor parallel group. (vLLM's message lacks a "
        "space: 'bydcp_size'.)",
        ["parallelism"],
    ),
    R(
        "tp-divisible-by-dcp",
        "tp_size={tp} must be divisible by dcp_size={dcp}.",
        "effective.prefill_context_parallel_size == 1 && "
        "effective.tensor_parallel_size % effective.decode_context_parallel_size != 0",
        ["tensor_parallel_size", "decode_context_parallel_size"],
        ["Choose a decode_context_parallel_size that divides tensor_parallel_size"],
        "Decode context parallel groups are carved out of the tensor parallel group (checked when PCP is 1).",
        ["parallelism"],
    ),
    R(
        "elastic-ep-requires-eplb",
        "Elastic EP is only supported with enable_eplb=True.",
        "effective.enable_elastic_ep == true && effective.enable_eplb != true",
        ["enable_elastic_ep", "enable_eplb"],
        ["Add --enable-eplb", "Drop --enable-elastic-ep"],
        "Elastic EP rebalances experts through EPLB.",
        ["moe", "elastic-ep"],
        fix={"set": {"enable_eplb": True}},
    ),
    R(
        "elastic-ep-no-pipeline-parallel",
        "Elastic EP is not supported with pipeline parallelism",
        "effective.enable_elastic_ep == true && effective.pipeline_parallel_size > 1",
        ["enable_elastic_ep", "pipeline_parallel_size"],
        ["Set pipeline_parallel_size to 1", "Drop --enable-elastic-ep"],
        "Elastic EP scales data-parallel ranks only.",
        ["moe", "elastic-ep"],
    ),
    R(
        "elastic-ep-vs-external-or-hybrid-lb",
        "Elastic EP is not compatible with data_parallel_external_lb or data_parallel_hybrid_lb.",
        "effective.enable_elastic_ep == true && "
        "(effective.data_parallel_external_lb == true || effective.data_parallel_hybrid_lb == true)",
        ["enable_elastic_ep", "data_parallel_external_lb", "data_parallel_hybrid_lb"],
        ["Use internal data-parallel load balancing", "Drop --enable-elastic-ep"],
        "Elastic EP relies on a single API server and core client to coordinate scale up/down.",
        ["moe", "elastic-ep"],
    ),
    R(
        "elastic-ep-vs-hybrid-lb",
        "Elastic EP is not compatible with data_parallel_hybrid_lb.",
        "effective.enable_elastic_ep == true && effective.data_parallel_hybrid_lb == true",
        ["enable_elastic_ep", "data_parallel_hybrid_lb"],
        ["Use internal or external data-parallel load balancing", "Drop --enable-elastic-ep"],
        "From 0.33.0 external load balancing is allowed with Elastic EP; hybrid is not.",
        ["moe", "elastic-ep"],
    ),
    R(
        "nnodes-requires-mp-executor",
        "nnodes > 1 can only be set when distributed executor backend is mp",
        f"effective.nnodes > 1 && {A('distributed_executor_backend')} && "
        '!(args.distributed_executor_backend in ["mp", "uni", "external_launcher"])',
        ["nnodes", "distributed_executor_backend"],
        ["Use --distributed-executor-backend mp", "Use Ray's own multi-node placement instead of --nnodes"],
        "vLLM's --nnodes launch is implemented by the multiprocessing executor.",
        ["parallelism", "multi-node"],
    ),
    R(
        "async-eplb-default-policy",
        "Async EPLB is only supported with the default policy.",
        f"{sub('eplb_config', 'use_async')} && args.eplb_config.use_async == true && "
        f'{sub("eplb_config", "policy")} && args.eplb_config.policy != "default"',
        ["eplb_config"],
        ["Remove eplb_config.policy", "Set eplb_config.use_async to false"],
        "EPLBConfig validator.",
        ["moe", "eplb"],
    ),
    R(
        "numa-bind-lists-require-numa-bind",
        "numa_bind_nodes and numa_bind_cpus require numa_bind=True.",
        f"effective.numa_bind != true && ({A('numa_bind_nodes')} || {A('numa_bind_cpus')})",
        ["numa_bind", "numa_bind_nodes", "numa_bind_cpus"],
        ["Add --numa-bind", "Remove --numa-bind-nodes / --numa-bind-cpus"],
        "NUMA node/CPU lists only apply when NUMA binding is on.",
        ["numa"],
        fix={"set": {"numa_bind": True}},
    ),
    R(
        "elastic-ep-max-dp-size-ge-dp-size",
        "--elastic-ep-max-dp-size must be greater than or equal to",
        f"effective.enable_elastic_ep == true && {A('elastic_ep_max_dp_size')} && "
        "args.elastic_ep_max_dp_size < effective.data_parallel_size",
        ["elastic_ep_max_dp_size", "data_parallel_size"],
        ["Set --elastic-ep-max-dp-size to at least --data-parallel-size"],
        "The elastic maximum cannot be below the initial data-parallel size.",
        ["moe", "elastic-ep"],
    ),
    # ------------------------------------------------------------------ data-parallel launch (arg_utils)
    R(
        "dp-hybrid-vs-external-lb",
        "`--data-parallel-hybrid-lb` and `--data-parallel-external-lb` cannot",
        "effective.data_parallel_hybrid_lb == true && effective.data_parallel_external_lb == true",
        ["data_parallel_hybrid_lb", "data_parallel_external_lb"],
        ["Enable only one load-balancing mode"],
        "EngineArgs data-parallel launch checks.",
        ["data-parallel"],
    ),
    R(
        "nnodes-requires-mp-dp-backend",
        "requires `--data-parallel-backend mp`",
        'effective.nnodes > 1 && effective.data_parallel_backend != "mp"',
        ["nnodes", "data_parallel_backend"],
        ["Use --data-parallel-backend mp", "Set --nnodes 1"],
        "--nnodes launches are implemented for the MP data-parallel backend.",
        ["data-parallel", "multi-node"],
        fix={"set": {"data_parallel_backend": "mp"}},
    ),
    R(
        "nnodes-must-divide-world-size-0.27",
        "or `--tensor-parallel-size`.",
        "effective.nnodes > 1 && (effective.data_parallel_size * effective.pipeline_parallel_size * "
        "effective.tensor_parallel_size) % effective.nnodes != 0",
        ["nnodes", "data_parallel_size", "pipeline_parallel_size", "tensor_parallel_size"],
        ["Adjust --nnodes or the parallel sizes so that nnodes divides DP x PP x TP"],
        "World size here is DP x PP x TP.",
        ["data-parallel", "multi-node"],
    ),
    R(
        "nnodes-must-divide-world-size",
        "or `--prefill-context-parallel-size`.",
        "effective.nnodes > 1 && (effective.data_parallel_size * effective.pipeline_parallel_size * "
        "effective.tensor_parallel_size * effective.prefill_context_parallel_size) % effective.nnodes != 0",
        [
            "nnodes",
            "data_parallel_size",
            "pipeline_parallel_size",
            "tensor_parallel_size",
            "prefill_context_parallel_size",
        ],
        ["Adjust --nnodes or the parallel sizes so that nnodes divides DP x PP x TP x PCP"],
        "World size here is DP x PP x TP x PCP.",
        ["data-parallel", "multi-node"],
    ),
    R(
        "node-rank-in-range",
        "`--node-rank` must be between 0 and",
        "effective.nnodes > 1 && (effective.node_rank < 0 || effective.node_rank >= effective.nnodes)",
        ["node_rank", "nnodes"],
        ["Set --node-rank to this node's zero-based index, below --nnodes"],
        "Checked only for multi-node launches.",
        ["data-parallel", "multi-node"],
    ),
    # -------------------------------------------------------------- argument pairs given twice (arg_utils)
    R(
        "attention-backend-set-twice",
        "attention_backend and attention_config.backend are mutually exclusive",
        f"{A('attention_backend')} && {sub('attention_config', 'backend')}",
        ["attention_backend", "attention_config"],
        ["Give the attention backend once: --attention-backend or --attention-config.backend"],
        "EngineArgs.create_engine_config.",
        ["arguments"],
    ),
    R(
        "cudagraph-capture-sizes-set-twice",
        "cudagraph_capture_sizes and compilation_config.cudagraph_capture_sizes are mutually exclusive",
        f"{A('cudagraph_capture_sizes')} && {sub('compilation_config', 'cudagraph_capture_sizes')}",
        ["cudagraph_capture_sizes", "compilation_config"],
        ["Give the capture sizes once"],
        "EngineArgs.create_engine_config.",
        ["arguments", "cudagraph"],
    ),
    R(
        "max-cudagraph-capture-size-set-twice",
        "max_cudagraph_capture_size and compilation_config.max_cudagraph_capture_size are mutually exclusive",
        f"{A('max_cudagraph_capture_size')} && {sub('compilation_config', 'max_cudagraph_capture_size')}",
        ["max_cudagraph_capture_size", "compilation_config"],
        ["Give the maximum capture size once"],
        "EngineArgs.create_engine_config.",
        ["arguments", "cudagraph"],
    ),
    R(
        "flashinfer-autotune-set-twice",
        "enable_flashinfer_autotune and kernel_config.enable_flashinfer_autotune are mutually exclusive",
        f"{A('enable_flashinfer_autotune')} && {sub('kernel_config', 'enable_flashinfer_autotune')}",
        ["enable_flashinfer_autotune", "kernel_config"],
        ["Give the FlashInfer autotune setting once"],
        "EngineArgs.create_engine_config.",
        ["arguments"],
    ),
    # ------------------------------------------------------------------ scheduler / lora / observability / kv
    R(
        "max-batched-tokens-ge-max-num-seqs",
        "must be greater than or equal to max_num_seqs ({self.max_num_seqs}).",
        (
            f"{A('max_num_batched_tokens')} && {A('max_num_seqs')} && args.max_num_batched_tokens < "
            f"args.max_num_seqs"
        ),
        ["max_num_batched_tokens", "max_num_seqs"],
        ["Raise --max-num-batched-tokens to at least --max-num-seqs", "Lower --max-num-seqs"],
        "Every scheduled sequence needs at least one token of the batch budget.",
        ["scheduler"],
    ),
    R(
        "max-num-active-seqs-le-max-num-seqs",
        "max_num_active_seqs ({self.max_num_active_seqs}) cannot be greater",
        f"{A('max_num_active_seqs')} && {A('max_num_seqs')} && args.max_num_active_seqs > args.max_num_seqs",
        ["max_num_active_seqs", "max_num_seqs"],
        ["Lower --max-num-active-seqs to at most --max-num-seqs"],
        "SchedulerConfig (explicitly set max_num_seqs only; its default depends on the hardware).",
        ["scheduler"],
    ),
    R(
        "partial-prefills-require-chunked-prefill",
        "Chunked prefill must be enabled to set max_num_partial_prefills > 1.",
        f"{A('max_num_partial_prefills')} && args.max_num_partial_prefills > 1 && "
        "has(args.enable_chunked_prefill) && args.enable_chunked_prefill == false",
        ["max_num_partial_prefills", "enable_chunked_prefill"],
        ["Enable chunked prefill", "Set --max-num-partial-prefills 1"],
        (
            "Concurrent partial prefills are a chunked-prefill feature (explicitly disabled chunked prefill "
            "only)."
        ),
        ["scheduler"],
    ),
    R(
        "max-cpu-loras-ge-max-loras",
        "max_cpu_loras ({self.max_cpu_loras}) must be >= max_loras",
        (
            f"(has(args.enable_lora) && args.enable_lora == true) && {A('max_cpu_loras')} && "
            f"args.max_cpu_loras < effective.max_loras"
        ),
        ["max_cpu_loras", "max_loras"],
        ["Raise --max-cpu-loras to at least --max-loras"],
        "LoRAConfig: the CPU LoRA cache must hold every GPU-resident adapter.",
        ["lora"],
    ),
    R(
        "detailed-traces-require-otlp-endpoint",
        "collect_detailed_traces requires `--otlp-traces-endpoint`",
        (
            f"{A('collect_detailed_traces')} && size(args.collect_detailed_traces) > 0 && "
            f"!{A('otlp_traces_endpoint')}"
        ),
        ["collect_detailed_traces", "otlp_traces_endpoint"],
        ["Add --otlp-traces-endpoint", "Remove --collect-detailed-traces"],
        "Detailed traces are exported over OTLP.",
        ["observability"],
    ),
    R(
        "kv-connector-requires-kv-role",
        "Please specify kv_role when kv_connector is set",
        f"{sub('kv_transfer_config', 'kv_connector')} && !{sub('kv_transfer_config', 'kv_role')}",
        ["kv_transfer_config"],
        ["Set kv_role (kv_producer, kv_consumer or kv_both) in --kv-transfer-config"],
        "KVTransferConfig.",
        ["kv-transfer"],
    ),
]

RULES += [
    dict(
        id="policy-collection-nothing-replayable",
        category="policy",
        severity="warning",
        message=(
            "collection profile returns neither sampling masks nor processed logprobs, "
            "so it collects nothing replayable"
        ),
        when=(
            'kind == "collection" && !(has(effective.return_sampling_mask) && '
            "effective.return_sampling_mask == true) "
            '&& effective.logprobs_mode != "processed_logprobs"'
        ),
        kinds=["collection"],
        fields=["return_sampling_mask", "logprobs_mode"],
        solutions=[
            "Add --return-sampling-mask --logprobs-mode processed_logprobs (vLLM 0.28.0 or later)",
            "At least add --logprobs-mode processed_logprobs",
            "If the profile is not for data collection, make it a serving profile",
        ],
        example_fix=(
            "# before\nvllm serve model\n# after\n"
            "vllm serve model --return-sampling-mask --logprobs-mode processed_logprobs"
        ),
        docs=(
            "Organisation policy: a data-collection deployment exists to record replayable sampling data: "
            "sampling masks (return_sampling_mask, vLLM 0.28.0+) or logprobs normalized over the sampled "
            "nucleus (logprobs_mode=processed_logprobs). vLLM's default raw_logprobs are neither."
        ),
        fix={"set": {"logprobs_mode": "processed_logprobs"}},
        tags=["policy", "sampling", "collection"],
    ),
    dict(
        id="policy-serving-returns-sampling-mask",
        category="policy",
        severity="warning",
        message=(
            "serving profile returns sampling masks: production traffic pays for collection; "
            "split collection into its own profile"
        ),
        when='kind == "serving" && effective.return_sampling_mask == true',
        versions=">=0.28.0",
        kinds=["serving"],
        fields=["return_sampling_mask"],
        solutions=[
            "Remove --return-sampling-mask from the serving profile",
            "Create a separate collection profile (kind: collection) that returns sampling masks",
        ],
        example_fix=(
            "# serving profile\nvllm serve model\n# collection profile\n"
            "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve model --return-sampling-mask "
            "--logprobs-mode processed_logprobs"
        ),
        docs=(
            "Organisation policy: returning sampling masks forces Model Runner V2, processed logprobs and no "
            "custom logits processors, and adds per-token output; serving instances should not carry "
            "collection overhead. Split serving and collection into separate deployment profiles."
        ),
        fix={"unset": ["return_sampling_mask"]},
        tags=["policy", "sampling", "serving"],
    ),
    dict(
        id="policy-collection-no-speculative",
        category="policy",
        severity="warning",
        message=(
            "collection profile uses speculative decoding; keep data-collection instances free of "
            "speculative decoding"
        ),
        when=f'kind == "collection" && {HAS_SPEC}',
        kinds=["collection"],
        fields=["speculative_config"],
        solutions=[
            "Remove --speculative-config from the collection profile",
            "Use a separate serving profile for speculative decoding",
        ],
        example_fix=(
            "# before\nvllm serve model --return-sampling-mask --logprobs-mode processed_logprobs \\\n"
            '  --speculative-config \'{"method": "ngram", "num_speculative_tokens": 3}\'\n'
            "# after\nvllm serve model --return-sampling-mask --logprobs-mode processed_logprobs"
        ),
        docs=(
            "Organisation policy, from the prevention advice of vLLM's sampling-replay error record: keep "
            "data-collection (mask-returning) instances free of speculative decoding, even on releases "
            "(0.32.0+) where vLLM accepts it with fixed verification boundaries."
        ),
        fix={"unset": ["speculative_config"]},
        tags=["policy", "speculative-decoding", "collection"],
    ),
]

HEADS = (
    "(has(model.config.text_config) && has(model.config.text_config.num_attention_heads) ? "
    "model.config.text_config.num_attention_heads : model.config.num_attention_heads)"
)
EXTERNAL_LB = f"(effective.data_parallel_external_lb == true || {A('data_parallel_rank')})"
CUSTOM_OPS = "args.compilation_config.custom_ops"
RULES += [
    R(
        "tp-must-divide-attention-heads",
        "Total number of attention heads ({total_num_attention_heads}) must be",
        f"effective.tensor_parallel_size > 1 && {HEADS} % effective.tensor_parallel_size != 0",
        ["tensor_parallel_size", "model"],
        [
            "Choose a tensor_parallel_size that divides the model's number of attention heads",
            "Combine a smaller tensor_parallel_size with pipeline_parallel_size",
        ],
        (
            "ModelConfig.verify_with_parallel_config: attention heads are split evenly across "
            "tensor-parallel ranks. Reads num_attention_heads from the model's config.json (text_config for "
            "multimodal models); models whose head count lives under another key are not modelled."
        ),
        ["parallelism", "model"],
        needs=["model.config"],
    ),
    R(
        "expert-parallel-requires-moe",
        "Number of experts in the model must be greater than 0 when expert",
        "effective.enable_expert_parallel == true && !derived.model_is_moe",
        ["enable_expert_parallel", "model"],
        ["Remove --enable-expert-parallel for dense models"],
        "ModelConfig._verify_with_expert_parallelism: expert parallelism needs a mixture-of-experts model.",
        ["moe", "model"],
        needs=["model.config"],
        fix={"unset": ["enable_expert_parallel"]},
    ),
    R(
        "external-dp-requires-moe",
        "Non-MoE models do not support external data parallel mode.",
        f"effective.data_parallel_size > 1 && {EXTERNAL_LB} && !derived.model_is_moe",
        ["data_parallel_size", "data_parallel_external_lb", "data_parallel_rank", "model"],
        ["Launch independent vLLM instances without --data-parallel-* arguments behind your load balancer"],
        (
            "External load balancing (--data-parallel-external-lb or --data-parallel-rank) coordinates MoE "
            "waves; dense models should run as independent instances."
        ),
        ["data-parallel", "model"],
        needs=["model.config"],
    ),
    R(
        "kv-role-unsupported",
        "Unsupported kv_role: {self.kv_role}.",
        f"{sub('kv_transfer_config', 'kv_role')} && "
        '!(args.kv_transfer_config.kv_role in ["kv_producer", "kv_consumer", "kv_both"])',
        ["kv_transfer_config"],
        ["Use kv_role kv_producer, kv_consumer or kv_both"],
        "KVTransferConfig.",
        ["kv-transfer"],
    ),
    R(
        "max-batched-tokens-below-max-model-len",
        "is smaller than max_model_len ({max_model_len}).",
        f"{A('max_num_batched_tokens')} && {A('max_model_len')} && has(args.enable_chunked_prefill) && "
        "args.enable_chunked_prefill == false && args.max_num_batched_tokens < args.max_model_len",
        ["max_num_batched_tokens", "max_model_len", "enable_chunked_prefill"],
        [
            "Raise --max-num-batched-tokens to at least --max-model-len",
            "Enable chunked prefill",
            "Lower --max-model-len",
        ],
        (
            "Without chunked prefill a prompt must fit in one batch (checked here for an explicit "
            "max_model_len)."
        ),
        ["scheduler"],
    ),
    R(
        "long-prefill-threshold-gt-max-model-len",
        "long_prefill_token_threshold ({self.long_prefill_token_threshold})",
        f"{A('long_prefill_token_threshold')} && {A('max_model_len')} && "
        "args.long_prefill_token_threshold > args.max_model_len",
        ["long_prefill_token_threshold", "max_model_len"],
        ["Lower --long-prefill-token-threshold to at most --max-model-len"],
        "SchedulerConfig (checked here for an explicit max_model_len).",
        ["scheduler"],
    ),
    R(
        "custom-ops-syntax",
        "Invalid syntax '{op}' for custom op,",
        f'{sub("compilation_config", "custom_ops")} && {CUSTOM_OPS}.exists(op, !(op in ["all", "none"]) && '
        '(size(op) < 2 || !(op.startsWith("+") || op.startsWith("-"))))',
        ["compilation_config"],
        ["Write each custom op as 'all', 'none', '+op' or '-op'"],
        "CompilationConfig.",
        ["compilation"],
    ),
    R(
        "custom-ops-one-base-mode",
        "custom_ops can contain only one base mode: 'all' or 'none'",
        (
            f'{sub("compilation_config", "custom_ops")} && size({CUSTOM_OPS}.filter(op, op in ["all", '
            f'"none"])) > 1'
        ),
        ["compilation_config"],
        ["Keep one of 'all' / 'none' in custom_ops"],
        "CompilationConfig.",
        ["compilation"],
    ),
    R(
        "eplb-log-balancedness-interval-positive",
        "log_balancedness_interval must be greater than 0.",
        (
            f"{sub('eplb_config', 'log_balancedness')} && args.eplb_config.log_balancedness == true && "
            f"{sub('eplb_config', 'log_balancedness_interval')} && "
            f"args.eplb_config.log_balancedness_interval <= 0"
        ),
        ["eplb_config"],
        ["Set eplb_config.log_balancedness_interval to 1 or more"],
        "EPLBConfig validator.",
        ["moe", "eplb"],
    ),
]
