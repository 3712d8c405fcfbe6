"""CEL building blocks shared by the rule specs (tools/rulepack/specs/): each returns or is CEL text over the
profile document (see vllmcheck/rulepacks/README.md). Nothing here is evaluated by Python."""

# ---------------------------------------------------------------------------------------------- generic


def A(name):  # an argument explicitly set (not null)
    return f"(has(args.{name}) && args.{name} != null)"


def sub(obj, key):  # a key of a dict-valued argument, set and not null
    return f"(has(args.{obj}) && args.{obj} != null && has(args.{obj}.{key}) && args.{obj}.{key} != null)"


def subv(obj, key, default):  # a key of a dict-valued argument, or a default when it is not set
    return f"({sub(obj, key)} ? args.{obj}.{key} : {default})"


def arg_true(name):  # an argument explicitly set to true
    return f"(has(args.{name}) && args.{name} == true)"


def q(xs):  # a CEL list of strings
    return "[" + ", ".join(f'"{x}"' for x in xs) + "]"


# The pack's named derived values besides document.DERIVED's: sub-expressions that several rules share, or
# that would make one rule's condition or message template too long to read (build.py refuses one over
# MAX_CHARS). The engine writes each `derived.NAME` back as `(its expression)` when it plans a release, so a
# rule runs exactly as it did with the expression written out; the pack shows the name instead.
NAMED = {}
MAX_CHARS = 4000  # the longest condition, message template or derived expression the pack may hold


def named(name, expr, description, versions=">=0.20.0"):
    """`derived.NAME` for `expr`, which the pack lists once among its derived values (for every release by
    default). `expr` must be a whole operand where it is used (the engine puts it in parentheses)."""
    value = {"name": name, "description": description, "variants": [{"versions": versions, "expr": expr}]}
    if NAMED.setdefault(name, value) != value:
        raise ValueError(f"derived value {name!r} is defined twice, differently")
    return f"derived.{name}"


def R(id, msg, when, fields, solutions, docs, tags, fix=None, **kw):
    """A vllm rule: `msg` is a unique substring of vLLM's message (resolved by build.py); `kw` may hold
    kinds, needs, example_fix, msg_text, range and `values`: {f-string field of vLLM's message (as written in
    the message, without its !r conversion): CEL of the value vLLM formats there}, from which build.py writes
    the rule's message_template."""
    d = dict(id=id, msg=msg, when=when, fields=fields, solutions=solutions, docs=docs, tags=tags, **kw)
    if fix:
        d["fix"] = fix
    return d


# ---------------------------------------------------------------------------------------------- speculative

SC = "args.speculative_config"
HAS_SPEC = f"(has({SC}) && {SC} != null)"


def spec_field_true(name):
    return f"({HAS_SPEC} && has({SC}.{name}) && {SC}.{name} == true)"


def METHOD_IS(*ms):
    return f"({HAS_SPEC} && derived.spec_method in [{', '.join(chr(34) + m + chr(34) for m in ms)}])"


ADAPTIVE = spec_field_true("enable_adaptive_verification")
PARALLEL_DRAFTING = spec_field_true("parallel_drafting")
SPEC_M = f"{sub('speculative_config', 'method')}"
REJECT_METHOD = subv("speculative_config", "rejection_sample_method", '""')
NST = f"{sub('speculative_config', 'num_speculative_tokens')} && {SC}.num_speculative_tokens > 0"
RATES = f"{SC}.synthetic_acceptance_rates"
HAS_RATES = sub("speculative_config", "synthetic_acceptance_rates")
HAS_LEN = sub("speculative_config", "synthetic_acceptance_length")
SYN = f'{REJECT_METHOD} == "synthetic" && {NST}'
IDX = "[" + ", ".join(str(i) for i in range(1, 64)) + "]"  # list positions 1..63, for pairwise checks
ASYNC_ON = "(has(args.async_scheduling) && args.async_scheduling == true)"
ASYNC_BAD_METHOD = METHOD_IS("ngram", "medusa", "mlp_speculator", "suffix", "custom_class")

# ---------------------------------------------------------------------------------------------- features

RSM = "effective.return_sampling_mask == true"
LOGITS_PROCS = (
    "(has(args.logits_processors) && args.logits_processors != null && size(args.logits_processors) > 0)"
)
EXT_LAUNCHER_PP = (
    '(has(args.distributed_executor_backend) && args.distributed_executor_backend == "external_launcher" '
    "&& effective.pipeline_parallel_size > 1)"
)
CC = "args.compilation_config"
CUSTOM_OPS = "args.compilation_config.custom_ops"
UBATCHING = "(effective.enable_dbo == true || effective.ubatch_size > 1)"
ENV_V2 = "env.VLLM_USE_V2_MODEL_RUNNER"
HISPARSE = (
    "(has(args.attention_config) && has(args.attention_config.hisparse_config) && "
    "args.attention_config.hisparse_config != null)"
)
WATERMARK = "(has(args.watermark_config) && args.watermark_config != null)"
KV_INSTANCE = (
    f"({sub('kv_transfer_config', 'kv_connector')} && {sub('kv_transfer_config', 'kv_role')} && "
    'args.kv_transfer_config.kv_role in ["kv_producer", "kv_consumer", "kv_both"])'
)
EPLB_NRE = (
    "(has(args.eplb_config) && args.eplb_config != null && has(args.eplb_config.num_redundant_experts) && "
    "args.eplb_config.num_redundant_experts != null && args.eplb_config.num_redundant_experts != 0)"
)
SO = "structured_outputs_config"
PC = "profiler_config"
PROF = subv(PC, "profiler", "null")

# ---------------------------------------------------------------------------------------------- parallelism

DP = "effective.data_parallel_size"
NOT_GRPC = "!(has(args.grpc) && args.grpc == true)"
EXT_LB = (
    "(effective.data_parallel_external_lb == true || (has(args.data_parallel_rank) && "
    "args.data_parallel_rank != null))"
)
HYB_LB = (
    "(effective.data_parallel_hybrid_lb == true || (has(args.data_parallel_start_rank) && "
    "args.data_parallel_start_rank != null))"
)

# ---------------------------------------------------------------------------------------------- model facts

# Whisper's config.json has no num_attention_heads: transformers' WhisperConfig.attribute_map reads it (and
# num_key_value_heads) from encoder_attention_heads, which vLLM's getattr(hf_text_config, ...) sees (real vLLM
# 0.20.0-0.34.0: "Total number of attention heads (20)" for openai/whisper-large-v3 with -tp 8).
_WHISPER_HEADS = (
    "!has(model.config.num_attention_heads) && has(model.config.model_type) && "
    'model.config.model_type == "whisper" && has(model.config.encoder_attention_heads)'
)
HEADS = (
    "(has(model.config.text_config) && has(model.config.text_config.num_attention_heads) ? "
    f"model.config.text_config.num_attention_heads : {_WHISPER_HEADS} ? "
    "model.config.encoder_attention_heads : model.config.num_attention_heads)"
)
KVH = (
    "(has(model.config.text_config) && has(model.config.text_config.num_key_value_heads) ? "
    "model.config.text_config.num_key_value_heads : model.config.num_key_value_heads)"
)

# ------------------------------------------------------------------------------------------ message values


def join_present(items, sep=", ", name=None, description=None):
    """CEL for Python's `sep.join(...)` of the labels whose condition holds, in order: items are
    (condition, label) pairs, the label being CEL that gives a string. (Core CEL has no join: the list of
    labels is bound once with `[list].map(l, ...)[0]` and its entries concatenated.) With `name`, the list of
    labels is a derived value of that name (`named`)."""
    pairs = ", ".join(f"[{cond}, {label}]" for cond, label in items)
    labels = f"[{pairs}].filter(p, p[0] == true).map(p, p[1])"
    if name:
        labels = named(name, labels, description)
    body = " + ".join(
        f'(l.size() > {i} ? {chr(34) + sep + chr(34) + " + " if i else ""}l[{i}] : "")'
        for i in range(len(items))
    )
    return f"[{labels}].map(l, {body})[0]"


def cel_str(text):
    """A CEL string literal holding text."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def py_tuple(values):
    """CEL string literal of how Python prints a tuple of strings, e.g. get_args() of a Literal."""
    return cel_str("(" + ", ".join(repr(v) for v in values) + ")")


# ---------------------------------------------------------------------------------------------- model length

# ModelConfig._get_and_verify_max_len (vllm/config/model.py) with the base convertor's
# derive_max_model_len_and_key, for the configs whose derivation a profile can repeat: a model type without a
# convertor of its own, max_position_embeddings and no other length key, no text_config, a flat RoPE config
# (rope_scaling, or transformers 5's rope_parameters). vLLM multiplies by the RoPE factor as a float whenever
# the (transformers 5) config has RoPE parameters, so the value is a double: vLLM prints 32768.0.
MC = "model.config"
LEN_KEYS_OTHER = [
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_target_positions",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
]
# Model types whose config.json is read by the base convertor (no MODEL_ARCH_CONFIG_CONVERTORS entry in any
# release 0.20.0-0.34.0) and whose length comes from max_position_embeddings.
MAX_LEN_MODEL_TYPES = [
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "jamba",
    "deepseek_v2",
    "deepseek_v3",
    "gemma2",
    "phi3",
    "gpt_oss",
    "granitemoehybrid",
    "qwen2_5_vl",
]
# --disable-sliding-window: vLLM lowers the derived length to ModelConfig.get_sliding_window(), the HF text
# config's sliding_window as transformers sets it (key "sliding_window" in the message). Its value per model
# type: Qwen's configs keep it only with use_sliding_window (else None; Qwen2-MoE's 0 is left out), the others
# take config.json's, or the config class's default when the key is absent. A type missing here keeps the
# derivation unknown under --disable-sliding-window.
SLIDING_WINDOW_DEFAULTS = {
    "llama": None,
    "mistral": 4096,
    "mixtral": None,
    "jamba": None,
    "deepseek_v2": None,
    "deepseek_v3": None,
    "gemma2": 4096,
    "phi3": None,
    "gpt_oss": 128,
    "granitemoehybrid": None,
}
SLIDING_WINDOW_IF_USED = ["qwen2", "qwen3", "qwen3_moe"]
# --hf-overrides need no case of their own: the product applies them to model.config (vllmcheck/modelhub.py
# apply_overrides) before the rules read it, as vLLM applies them to the HF config.
# RoPE types whose factor vLLM does not apply: before 0.30.0 yarn uses original_max_position_embeddings x
# factor instead; from 0.30.0 the YaRN variants leave max_position_embeddings as it is.
_NO_FACTOR_OLD = ["su", "longrope", "llama3"]
_NO_FACTOR_NEW = [*_NO_FACTOR_OLD, "yarn", "deepseek_yarn", "deepseek_llama_scaling"]

_RS = named(
    "model_rope_parameters",
    f"(has({MC}.rope_parameters) && {MC}.rope_parameters != null ? {MC}.rope_parameters : "
    f"has({MC}.rope_scaling) && {MC}.rope_scaling != null ? {MC}.rope_scaling : {{}})",
    "The model's RoPE parameters: config.json's rope_parameters (transformers 5), else rope_scaling, "
    "else {}.",
)


def _rope_type(rs):
    return f'(has({rs}.rope_type) ? {rs}.rope_type : has({rs}.type) ? {rs}.type : "default")'


_RT = named(
    "model_rope_type",
    _rope_type(_RS),
    "The type of the model's RoPE parameters (rope_type, else type, else 'default').",
)
_FACTOR = named(
    "model_rope_factor",
    f"(has({_RS}.factor) && {_RS}.factor != null ? double({_RS}.factor) : 1.0)",
    "The factor of the model's RoPE parameters, a double (1.0 without one).",
)
_MAXPOS = f"double({MC}.max_position_embeddings)"
_SW_TYPES = [*SLIDING_WINDOW_DEFAULTS, *SLIDING_WINDOW_IF_USED]
_SW_SET = f"(has({MC}.sliding_window) && {MC}.sliding_window != null)"
_SW_DEFAULT = "".join(
    f'{MC}.model_type == "{t}" ? {float(d)} : ' for t, d in SLIDING_WINDOW_DEFAULTS.items() if d is not None
)
# The sliding window vLLM reads (a double), 0.0 for none.
SLIDING_WINDOW = named(
    "model_sliding_window",
    f"({MC}.model_type in {q(SLIDING_WINDOW_IF_USED)} ? "
    f"(has({MC}.use_sliding_window) && {MC}.use_sliding_window == true ? "
    f"({_SW_SET} ? double({MC}.sliding_window) : 4096.0) : 0.0) : "
    f"has({MC}.sliding_window) ? ({_SW_SET} ? double({MC}.sliding_window) : 0.0) : "
    f"{_SW_DEFAULT}0.0)",
    "The sliding window vLLM reads from the HF text config (ModelConfig.get_sliding_window()), a double, "
    "0.0 for none: Qwen's configs keep it only with use_sliding_window, the others take config.json's or "
    "their config class's default (tools/rulepack/expr.py SLIDING_WINDOW_DEFAULTS).",
)
# True when --disable-sliding-window lowers the derived length to the sliding window.
SLIDING_WINDOW_CAPS = named(
    "model_len_sliding_window_caps",
    f"({arg_true('disable_sliding_window')} && {MC}.model_type in {q(_SW_TYPES)} && "
    f"{SLIDING_WINDOW} > 0.0 && {SLIDING_WINDOW} < {_MAXPOS})",
    "--disable-sliding-window lowers the derived max_model_len to the model's sliding window (smaller than "
    "max_position_embeddings).",
)
_SIMPLE_MAX_LEN = named(
    "model_len_plain",
    f"{MC}.model_type in {q(MAX_LEN_MODEL_TYPES)} && "
    f"has({MC}.max_position_embeddings) && {MC}.max_position_embeddings != null && "
    f"!has({MC}.text_config) && "
    # only an absolute position embedding matters (a pooling model then reads the tokenizer's length)
    f'!(has({MC}.position_embedding_type) && {MC}.position_embedding_type == "absolute") && '
    + " && ".join(f"!has({MC}.{k})" for k in LEN_KEYS_OTHER)
    + f" && ({_RS} == {{}} || has({_RS}.rope_type) || has({_RS}.type))"
    + f" && (!{arg_true('disable_sliding_window')} || {MC}.model_type in {q(_SW_TYPES)})",
    "vLLM derives max_model_len from max_position_embeddings with the base convertor, as a profile can "
    "repeat it: a model type of expr.py's MAX_LEN_MODEL_TYPES, no other length key, no text_config, no "
    "absolute position embeddings, a flat RoPE config.",
)
_BASE_LEN = f"({SLIDING_WINDOW_CAPS} ? {SLIDING_WINDOW} : {_MAXPOS})"
# Llama 4 (model type llama4, no convertor of its own in 0.20.0-0.34.0): vLLM derives the length from the
# HF text config, text_config (llama4_text), whose llama3 RoPE leaves max_position_embeddings as it is (the
# same before and after 0.30.0). No sliding window is read here: --disable-sliding-window keeps it unknown.
_TC = f"{MC}.text_config"
_TRS = (
    f"(has({_TC}.rope_parameters) && {_TC}.rope_parameters != null ? {_TC}.rope_parameters : "
    f"has({_TC}.rope_scaling) && {_TC}.rope_scaling != null ? {_TC}.rope_scaling : {{}})"
)
_LLAMA4_MAX_LEN = named(
    "model_len_llama4",
    f'{MC}.model_type == "llama4" && has({MC}.text_config) && {_TC} != null && '
    f"has({_TC}.max_position_embeddings) && {_TC}.max_position_embeddings != null && "
    + " && ".join(f"!has({_TC}.{k})" for k in LEN_KEYS_OTHER)
    + f' && ({_TRS} == {{}} || {_rope_type(_TRS)} == "llama3")'
    + f" && !{arg_true('disable_sliding_window')}",
    "A Llama 4 config whose text_config's max_position_embeddings is the derived max_model_len (no other "
    "length key, no RoPE or llama3 RoPE, no --disable-sliding-window).",
)
_LLAMA4_LEN = f"double({_TC}.max_position_embeddings)"


# Gemma 3 (model type gemma3, Gemma3ForConditionalGeneration): vLLM derives the length from the HF text
# config, text_config (gemma3_text), whose max_position_embeddings falls back to transformers'
# Gemma3TextConfig default (131072) when config.json omits it, as the published checkpoints do; its RoPE
# factor is not applied (real vLLM 0.20.0-0.34.0 print max_position_embeddings=131072.0 for
# google/gemma-3-27b-it, linear factor 8). With
# --disable-sliding-window the text config's sliding_window (default 4096) caps it, printed as the int it is.
_GEMMA3 = named(
    "model_len_gemma3",
    f'{MC}.model_type == "gemma3" && has({MC}.text_config) && {_TC} != null && type({_TC}) == map && '
    + " && ".join(f"!has({_TC}.{k})" for k in LEN_KEYS_OTHER),
    "A Gemma 3 config whose text_config gives the derived max_model_len (no other length key).",
)
_GEMMA3_MAXPOS = (
    f"(has({_TC}.max_position_embeddings) && {_TC}.max_position_embeddings != null ? "
    f"double({_TC}.max_position_embeddings) : 131072.0)"
)
_GEMMA3_SW = (
    f"(has({_TC}.sliding_window) ? ({_TC}.sliding_window != null ? double({_TC}.sliding_window) : 0.0) : "
    "4096.0)"
)
# True when --disable-sliding-window lowers Gemma 3's derived length to its sliding window.
GEMMA3_SLIDING_WINDOW_CAPS = named(
    "model_len_gemma3_sliding_window_caps",
    f"({arg_true('disable_sliding_window')} && {_GEMMA3} && {_GEMMA3_SW} > 0.0 && "
    f"{_GEMMA3_SW} < {_GEMMA3_MAXPOS})",
    "--disable-sliding-window lowers Gemma 3's derived max_model_len to its text config's sliding window.",
)
_GEMMA3_LEN = f"({GEMMA3_SLIDING_WINDOW_CAPS} ? {_GEMMA3_SW} : {_GEMMA3_MAXPOS})"

# Whisper (model type whisper, no convertor of its own in 0.20.0-0.34.0): the only length key of its config is
# max_target_positions (the decoder's; max_source_positions is not one of vLLM's keys), no RoPE, and its
# tokenizer's model_max_length is transformers' "very large" default: vLLM prints max_target_positions=448.0
# for openai/whisper-large-v3 (real vLLM 0.20.0, 0.27.1, 0.34.0). --disable-sliding-window keeps it unknown.
WHISPER_LEN_KEY = named(
    "model_len_whisper",
    f'{MC}.model_type == "whisper" && has({MC}.max_target_positions) && {MC}.max_target_positions != null && '
    + " && ".join(
        f"!has({MC}.{k})" for k in ["max_position_embeddings", *LEN_KEYS_OTHER] if k != "max_target_positions"
    )
    + f" && !has({MC}.text_config) && !{arg_true('disable_sliding_window')}",
    "A Whisper config whose max_target_positions is the derived max_model_len (its only length key).",
)
_WHISPER_LEN = f"double({MC}.max_target_positions)"


# A sentence-transformers checkpoint (model.encoder_config: sentence_bert_config.json ... with max_seq_length,
# read by the hub as vLLM's get_sentence_transformer_tokenizer_config reads it): _get_and_verify_max_len then
# replaces the derived length with max_seq_length, the int as written (0.20.0-0.34.0), the key staying the
# config's (max_position_embeddings here: real vLLM prints max_position_embeddings=256 for
# sentence-transformers/all-MiniLM-L6-v2, 8192 for BAAI/bge-m3). Other length keys keep it unknown.
_EC = "model.encoder_config"
ST_MAX_LEN = named(
    "model_len_sentence_transformers",
    f"has(model.encoder_config) && {_EC} != null && type({_EC}) == map && has({_EC}.max_seq_length) && "
    f"type({_EC}.max_seq_length) == int && has({MC}.max_position_embeddings) && "
    f"{MC}.max_position_embeddings != null && !has({MC}.text_config) && "
    + " && ".join(f"!has({MC}.{k})" for k in LEN_KEYS_OTHER)
    + f" && !{arg_true('disable_sliding_window')}",
    "A sentence-transformers checkpoint's max_seq_length (model.encoder_config) replaces the derived "
    "max_model_len.",
)
_ST_LEN = f"double({_EC}.max_seq_length)"
# Encoder-only pooling models (BERT, RoBERTa, XLM-R) with absolute position embeddings: vLLM caps the derived
# length with the tokenizer's model_max_length (tokenizer_config.json, model.tokenizer_max_length) when the
# runner is pooling (ModelConfig.get_and_verify_max_len, the same in 0.20.0-0.34.0), and prints it as the int
# it is (real vLLM: max_position_embeddings=8192 for BAAI/bge-reranker-v2-m3, 8194 positions). Only a cap that
# is not larger than max_position_embeddings is modelled.
POOLING_ENCODER_ARCHS = [
    "BertModel",
    "RobertaModel",
    "XLMRobertaModel",
    "BertForSequenceClassification",
    "RobertaForSequenceClassification",
    "XLMRobertaForSequenceClassification",
]
_TML = "model.tokenizer_max_length"
TOKENIZER_CAPS_LEN = named(
    "model_len_tokenizer_caps",
    f"has(model.architecture) && model.architecture in {q(POOLING_ENCODER_ARCHS)} && "
    f'(!has(args.runner) || args.runner == null || args.runner in ["auto", "pooling"]) && '
    f'{MC}.model_type in ["bert", "roberta", "xlm-roberta"] && has({MC}.position_embedding_type) && '
    f'{MC}.position_embedding_type == "absolute" && has({_TML}) && type({_TML}) == int && '
    f"has({MC}.max_position_embeddings) && type({MC}.max_position_embeddings) == int && "
    f"{_TML} <= {MC}.max_position_embeddings && !has({MC}.text_config) && "
    + " && ".join(f"!has({MC}.{k})" for k in LEN_KEYS_OTHER)
    + f" && !{arg_true('disable_sliding_window')}",
    "The tokenizer's model_max_length (model.tokenizer_max_length) caps the derived max_model_len of an "
    "encoder-only pooling model with absolute position embeddings.",
)
_TOK_LEN = f"double({_TML})"


def model_max_len(since_0_30):
    """CEL of vLLM's derived max_model_len (a double), or 0.0 where the profile cannot repeat it."""
    if since_0_30:
        value = f"(!({_RT} in {q(_NO_FACTOR_NEW)}) ? {_BASE_LEN} * {_FACTOR} : {_BASE_LEN})"
        guard = _SIMPLE_MAX_LEN
    else:
        orig = f"{_RS}.original_max_position_embeddings"
        value = (
            f'({_RT} == "yarn" ? double({orig}) * {_FACTOR} : '
            f"!({_RT} in {q(_NO_FACTOR_OLD)}) ? {_BASE_LEN} * {_FACTOR} : {_BASE_LEN})"
        )
        guard = f'{_SIMPLE_MAX_LEN} && ({_RT} != "yarn" || (has({orig}) && {orig} != null))'
    return (
        f"(({ST_MAX_LEN}) ? {_ST_LEN} : ({TOKENIZER_CAPS_LEN}) ? {_TOK_LEN} : {guard} ? {value} : "
        f"{_LLAMA4_MAX_LEN} ? {_LLAMA4_LEN} : "
        f"({_GEMMA3}) ? {_GEMMA3_LEN} : ({WHISPER_LEN_KEY}) ? {_WHISPER_LEN} : 0.0)"
    )


# ---------------------------------------------------------------------------------------------- hardware

# current_platform.is_device_capability_family(100): compute capability 10.x (data center Blackwell). A
# profile's hardware.gpu is a GPU model name (e.g. H100-80GB); only names known to be another family count,
# an unknown name gives no finding.
_CC10 = "^(?i)(nvidia[ -]?)?g?b(100|200|300)"
_NOT_CC10 = (
    "^(?i)(nvidia[ -]?)?(gh200|gh100|h100|h200|h800|h20|a100|a800|a10|a10g|a30|a40|a16|a2|l4|l40|l40s|"
    "l20|t4|v100|rtx|geforce|quadro|tesla|titan|dgx[ -]?spark)"
)
GPU_NOT_CC10 = f'(!hardware.gpu.matches("{_CC10}") && hardware.gpu.matches("{_NOT_CC10}"))'
