"""Field checks of the config classes vLLM builds from the arguments: compilation_config values, NUMA
CPU lists, pooler_config, prefetch offloading, custom histogram buckets, the Proton profiler, Engram."""

from tools.rulepack.coverage_expr import AV, templated
from tools.rulepack.expr import IDX, A, R, q, sub, subv

CC = "args.compilation_config"
MM_ENC = f"({sub('compilation_config', 'cudagraph_mm_encoder')} && {CC}.cudagraph_mm_encoder == true)"
MODES = "NONE, STOCK_TORCH_COMPILE, DYNAMO_TRACE_ONCE, VLLM_COMPILE"
PC = "args.pooler_config"
PROF = subv("profiler_config", "profiler", "null")
PRC = "args.profiler_config"
PROTON_DIR = f'({sub("profiler_config", "proton_profiler_dir")} && {PRC}.proton_profiler_dir != "")'

OFF_BACKEND = AV("offload_backend", '"auto"')
OFF_GROUP = AV("offload_group_size", "0")
OFF_NUM = AV("offload_num_in_group", "1")
OFF_STEP = AV("offload_prefetch_step", "1")
OFF_ON = f'({OFF_BACKEND} == "prefetch" || {OFF_GROUP} > 0)'

HB = "args.custom_histogram_buckets"
FAMILIES = [
    "inter_token_latency",
    "iteration_tokens",
    "kv_cache_residency",
    "request_latency",
    "request_num_preemptions",
    "request_params_n",
    "request_tokens",
    "time_to_first_token",
]
FAMILIES_PY = "[" + ", ".join(f"'{f}'" for f in FAMILIES) + "]"
HB_LIST = f"type({HB}[f]) == list"
HB_BOOL = f"({HB_LIST} && {HB}[f].exists(b, type(b) == bool))"
HB_UNKNOWN = f"!(f in {q(FAMILIES)})"
HB_EMPTY = f"({HB_LIST} && size({HB}[f]) == 0)"
HB_BAD = "(type(b) != bool && double(b) <= 0.0)"
HB_NONPOS = f"({HB_LIST} && {HB}[f].exists(b, {HB_BAD}))"
HB_NOT_INC = (
    f"({HB_LIST} && !{HB}[f].exists(b, {HB_BAD}) && "
    f"{IDX}.exists(i, i < size({HB}[f]) && double({HB}[f][i - 1]) >= double({HB}[f][i])))"
)


def hb_first(cond):
    return f"{HB}.filter(f, {cond})[0]"


NONPOS_FAMILY = hb_first("!" + HB_UNKNOWN + " && " + HB_NONPOS)


EC = "args.engram_config"
ENGRAM_FIELDS = (
    '{"DeepseekV41ForCausalLM": "engram_layer_ids", "Qwen4ExpForCausalLM": "ple_layer_ids", '
    '"Qwen4ExpForConditionalGeneration": "ple_layer_ids"}'
)
_F = f"{ENGRAM_FIELDS}[model.architecture]"


def _has_list(cfg):
    return f"({_F} in {cfg} && {cfg}[{_F}] != null && size({cfg}[{_F}]) > 0)"


# The model carries Engram n-gram layers (ModelConfig.hf_text_config: the config, or its text_config). Either
# place counts, so a rule refusing a model without them never refuses one vLLM accepts.
MODEL_HAS_ENGRAM = (
    f"(model.architecture in {ENGRAM_FIELDS} && ({_has_list('model.config')} || "
    f'("text_config" in model.config && {_has_list("model.config.text_config")})))'
)
DP = AV("data_parallel_size", "1")
ELASTIC = f"({A('enable_elastic_ep')} && args.enable_elastic_ep == true)"

RULES = [
    # ------------------------------------------------------------------ compilation_config values
    R(
        "cc-invalid-mode",
        "Invalid compilation mode: {value}. Valid modes are:",
        f"{sub('compilation_config', 'mode')} && type({CC}.mode) == string && "
        f'!{CC}.mode.matches("^(?i)(NONE|STOCK_TORCH_COMPILE|DYNAMO_TRACE_ONCE|VLLM_COMPILE)$")',
        ["compilation_config"],
        [
            f"Give compilation_config.mode as one of {MODES} (or 0-3)",
            "Remove compilation_config.mode to let vLLM choose",
        ],
        "CompilationConfig.validate_mode_before: a mode given as a string must name a CompilationMode "
        "member (case-insensitive).",
        ["compilation"],
        message_template=f"Invalid compilation mode: {{{{ {CC}.mode }}}}. Valid modes are: {MODES}",
        fix={"unset": ["compilation_config.mode"]},
    ),
    R(
        "cc-piecewise-backend",
        "Invalid backend for piecewise compilation: {self.backend}",
        f'{sub("compilation_config", "mode")} && string({CC}.mode).matches("^(?i)(3|vllm_compile)$") && '
        f'{sub("compilation_config", "backend")} && !({CC}.backend in ["", "eager", "inductor"])',
        ["compilation_config"],
        [
            "Use compilation_config.backend 'inductor' or 'eager' with mode VLLM_COMPILE",
            "Choose another compilation mode for a custom backend",
        ],
        "CompilationConfig.__post_init__: piecewise compilation (mode VLLM_COMPILE, set explicitly) supports "
        "only the eager and inductor backends. A mode left unset is chosen later, after this check.",
        ["compilation"],
        message_template=f"Invalid backend for piecewise compilation: {{{{ {CC}.backend }}}}",
        fix={"set": {"compilation_config.backend": "inductor"}},
    ),
    R(
        "cc-encoder-max-vision-items-non-negative",
        "encoder_cudagraph_max_vision_items_per_batch must be non-negative (0 = auto-infer)",
        f"{MM_ENC} && {sub('compilation_config', 'encoder_cudagraph_max_vision_items_per_batch')} && "
        f"{CC}.encoder_cudagraph_max_vision_items_per_batch < 0",
        ["compilation_config"],
        ["Set encoder_cudagraph_max_vision_items_per_batch to 0 (auto) or a positive number"],
        "CompilationConfig.__post_init__, checked when cudagraph_mm_encoder is on.",
        ["compilation"],
        fix={"set": {"compilation_config.encoder_cudagraph_max_vision_items_per_batch": 0}},
    ),
    R(
        "cc-encoder-max-frames-non-negative",
        "encoder_cudagraph_max_frames_per_batch must be non-negative (None = auto-infer)",
        f"{MM_ENC} && {sub('compilation_config', 'encoder_cudagraph_max_frames_per_batch')} && "
        f"{CC}.encoder_cudagraph_max_frames_per_batch < 0",
        ["compilation_config"],
        ["Remove encoder_cudagraph_max_frames_per_batch (auto) or give a positive number"],
        "CompilationConfig.__post_init__, checked when cudagraph_mm_encoder is on.",
        ["compilation"],
        fix={"unset": ["compilation_config.encoder_cudagraph_max_frames_per_batch"]},
    ),
    R(
        "cc-decoder-replay-sizes-positive",
        "All decoder_replay_cudagraph_capture_sizes must be positive",
        f"{sub('compilation_config', 'decoder_replay_cudagraph_capture_sizes')} && "
        f"{CC}.decoder_replay_cudagraph_capture_sizes.exists(s, s <= 0)",
        ["compilation_config"],
        ["Give only positive decoder_replay_cudagraph_capture_sizes"],
        "CompilationConfig.__post_init__.",
        ["compilation"],
    ),
    R(
        "cc-encoder-max-token-budget-positive",
        "encoder_cudagraph_max_token_budget must be positive (None = no limit), got",
        f"{sub('compilation_config', 'encoder_cudagraph_max_token_budget')} && "
        f"{CC}.encoder_cudagraph_max_token_budget <= 0",
        ["compilation_config"],
        ["Give a positive encoder_cudagraph_max_token_budget, or null for no limit"],
        "CompilationConfig.__post_init__ (whether or not cudagraph_mm_encoder is on).",
        ["compilation"],
        message_template=(
            "encoder_cudagraph_max_token_budget must be positive (None = no limit), got "
            f"{{{{ {CC}.encoder_cudagraph_max_token_budget }}}}"
        ),
    ),
    # ------------------------------------------------------------------ NUMA CPU lists
    R(
        "numa-bind-cpus-not-empty",
        "numa_bind_cpus must not be empty.",
        f"{A('numa_bind_cpus')} && size(args.numa_bind_cpus) == 0",
        ["numa_bind_cpus"],
        ["List at least one CPU set, or remove --numa-bind-cpus"],
        "ParallelConfig field validator.",
        ["numa"],
        fix={"unset": ["numa_bind_cpus"]},
    ),
    R(
        "numa-bind-cpus-entries-not-empty",
        "numa_bind_cpus entries must not be empty.",
        f'{A("numa_bind_cpus")} && args.numa_bind_cpus.exists(c, c == "")',
        ["numa_bind_cpus"],
        ["Give a CPU list such as '0-3' for every entry of --numa-bind-cpus"],
        "ParallelConfig field validator.",
        ["numa"],
    ),
    R(
        "numa-bind-cpus-syntax",
        "numa_bind_cpus entries must use numactl CPU list syntax",
        f'{A("numa_bind_cpus")} && args.numa_bind_cpus.exists(c, type(c) == string && c != "" && '
        '!c.matches("^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$"))',
        ["numa_bind_cpus"],
        ["Write each entry in numactl syntax, e.g. '0-3' or '0,2,4-7'"],
        "ParallelConfig field validator (each entry must match ^\\d+(?:-\\d+)?(?:,\\d+(?:-\\d+)?)*$).",
        ["numa"],
    ),
    # ------------------------------------------------------------------ pooler_config
    R(
        "pooler-logit-sigma-nonzero",
        "logit_sigma cannot be 0 (division by zero)",
        f"{sub('pooler_config', 'logit_sigma')} && double({PC}.logit_sigma) == 0.0 && "
        f"!{sub('pooler_config', 'logit_scale')}",
        ["pooler_config"],
        ["Give a non-zero logit_sigma, or remove it"],
        "PoolerConfig.__post_init__ (the pooler config is built while the arguments are parsed).",
        ["pooling"],
        fix={"unset": ["pooler_config.logit_sigma"]},
    ),
    R(
        "pooler-pooling-type-and-seq-pooling-type",
        "Cannot set both `pooling_type` and `seq_pooling_type`",
        f'{sub("pooler_config", "pooling_type")} && {PC}.pooling_type != "" && '
        f"{sub('pooler_config', 'seq_pooling_type')}",
        ["pooler_config"],
        ["Give only seq_pooling_type (pooling_type sets both the sequence and the token pooling type)"],
        "PoolerConfig.__post_init__.",
        ["pooling"],
        fix={"unset": ["pooler_config.pooling_type"]},
    ),
    R(
        "pooler-pooling-type-and-tok-pooling-type",
        "Cannot set both `pooling_type` and `tok_pooling_type`",
        f'{sub("pooler_config", "pooling_type")} && {PC}.pooling_type != "" && '
        f"{sub('pooler_config', 'tok_pooling_type')}",
        ["pooler_config"],
        ["Give only tok_pooling_type (pooling_type sets both the sequence and the token pooling type)"],
        "PoolerConfig.__post_init__ (checked after seq_pooling_type).",
        ["pooling"],
        fix={"unset": ["pooler_config.pooling_type"]},
    ),
    R(
        "pooler-normalize-removed",
        "Parameter `normalize` was removed; use `use_activation` instead.",
        f"{A('pooler_config')} && has({PC}.normalize)",
        ["pooler_config"],
        ["Replace pooler_config.normalize with use_activation"],
        "PoolerConfig.reject_removed_parameters (a model validator run before the fields are read).",
        ["pooling"],
        fix={"unset": ["pooler_config.normalize"]},
    ),
    # ------------------------------------------------------------------ prefetch offloading
    R(
        "offload-num-in-group-le-group-size",
        "offload_num_in_group ({self.prefetch.offload_num_in_group}) must be <= offload_group_size",
        f"{OFF_ON} && {OFF_NUM} > {OFF_GROUP}",
        ["offload_backend", "offload_group_size", "offload_num_in_group"],
        ["Set --offload-num-in-group to at most --offload-group-size"],
        "OffloadConfig.validate_offload_config, checked when prefetch offloading is on (offload_backend "
        "'prefetch' or offload_group_size > 0). Defaults: offload_group_size 0, offload_num_in_group 1.",
        ["offload"],
        message_template=(
            f"offload_num_in_group ({{{{ {OFF_NUM} }}}}) must be <= offload_group_size "
            f"({{{{ {OFF_GROUP} }}}})"
        ),
    ),
    R(
        "offload-prefetch-step-positive",
        "offload_prefetch_step ({self.prefetch.offload_prefetch_step}) must be >= 1",
        f"{OFF_ON} && {OFF_STEP} < 1",
        ["offload_backend", "offload_group_size", "offload_prefetch_step"],
        ["Set --offload-prefetch-step to 1 or more"],
        "OffloadConfig.validate_offload_config, checked when prefetch offloading is on (offload_backend "
        "'prefetch' or offload_group_size > 0). Default offload_prefetch_step 1.",
        ["offload"],
        message_template=(
            f"offload_prefetch_step ({{{{ {OFF_STEP} }}}}) must be >= 1 when prefetch offloading is enabled "
            "(offload_group_size > 0)"
        ),
        fix={"set": {"offload_prefetch_step": 1}},
    ),
    # ------------------------------------------------------------------ custom histogram buckets
    R(
        "histogram-bound-not-bool",
        "must be a number, not a boolean",
        f"{A('custom_histogram_buckets')} && {HB}.exists(f, {HB_BOOL})",
        ["custom_histogram_buckets"],
        ["Give the bucket bounds as positive numbers"],
        "ObservabilityConfig._reject_bool_histogram_bounds (before pydantic coerces booleans to floats).",
        ["observability"],
        message_template=(
            f"custom_histogram_buckets[{{{{ {hb_first(HB_BOOL)} | !r }}}}]: bound "
            f"{{{{ {HB}[{hb_first(HB_BOOL)}].filter(b, type(b) == bool)[0] | !r }}}} must be a number, "
            "not a boolean"
        ),
    ),
    R(
        "histogram-unknown-family",
        "custom_histogram_buckets: unknown bucket family",
        f"{A('custom_histogram_buckets')} && {HB}.exists(f, {HB_UNKNOWN})",
        ["custom_histogram_buckets"],
        [f"Use only the bucket families {', '.join(FAMILIES)}"],
        "ObservabilityConfig._validate_custom_histogram_buckets.",
        ["observability"],
        message_template=(
            f"custom_histogram_buckets: unknown bucket family {{{{ {hb_first(HB_UNKNOWN)} | !r }}}}; "
            f"known families: {FAMILIES_PY}"
        ),
    ),
    R(
        "histogram-empty-bucket-list",
        "bucket list must not be empty",
        f"{A('custom_histogram_buckets')} && {HB}.exists(f, !{HB_UNKNOWN} && {HB_EMPTY})",
        ["custom_histogram_buckets"],
        ["Give at least one bound per family, or remove the family to keep its default buckets"],
        "ObservabilityConfig._validate_custom_histogram_buckets.",
        ["observability"],
        message_template=(
            f"custom_histogram_buckets[{{{{ {hb_first('!' + HB_UNKNOWN + ' && ' + HB_EMPTY)} | !r }}}}]: "
            "bucket list must not be empty"
        ),
    ),
    R(
        "histogram-bound-positive",
        "must be finite and greater than 0",
        f"{A('custom_histogram_buckets')} && {HB}.exists(f, !{HB_UNKNOWN} && {HB_NONPOS})",
        ["custom_histogram_buckets"],
        ["Give bucket bounds greater than 0"],
        "ObservabilityConfig._validate_custom_histogram_buckets (the bounds are floats by then).",
        ["observability"],
        message_template=(
            f"custom_histogram_buckets[{{{{ {NONPOS_FAMILY} | !r }}}}]: "
            f"bound {{{{ double({HB}[{NONPOS_FAMILY}].filter(b, {HB_BAD})[0]) | !r }}}} "
            "must be finite and greater than 0"
        ),
    ),
    R(
        "histogram-bounds-increasing",
        "must be strictly increasing",
        f"{A('custom_histogram_buckets')} && {HB}.exists(f, !{HB_UNKNOWN} && {HB_NOT_INC})",
        ["custom_histogram_buckets"],
        ["List each family's bounds in strictly increasing order"],
        "ObservabilityConfig._validate_custom_histogram_buckets.",
        ["observability"],
        message_template=(
            f"custom_histogram_buckets[{{{{ {hb_first('!' + HB_UNKNOWN + ' && ' + HB_NOT_INC)} | !r }}}}]: "
            f"bounds {{{{ {HB}[{hb_first('!' + HB_UNKNOWN + ' && ' + HB_NOT_INC)}].map(b, double(b)) }}}} "
            "must be strictly increasing"
        ),
    ),
    # ------------------------------------------------------------------ profiler
    R(
        "profiler-proton-dir-local",
        "proton_profiler_dir must be a local directory",
        f'{PROF} == "proton" && {PROTON_DIR} && {PRC}.proton_profiler_dir.contains("://") && '
        f'!{PRC}.proton_profiler_dir.matches("^.?://")',
        ["profiler_config"],
        ["Write Proton traces to a local directory and copy them to object storage afterwards"],
        "ProfilerConfig validator: unlike torch_profiler_dir, proton_profiler_dir cannot be a URI "
        "(scheme://...; a one-letter scheme is taken for a Windows drive).",
        ["profiler"],
    ),
    R(
        "profiler-hatchet-requires-tree-data",
        "{output_format} output requires proton_data='tree'",
        f'{PROF} == "proton" && {PROTON_DIR} && {sub("profiler_config", "proton_output_format")} && '
        f'{PRC}.proton_output_format in ["hatchet", "hatchet_msgpack"] && '
        f'{subv("profiler_config", "proton_data", chr(34) + "tree" + chr(34))} != "tree"',
        ["profiler_config"],
        [
            "Use proton_data 'tree' with the hatchet formats",
            "Use proton_output_format 'chrome_trace' for trace",
        ],
        "ProfilerConfig validator.",
        ["profiler"],
        message_template=f"{{{{ {PRC}.proton_output_format }}}} output requires proton_data='tree'",
        fix={"set": {"profiler_config.proton_data": "tree"}},
    ),
    # ------------------------------------------------------------------ Engram embeddings
    R(
        "engram-dp-shared-memory-requires-cpu-offload",
        "dp_shared_memory requires cpu_offload=True",
        f"{sub('engram_config', 'dp_shared_memory')} && {EC}.dp_shared_memory == true && "
        f"{sub('engram_config', 'cpu_offload')} && {EC}.cpu_offload == false",
        ["engram_config"],
        ["Keep cpu_offload on (the default) to share the tables", "Remove dp_shared_memory"],
        "EngramConfig model validator (built while the arguments are parsed).",
        ["engram"],
    ),
    R(
        "engram-use-thp-requires-private-offload",
        "use_thp requires cpu_offload=True and dp_shared_memory=False",
        f"{sub('engram_config', 'use_thp')} && {EC}.use_thp == true && "
        f"(({sub('engram_config', 'cpu_offload')} && {EC}.cpu_offload == false) || "
        f"({sub('engram_config', 'dp_shared_memory')} && {EC}.dp_shared_memory == true))",
        ["engram_config"],
        [
            "Use transparent huge pages only for private CPU-offloaded tables (cpu_offload without "
            "dp_shared_memory)",
            "Remove use_thp",
        ],
        "EngramConfig model validator.",
        ["engram"],
    ),
    R(
        "engram-dp-shared-memory-requires-dp",
        "dp_shared_memory requires data_parallel_size > 1.",
        f"{sub('engram_config', 'dp_shared_memory')} && {EC}.dp_shared_memory == true && {DP} <= 1",
        ["engram_config", "data_parallel_size"],
        ["Remove dp_shared_memory on a single data-parallel rank"],
        "EngramConfig.verify_parallel_config (VllmConfig._resolve_and_verify_engram_config). A model "
        "without Engram embeddings is refused just before, by verify_model_config.",
        ["engram"],
        fix={"unset": ["engram_config.dp_shared_memory"]},
    ),
    R(
        "engram-dp-shared-memory-no-elastic-ep",
        "dp_shared_memory is not supported with elastic EP.",
        f"{sub('engram_config', 'dp_shared_memory')} && {EC}.dp_shared_memory == true && {DP} > 1 && "
        f"{ELASTIC}",
        ["engram_config", "enable_elastic_ep"],
        ["Remove dp_shared_memory, or disable elastic EP"],
        "EngramConfig.verify_parallel_config.",
        ["engram"],
    ),
    R(
        "engram-across-dp-no-elastic-ep",
        "Engram embedding_across_dp is not supported with elastic EP yet.",
        f"{sub('engram_config', 'embedding_across_dp')} && {EC}.embedding_across_dp == true && {DP} > 1 && "
        f"{ELASTIC}",
        ["engram_config", "enable_elastic_ep"],
        ["Remove embedding_across_dp, or disable elastic EP"],
        "EngramConfig.verify_parallel_config.",
        ["engram"],
    ),
    R(
        "engram-requires-engram-model-0.30.0",
        "EngramConfig requires a model with supported Engram embeddings, non-empty n-gram layer ids, and "
        "CUDA.",
        f"{A('engram_config')} && !{MODEL_HAS_ENGRAM}",
        ["engram_config"],
        ["Remove --engram-config: the model has no Engram embeddings"],
        "EngramConfig.verify_model_config: the architecture must be DeepseekV41ForCausalLM "
        "(engram_layer_ids) or Qwen4Exp (ple_layer_ids) with a non-empty layer-id list in its config.",
        ["engram"],
        needs=["model.architecture", "model.config"],
        fix={"unset": ["engram_config"]},
    ),
    R(
        "engram-requires-engram-model-0.31.0",
        "EngramConfig requires a model with supported Engram embeddings, non-empty n-gram layer ids, and a "
        "CUDA-alike device (CUDA or ROCm).",
        f"{A('engram_config')} && !{MODEL_HAS_ENGRAM}",
        ["engram_config"],
        ["Remove --engram-config: the model has no Engram embeddings"],
        "EngramConfig.verify_model_config: the architecture must be DeepseekV41ForCausalLM "
        "(engram_layer_ids) or Qwen4Exp (ple_layer_ids) with a non-empty layer-id list in its config.",
        ["engram"],
        needs=["model.architecture", "model.config"],
        fix={"unset": ["engram_config"]},
    ),
    R(
        "engram-requires-engram-model",
        "EngramConfig requires a model with supported Engram embeddings and non-empty n-gram layer ids.",
        f"{A('engram_config')} && !{MODEL_HAS_ENGRAM}",
        ["engram_config"],
        ["Remove --engram-config: the model has no Engram embeddings"],
        "EngramConfig.verify_model_config: the architecture must be DeepseekV41ForCausalLM "
        "(engram_layer_ids) or Qwen4Exp (ple_layer_ids) with a non-empty layer-id list in its config.",
        ["engram"],
        needs=["model.architecture", "model.config"],
        fix={"unset": ["engram_config"]},
    ),
    R(
        "engram-disk-offload-requires-qwen4exp",
        "disk_offload requires a Qwen4Exp model on CUDA",
        f"{sub('engram_config', 'disk_offload')} && {EC}.disk_offload == true && {MODEL_HAS_ENGRAM} && "
        'model.architecture == "DeepseekV41ForCausalLM"',
        ["engram_config"],
        ["Remove disk_offload: only Qwen4Exp's per-layer embeddings can be offloaded to disk"],
        "EngramConfig.verify_model_config.",
        ["engram"],
        needs=["model.architecture", "model.config"],
        fix={"unset": ["engram_config.disk_offload"]},
    ),
    R(
        "engram-disk-offload-no-elastic-ep",
        "disk_offload is not supported with elastic EP.",
        f"{sub('engram_config', 'disk_offload')} && {EC}.disk_offload == true && {ELASTIC}",
        ["engram_config", "enable_elastic_ep"],
        ["Remove disk_offload, or disable elastic EP"],
        "EngramConfig.verify_parallel_config (0.34.0); a model other than Qwen4Exp is refused just before.",
        ["engram"],
        fix={"unset": ["engram_config.disk_offload"]},
    ),
]
RULES = templated(RULES)

ENGRAM_MODEL = {
    "name": "deepseek-ai/DeepSeek-V4.1",
    "architecture": "DeepseekV41ForCausalLM",
    "config": {"num_attention_heads": 128, "num_key_value_heads": 128, "engram_layer_ids": [1, 15]},
}
QWEN4 = {
    "name": "Qwen/Qwen4-Exp",
    "architecture": "Qwen4ExpForCausalLM",
    "config": {"num_attention_heads": 32, "num_key_value_heads": 8, "ple_layer_ids": [0, 1, 2]},
}
PT = {"profiler": "proton", "proton_profiler_dir": "/tmp/proton"}


def cc(**kw):
    return {"compilation_config": kw}


def pc(**kw):
    return {"pooler_config": kw}


def hb(**kw):
    return {"custom_histogram_buckets": kw}


def prof(**kw):
    return {"profiler_config": {**PT, **kw}}


def eng(args, model=ENGRAM_MODEL):
    return dict(args=args, model=model)


CASES = {
    "cc-invalid-mode": (cc(mode="max_autotune"), cc(mode="vllm_compile")),
    "cc-piecewise-backend": (cc(mode=3, backend="openxla"), cc(mode=3, backend="eager")),
    "cc-encoder-max-vision-items-non-negative": (
        cc(cudagraph_mm_encoder=True, encoder_cudagraph_max_vision_items_per_batch=-1),
        cc(cudagraph_mm_encoder=True, encoder_cudagraph_max_vision_items_per_batch=0),
    ),
    "cc-encoder-max-frames-non-negative": (
        cc(cudagraph_mm_encoder=True, encoder_cudagraph_max_frames_per_batch=-2),
        cc(cudagraph_mm_encoder=False, encoder_cudagraph_max_frames_per_batch=-2),
    ),
    "cc-decoder-replay-sizes-positive": (
        cc(decoder_replay_cudagraph_capture_sizes=[0, 64]),
        cc(decoder_replay_cudagraph_capture_sizes=[32, 64]),
    ),
    "cc-encoder-max-token-budget-positive": (
        cc(encoder_cudagraph_max_token_budget=0),
        cc(encoder_cudagraph_max_token_budget=None),
    ),
    "numa-bind-cpus-not-empty": (
        {"numa_bind": True, "numa_bind_cpus": []},
        {"numa_bind": True, "numa_bind_cpus": ["0-3"]},
    ),
    "numa-bind-cpus-entries-not-empty": (
        {"numa_bind": True, "numa_bind_cpus": ["0-3", ""]},
        {"numa_bind": True, "numa_bind_cpus": ["0-3", "4-7"]},
    ),
    "numa-bind-cpus-syntax": (
        {"numa_bind": True, "numa_bind_cpus": ["0-3", "4..7"]},
        {"numa_bind": True, "numa_bind_cpus": ["0-3", "4,6-7"]},
    ),
    "pooler-logit-sigma-nonzero": (pc(logit_sigma=0), pc(logit_sigma=0.5)),
    "pooler-pooling-type-and-seq-pooling-type": (
        pc(pooling_type="MEAN", seq_pooling_type="CLS"),
        pc(seq_pooling_type="CLS"),
    ),
    "pooler-pooling-type-and-tok-pooling-type": (
        pc(pooling_type="MEAN", tok_pooling_type="ALL"),
        pc(tok_pooling_type="ALL"),
    ),
    "pooler-normalize-removed": (pc(normalize=True), pc(use_activation=True)),
    "offload-num-in-group-le-group-size": (
        {"offload_group_size": 2, "offload_num_in_group": 3},
        {"offload_group_size": 4, "offload_num_in_group": 3},
    ),
    "offload-prefetch-step-positive": (
        {"offload_backend": "prefetch", "offload_group_size": 2, "offload_prefetch_step": 0},
        {"offload_backend": "auto", "offload_prefetch_step": 0},
    ),
    "histogram-bound-not-bool": (
        hb(request_latency=[0.5, True]),
        hb(request_latency=[0.5, 1.0]),
    ),
    "histogram-unknown-family": (hb(e2e_latency=[0.5, 1.0]), hb(request_latency=[0.5, 1.0])),
    "histogram-empty-bucket-list": (hb(request_latency=[]), hb(request_latency=[1.0])),
    "histogram-bound-positive": (hb(time_to_first_token=[0, 0.1]), hb(time_to_first_token=[0.01, 0.1])),
    "histogram-bounds-increasing": (
        hb(iteration_tokens=[1, 8, 8, 64]),
        hb(iteration_tokens=[1, 8, 16, 64]),
    ),
    "profiler-proton-dir-local": (
        {"profiler_config": {"profiler": "proton", "proton_profiler_dir": "s3://bucket/proton"}},
        {"profiler_config": {"profiler": "proton", "proton_profiler_dir": "/data/proton"}},
    ),
    "profiler-hatchet-requires-tree-data": (
        prof(proton_output_format="hatchet", proton_data="trace"),
        prof(proton_output_format="hatchet"),
    ),
    "engram-dp-shared-memory-requires-cpu-offload": (
        {"engram_config": {"dp_shared_memory": True, "cpu_offload": False}},
        {"engram_config": {"dp_shared_memory": True}},
    ),
    "engram-use-thp-requires-private-offload": (
        {"engram_config": {"use_thp": True, "dp_shared_memory": True}},
        {"engram_config": {"use_thp": True, "dp_shared_memory": False}},
    ),
    "engram-dp-shared-memory-requires-dp": (
        eng({"engram_config": {"dp_shared_memory": True}}),
        eng({"engram_config": {"dp_shared_memory": True}, "data_parallel_size": 2}),
    ),
    "engram-dp-shared-memory-no-elastic-ep": (
        eng(
            {
                "engram_config": {"dp_shared_memory": True},
                "data_parallel_size": 2,
                "enable_elastic_ep": True,
                "enable_expert_parallel": True,
            }
        ),
        eng({"engram_config": {"dp_shared_memory": True}, "data_parallel_size": 2}),
    ),
    "engram-across-dp-no-elastic-ep": (
        eng(
            {
                "engram_config": {"embedding_across_dp": True},
                "data_parallel_size": 2,
                "enable_elastic_ep": True,
                "enable_expert_parallel": True,
            }
        ),
        eng({"engram_config": {"embedding_across_dp": True}, "data_parallel_size": 2}),
    ),
    "engram-requires-engram-model-0.30.0": (
        {"engram_config": {"cpu_offload": True}},
        eng({"engram_config": {"cpu_offload": True}}),
    ),
    "engram-requires-engram-model-0.31.0": (
        {"engram_config": {"cpu_offload": True}},
        eng({"engram_config": {"cpu_offload": True}}),
    ),
    "engram-requires-engram-model": (
        {"engram_config": {"cpu_offload": True}},
        eng({"engram_config": {"cpu_offload": True}}),
    ),
    "engram-disk-offload-no-elastic-ep": (
        eng(
            {
                "engram_config": {"disk_offload": True},
                "enable_elastic_ep": True,
                "enable_expert_parallel": True,
            },
            model=QWEN4,
        ),
        eng({"engram_config": {"disk_offload": True}}, model=QWEN4),
    ),
    "engram-disk-offload-requires-qwen4exp": (
        eng({"engram_config": {"disk_offload": True}}),
        eng({"engram_config": {"disk_offload": True}}, model=QWEN4),
    ),
}
