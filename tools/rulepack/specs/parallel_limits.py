"""Parallelism limits that ModelConfig.verify_with_parallel_config derives from the model: decode context
parallelism against the model's KV heads, and hidden-state sequence parallelism (--enable-hc-sp)."""

from tools.rulepack.coverage_expr import AV, templated
from tools.rulepack.expr import HEADS, KVH, A, R
from tools.rulepack.expr import arg_true as T

DCP = "effective.decode_context_parallel_size"
TP = "effective.tensor_parallel_size"
PCP = "effective.prefill_context_parallel_size"
# the checks after "Decode context parallelism for GQA/MQA requires ..." (dcp-gqa-requires-tp-above-kv-heads):
# non-MLA models (no kv_lora_rank in the config) with more TP ranks than KV heads
DCP_GQA = f"{DCP} > 1 && !has(model.config.kv_lora_rank) && {TP} > {KVH}"
MAX_DCP = f"({TP} / {KVH})"
DOCS = (
    "ModelConfig.verify_with_parallel_config (non-MLA models; MLA models, whose config has kv_lora_rank, are "
    "exempt). Reads num_attention_heads and num_key_value_heads from the model's config.json (text_config "
    "for multimodal models)."
)

RULES = [
    R(
        "dcp-exceeds-max-for-kv-heads",
        "exceeds the maximum supported value ({max_dcp_size}) for `--tensor-parallel-size`",
        f"{DCP_GQA} && {DCP} > {MAX_DCP}",
        ["decode_context_parallel_size", "tensor_parallel_size", "model"],
        [
            "Set --decode-context-parallel-size to at most tensor_parallel_size / the model's KV heads",
            "Increase --tensor-parallel-size",
        ],
        DOCS + " Each DCP rank must hold at least one KV head's worth of TP ranks.",
        ["parallelism", "model"],
        needs=["model.config"],
        message_template=(
            f"`--decode-context-parallel-size` ({{{{ {DCP} }}}}) exceeds the maximum supported value "
            f"({{{{ {MAX_DCP} }}}}) for `--tensor-parallel-size` ({{{{ {TP} }}}}) and "
            f"{{{{ {KVH} }}}} model KV heads."
        ),
    ),
    R(
        "dcp-divides-query-heads-per-kv-head",
        "The model's number of query heads per KV head",
        f"{DCP_GQA} && {DCP} <= {MAX_DCP} && ({HEADS} / {KVH}) % {DCP} != 0",
        ["decode_context_parallel_size", "model"],
        ["Choose a --decode-context-parallel-size that divides the model's query heads per KV head"],
        DOCS,
        ["parallelism", "model"],
        needs=["model.config"],
        message_template=(
            f"The model's number of query heads per KV head ({{{{ {HEADS} / {KVH} }}}}) must be divisible by "
            f"`--decode-context-parallel-size` ({{{{ {DCP} }}}}) for GQA/MQA."
        ),
    ),
    R(
        "hc-sp-requires-pp-1",
        "--enable-hc-sp requires PP=1",
        f"{T('enable_hc_sp')} && {AV('tensor_parallel_size', '1')} > 1 && "
        f"{AV('pipeline_parallel_size', '1')} != 1",
        ["enable_hc_sp", "pipeline_parallel_size"],
        ["Run --enable-hc-sp without pipeline parallelism", "Remove --enable-hc-sp"],
        "ModelConfig.verify_with_parallel_config, when --enable-hc-sp is on with tensor parallelism; a model "
        "without hidden-state sequence parallelism support is refused just before.",
        ["parallelism"],
        fix={"unset": ["enable_hc_sp"]},
    ),
    R(
        "pcp-dcp-sizes",
        "When PCP is enabled, DCP must be disabled, span the PCP axis, or span the full TP x PCP axis.",
        f"{PCP} > 1 && !({DCP} in [1, {PCP}, {TP} * {PCP}])",
        ["prefill_context_parallel_size", "decode_context_parallel_size", "tensor_parallel_size"],
        ["Set --decode-context-parallel-size to 1, to the PCP size, or to TP x PCP"],
        "ParallelConfig._validate_parallel_config.",
        ["parallelism"],
        message_template=(
            "When PCP is enabled, DCP must be disabled, span the PCP axis, or span the full TP x PCP axis. "
            f"Got TP={{{{ {TP} }}}}, PCP={{{{ {PCP} }}}}, DCP={{{{ {DCP} }}}}; valid DCP sizes are "
            f"{{{{ {TP} == 1 ? [1, {PCP}] : [1, {PCP}, {TP} * {PCP}] }}}}."
        ),
    ),
    R(
        "ray-nsight-requires-ray",
        "Unable to use nsight profiling unless workers run with Ray.",
        f"{T('ray_workers_use_nsight')} && {A('distributed_executor_backend')} && "
        'args.distributed_executor_backend in ["mp", "uni", "external_launcher"]',
        ["ray_workers_use_nsight", "distributed_executor_backend"],
        [
            "Use --distributed-executor-backend ray with --ray-workers-use-nsight",
            "Remove --ray-workers-use-nsight",
        ],
        "ParallelConfig._verify_args (an explicit non-Ray executor; one vLLM picks itself is not read here).",
        ["parallelism", "profiler"],
        fix={"unset": ["ray_workers_use_nsight"]},
    ),
]
RULES = templated(RULES)

QWEN3_32B = {
    "name": "Qwen/Qwen3-32B",
    "architecture": "Qwen3ForCausalLM",
    "config": {"num_attention_heads": 64, "num_key_value_heads": 8},
}
LLAMA_24 = {
    "name": "org/llama-24-heads",
    "architecture": "LlamaForCausalLM",
    "config": {"num_attention_heads": 24, "num_key_value_heads": 4},
}

CASES = {
    "dcp-exceeds-max-for-kv-heads": (
        dict(args={"tensor_parallel_size": 16, "decode_context_parallel_size": 4}, model=QWEN3_32B),
        dict(args={"tensor_parallel_size": 16, "decode_context_parallel_size": 2}, model=QWEN3_32B),
    ),
    "dcp-divides-query-heads-per-kv-head": (
        dict(args={"tensor_parallel_size": 16, "decode_context_parallel_size": 4}, model=LLAMA_24),
        dict(args={"tensor_parallel_size": 16, "decode_context_parallel_size": 2}, model=LLAMA_24),
    ),
    "pcp-dcp-sizes": (
        {"tensor_parallel_size": 2, "prefill_context_parallel_size": 2, "decode_context_parallel_size": 3},
        {"tensor_parallel_size": 2, "prefill_context_parallel_size": 2, "decode_context_parallel_size": 4},
    ),
    "hc-sp-requires-pp-1": (
        {"enable_hc_sp": True, "tensor_parallel_size": 2, "pipeline_parallel_size": 2},
        {"enable_hc_sp": True, "tensor_parallel_size": 2},
    ),
    "ray-nsight-requires-ray": (
        {"ray_workers_use_nsight": True, "distributed_executor_backend": "mp"},
        {"ray_workers_use_nsight": True, "distributed_executor_backend": "ray"},
    ),
}
