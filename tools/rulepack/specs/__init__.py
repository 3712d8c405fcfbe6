"""The rules as Python data, one module per topic. Each module has RULES (the rules; a vllm rule's `msg` is a
unique substring of vLLM's message, resolved by build.py) and CASES ({rule id: (failing profile, passing
profile)}, expanded by cases.py into tests/engine/rulepack_cases/).

ORDER is the order of the rules in builtin.yaml, which is the order in which the engine reports findings of
the same severity: where vLLM stops at the first of several problems, its check comes first. A rule not listed
follows the listed ones, in TOPICS order, then in its module's order; policy rules come last."""

from tools.rulepack.specs import (
    compilation,
    data_parallel,
    frontend,
    mamba,
    model_runner,
    moe,
    observability,
    parallel,
    policy,
    sampling,
    scheduler,
    speculative,
    structured_outputs,
    transfer,
)

TOPICS = (
    sampling,
    model_runner,
    speculative,
    moe,
    mamba,
    parallel,
    data_parallel,
    compilation,
    scheduler,
    observability,
    transfer,
    structured_outputs,
    frontend,
    policy,
)

ORDER = [
    "sampling-replay-requires-mrv2",
    "sampling-replay-no-speculative",
    "sampling-replay-adaptive-verification",
    "sampling-replay-no-diffusion",
    "sampling-replay-no-custom-logits-processors",
    "sampling-replay-requires-processed-logprobs",
    "trace-replay-requires-mrv2",
    "hisparse-requires-mrv2",
    "hisparse-no-pipeline-parallel",
    "hisparse-no-decode-context-parallel",
    "per-request-spec-decode-metrics-requires-spec",
    "async-scheduling-spec-method-0.20",
    "async-scheduling-spec-method-0.25",
    "async-scheduling-spec-method-0.31",
    "async-scheduling-vs-disable-padded-drafter-batch",
    "adaptive-verification-vs-lora",
    "adaptive-verification-vs-eager",
    "adaptive-verification-vs-pipeline-parallel",
    "adaptive-verification-dspark-only",
    "spec-tensor-parallel-size-key",
    "spec-num-speculative-tokens-positive",
    "spec-shorthand-conflict",
    "routed-experts-no-pipeline-parallel",
    "routed-experts-no-context-parallel-0.28",
    "routed-experts-no-context-parallel",
    "routed-experts-no-kv-connector",
    "routed-experts-vs-adaptive-verification",
    "mamba-stochastic-rounding-requires-fp16-ssm-cache",
    "replayssm-no-speculative",
    "replayssm-requires-triton-backend",
    "dp-size-local-le-dp-size",
    "external-lb-requires-dp",
    "eplb-requires-expert-parallel",
    "eplb-requires-parallelism-0.20",
    "eplb-requires-parallelism",
    "redundant-experts-require-eplb",
    "pcp-vs-data-parallel",
    "tp-divisible-by-dcp-0.20",
    "tp-divisible-by-dcp",
    "elastic-ep-requires-eplb",
    "elastic-ep-no-pipeline-parallel",
    "elastic-ep-vs-external-or-hybrid-lb",
    "elastic-ep-vs-hybrid-lb",
    "nnodes-requires-mp-executor",
    "async-eplb-default-policy",
    "numa-bind-lists-require-numa-bind",
    "elastic-ep-max-dp-size-ge-dp-size",
    "dp-hybrid-vs-external-lb",
    "nnodes-requires-mp-dp-backend",
    "nnodes-must-divide-world-size-0.27",
    "nnodes-must-divide-world-size",
    "node-rank-in-range",
    "attention-backend-set-twice",
    "cudagraph-capture-sizes-set-twice",
    "max-cudagraph-capture-size-set-twice",
    "flashinfer-autotune-set-twice",
    "max-batched-tokens-ge-max-num-seqs",
    "max-num-active-seqs-le-max-num-seqs",
    "partial-prefills-require-chunked-prefill",
    "max-cpu-loras-ge-max-loras",
    "detailed-traces-require-otlp-endpoint",
    "kv-connector-requires-kv-role",
    "tp-must-divide-attention-heads",
    "expert-parallel-requires-moe",
    "external-dp-requires-moe",
    "kv-role-unsupported",
    "max-batched-tokens-below-max-model-len",
    "long-prefill-threshold-gt-max-model-len",
    "custom-ops-syntax",
    "custom-ops-one-base-mode",
    "eplb-log-balancedness-interval-positive",
    "structured-outputs-any-whitespace-backend",
    "structured-outputs-additional-properties-backend",
    "spec-synthetic-needs-rates-or-length",
    "spec-synthetic-rates-length",
    "spec-synthetic-rates-in-unit-interval",
    "spec-synthetic-rates-non-increasing",
    "spec-synthetic-length-range",
    "spec-synthetic-options-need-synthetic",
    "profiler-torch-dir-only-for-torch",
    "profiler-torch-requires-dir",
    "profiler-proton-requires-dir",
    "profiler-proton-options-only-for-proton",
    "profiler-chrome-trace-requires-trace-data",
    "profiler-graph-attribution-requires-tree",
    "profiler-graph-attribution-vs-periodic-flushing",
    "profiler-capture-torch-only-for-torch",
    "profiler-torch-activities-only-for-torch",
    "profiler-torch-activities-unique",
    "auto-tool-choice-requires-parser-0.20.0",
    "auto-tool-choice-requires-parser-0.29.0",
    "auto-tool-choice-requires-parser",
    "log-outputs-requires-log-requests-0.20.0",
    "log-outputs-requires-log-requests-0.29.0",
    "log-outputs-requires-log-requests",
    "per-request-metrics-require-log-stats-0.25.0",
    "per-request-metrics-require-log-stats-0.29.0",
    "per-request-metrics-require-log-stats",
    "sse-keep-alive-interval-non-negative-0.29.0",
    "sse-keep-alive-interval-non-negative",
    "headless-no-api-servers",
    "dp-one-lb-mode-0.20",
    "dp-one-lb-mode",
    "dp-rank-in-range",
    "dbo-thresholds-cover-microbatches",
    "dcp-a2a-requires-dcp",
    "numa-bind-nodes-not-empty",
    "numa-bind-nodes-non-negative",
    "async-eplb-communicator",
    "ec-connector-requires-ec-role",
    "ec-role-unsupported",
    "custom-ops-enable-and-disable",
    "encoder-cudagraph-budgets-positive",
    "dp-external-lb-requires-rank",
    "dp-external-rank-requires-size-local-1",
    "dp-hybrid-lb-requires-size-local",
    "fault-tolerance-requires-external-lb",
    "spec-ngram-lookup-min-le-max",
    "spec-tokens-without-model",
    "spec-custom-class-requires-model",
    "spec-heterogeneous-vocab-requires-draft-model",
    "spec-heterogeneous-vocab-greedy-only",
    "lora-spec-batched-token-budget",
    "mamba-ssu-algorithm-requires-flashinfer",
    "world-size-exceeds-node-gpus",
    "dcp-gqa-requires-tp-above-kv-heads",
    "mrv2-forced-unsupported-features",
    "max-model-len-above-derived",
    "policy-collection-nothing-replayable",
    "policy-serving-returns-sampling-mask",
    "policy-collection-no-speculative",
]


def all_rules():
    """Every rule spec, in pack order (ORDER first, then unlisted rules by topic; policy rules last)."""
    specs = [r for topic in TOPICS for r in topic.RULES]
    ids = [r["id"] for r in specs]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise SystemExit(f"rule ids defined twice: {dup}")
    unknown = sorted(set(ORDER) - set(ids))
    if unknown:
        raise SystemExit(f"ORDER names rules no topic defines: {unknown}")
    rank = {rid: i for i, rid in enumerate(ORDER)}
    specs.sort(key=lambda r: (r.get("category", "vllm") == "policy", rank.get(r["id"], len(ORDER))))
    return specs


def all_cases():
    """{rule id: (failing profile, passing profile)} of every topic."""
    out = {}
    for topic in TOPICS:
        out.update(topic.CASES)
    return out
