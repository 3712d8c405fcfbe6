"""CEL building blocks shared by the rule specs (tools/rulepack/specs/): each returns or is CEL text over the
profile document (see validation/rulepacks/README.md). Nothing here is evaluated by Python."""

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

HEADS = (
    "(has(model.config.text_config) && has(model.config.text_config.num_attention_heads) ? "
    "model.config.text_config.num_attention_heads : model.config.num_attention_heads)"
)
KVH = (
    "(has(model.config.text_config) && has(model.config.text_config.num_key_value_heads) ? "
    "model.config.text_config.num_key_value_heads : model.config.num_key_value_heads)"
)

# ------------------------------------------------------------------------------------------ message values


def join_present(items, sep=", "):
    """CEL for Python's `sep.join(...)` of the labels whose condition holds, in order: items are
    (condition, label) pairs, the label being CEL that gives a string. (Core CEL has no join: the list of
    labels is bound once with `[list].map(l, ...)[0]` and its entries concatenated.)"""
    pairs = ", ".join(f"[{cond}, {label}]" for cond, label in items)
    labels = f"[{pairs}].filter(p, p[0] == true).map(p, p[1])"
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
