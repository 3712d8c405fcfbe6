"""Write tests/engine/rulepack_cases/<tag>.yaml (all but acceptance.yaml) from the failing/passing profiles
in this file and cases2.py: each end of each rule's range, plus the failing profile just outside it."""

import importlib.util
import os
import sys

import yaml

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from packaging.specifiers import SpecifierSet
from packaging.version import Version
from vers import CASES, PACK, TOOLS

VERS = (
    "0.20.0 0.20.1 0.20.2 0.21.0 0.22.0 0.22.1 0.23.0 0.24.0 0.25.0 0.25.1 0.26.0 0.27.0 0.27.1 0.28.0 "
    "0.29.0 0.30.0 0.31.0 0.32.0 0.33.0 0.34.0"
).split()
with open(PACK) as fh:
    pack = yaml.safe_load(fh)
rules = {r["id"]: r for r in pack["rules"]}

LLAMA = {
    "name": "meta-llama/Llama-3.1-8B-Instruct",
    "architecture": "LlamaForCausalLM",
    "config": {"num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 131072},
}
HIS = {"attention_config": {"hisparse_config": {"topk": 2048}}}
ADAPT = {
    "speculative_config": {
        "method": "dspark",
        "num_speculative_tokens": 7,
        "enable_adaptive_verification": True,
    }
}
SPEC_EAGLE = {
    "speculative_config": {
        "method": "eagle",
        "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
        "num_speculative_tokens": 3,
    }
}
NGRAM = {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}
RSM = {"return_sampling_mask": True, "logprobs_mode": "processed_logprobs"}


def m(*ds):
    out = {}
    for d in ds:
        out.update(d)
    return out


# rule -> (failing profile, passing profile); a profile is args, or a dict with args/env/model/kind
T = {
    "sampling-replay-requires-mrv2": (
        dict(args=RSM, env={"VLLM_USE_V2_MODEL_RUNNER": "0"}),
        dict(args=RSM, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
    ),
    "sampling-replay-no-speculative": (
        dict(args=m(RSM, {"speculative_config": NGRAM}), env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
        dict(args=RSM, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
    ),
    "sampling-replay-adaptive-verification": (
        m(RSM, ADAPT),
        m(RSM, {"speculative_config": {"method": "dspark", "num_speculative_tokens": 7}}),
    ),
    "sampling-replay-no-diffusion": (
        dict(
            args=RSM, model={"name": "dllm", "architecture": "LLaDAModelLM", "config": {"canvas_length": 256}}
        ),
        dict(args=RSM, model=LLAMA),
    ),
    "sampling-replay-no-custom-logits-processors": (
        m(RSM, {"logits_processors": ["my_pkg.MyProcessor"]}),
        m(RSM, {"logits_processors": []}),
    ),
    "sampling-replay-requires-processed-logprobs": ({"return_sampling_mask": True}, RSM),
    "trace-replay-requires-mrv2": (
        dict(args={"enable_trace_replay": True}, env={"VLLM_USE_V2_MODEL_RUNNER": "0"}),
        dict(args={"enable_trace_replay": True}, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
    ),
    "hisparse-requires-mrv2": (
        dict(args=HIS, env={"VLLM_USE_V2_MODEL_RUNNER": "0"}),
        dict(args=HIS, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
    ),
    "hisparse-no-pipeline-parallel": (
        m(HIS, {"pipeline_parallel_size": 2}),
        m(HIS, {"tensor_parallel_size": 2}),
    ),
    "hisparse-no-decode-context-parallel": (
        m(HIS, {"decode_context_parallel_size": 2, "tensor_parallel_size": 2}),
        HIS,
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
    "routed-experts-no-pipeline-parallel": (
        {"enable_return_routed_experts": True, "pipeline_parallel_size": 2},
        {"enable_return_routed_experts": True, "tensor_parallel_size": 2},
    ),
    "routed-experts-no-context-parallel-0.28": (
        {"enable_return_routed_experts": True, "tensor_parallel_size": 4, "decode_context_parallel_size": 2},
        {"enable_return_routed_experts": True, "tensor_parallel_size": 4},
    ),
    "routed-experts-no-context-parallel": (
        {"enable_return_routed_experts": True, "prefill_context_parallel_size": 2},
        {"enable_return_routed_experts": True},
    ),
    "routed-experts-no-kv-connector": (
        {
            "enable_return_routed_experts": True,
            "kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"},
        },
        {"enable_return_routed_experts": True},
    ),
    "routed-experts-vs-adaptive-verification": (
        m({"enable_return_routed_experts": True}, ADAPT),
        {"enable_return_routed_experts": True},
    ),
    "mamba-stochastic-rounding-requires-fp16-ssm-cache": (
        {"enable_mamba_cache_stochastic_rounding": True},
        {"enable_mamba_cache_stochastic_rounding": True, "mamba_ssm_cache_dtype": "float16"},
    ),
    "replayssm-no-speculative": (
        {"use_replayssm": True, "speculative_config": NGRAM},
        {"use_replayssm": True},
    ),
    "replayssm-requires-triton-backend": (
        {"use_replayssm": True, "mamba_backend": "flashinfer"},
        {"use_replayssm": True, "mamba_backend": "triton"},
    ),
    "dp-size-local-le-dp-size": (
        {"data_parallel_size": 2, "data_parallel_size_local": 4},
        {"data_parallel_size": 4, "data_parallel_size_local": 2},
    ),
    "external-lb-requires-dp": (
        {"data_parallel_external_lb": True},
        {"data_parallel_external_lb": True, "data_parallel_size": 2, "data_parallel_rank": 0},
    ),
    "eplb-requires-expert-parallel": (
        {"enable_eplb": True, "tensor_parallel_size": 2},
        {"enable_eplb": True, "enable_expert_parallel": True, "tensor_parallel_size": 2},
    ),
    "eplb-requires-parallelism-0.20": (
        {"enable_eplb": True, "enable_expert_parallel": True},
        {"enable_eplb": True, "enable_expert_parallel": True, "data_parallel_size": 2},
    ),
    "eplb-requires-parallelism": (
        {"enable_eplb": True, "enable_expert_parallel": True},
        {"enable_eplb": True, "enable_expert_parallel": True, "prefill_context_parallel_size": 2},
    ),
    "redundant-experts-require-eplb": (
        {"eplb_config": {"num_redundant_experts": 32}},
        {"eplb_config": {"num_redundant_experts": 0}},
    ),
    "pcp-vs-data-parallel": (
        {"prefill_context_parallel_size": 2, "data_parallel_size": 2},
        {"prefill_context_parallel_size": 2},
    ),
    "tp-divisible-by-dcp-0.20": (
        {"tensor_parallel_size": 6, "decode_context_parallel_size": 4},
        {"tensor_parallel_size": 8, "decode_context_parallel_size": 4},
    ),
    "tp-divisible-by-dcp": (
        {"tensor_parallel_size": 6, "decode_context_parallel_size": 4},
        {"tensor_parallel_size": 8, "decode_context_parallel_size": 4},
    ),
    "elastic-ep-requires-eplb": (
        {"enable_elastic_ep": True, "enable_expert_parallel": True, "data_parallel_size": 2},
        {
            "enable_elastic_ep": True,
            "enable_eplb": True,
            "enable_expert_parallel": True,
            "data_parallel_size": 2,
        },
    ),
    "elastic-ep-no-pipeline-parallel": (
        {"enable_elastic_ep": True, "enable_eplb": True, "pipeline_parallel_size": 2},
        {"enable_elastic_ep": True, "enable_eplb": True},
    ),
    "elastic-ep-vs-external-or-hybrid-lb": (
        {
            "enable_elastic_ep": True,
            "enable_eplb": True,
            "data_parallel_size": 2,
            "data_parallel_external_lb": True,
        },
        {"enable_elastic_ep": True, "enable_eplb": True, "data_parallel_size": 2},
    ),
    "elastic-ep-vs-hybrid-lb": (
        {
            "enable_elastic_ep": True,
            "enable_eplb": True,
            "data_parallel_size": 4,
            "data_parallel_hybrid_lb": True,
        },
        {
            "enable_elastic_ep": True,
            "enable_eplb": True,
            "data_parallel_size": 4,
            "data_parallel_external_lb": True,
        },
    ),
    "nnodes-requires-mp-executor": (
        {"nnodes": 2, "tensor_parallel_size": 16, "distributed_executor_backend": "ray"},
        {"nnodes": 2, "tensor_parallel_size": 16, "distributed_executor_backend": "mp"},
    ),
    "async-eplb-default-policy": (
        {"eplb_config": {"use_async": True, "policy": "flashlb"}},
        {"eplb_config": {"use_async": True, "policy": "default"}},
    ),
    "numa-bind-lists-require-numa-bind": (
        {"numa_bind_nodes": [0, 1]},
        {"numa_bind": True, "numa_bind_nodes": [0, 1]},
    ),
    "elastic-ep-max-dp-size-ge-dp-size": (
        {
            "enable_elastic_ep": True,
            "enable_eplb": True,
            "data_parallel_size": 4,
            "elastic_ep_max_dp_size": 2,
        },
        {
            "enable_elastic_ep": True,
            "enable_eplb": True,
            "data_parallel_size": 4,
            "elastic_ep_max_dp_size": 8,
        },
    ),
    "dp-hybrid-vs-external-lb": (
        {"data_parallel_size": 4, "data_parallel_hybrid_lb": True, "data_parallel_external_lb": True},
        {"data_parallel_size": 4, "data_parallel_hybrid_lb": True, "data_parallel_size_local": 2},
    ),
    "nnodes-requires-mp-dp-backend": (
        {"nnodes": 2, "data_parallel_size": 2, "data_parallel_backend": "ray"},
        {"nnodes": 2, "data_parallel_size": 2},
    ),
    "nnodes-must-divide-world-size-0.27": (
        {"nnodes": 3, "tensor_parallel_size": 8},
        {"nnodes": 2, "tensor_parallel_size": 8},
    ),
    "nnodes-must-divide-world-size": (
        {"nnodes": 4, "tensor_parallel_size": 2},
        {"nnodes": 2, "tensor_parallel_size": 2, "prefill_context_parallel_size": 2},
    ),
    "node-rank-in-range": (
        {"nnodes": 2, "tensor_parallel_size": 16, "node_rank": 2},
        {"nnodes": 2, "tensor_parallel_size": 16, "node_rank": 1},
    ),
    "attention-backend-set-twice": (
        {"attention_backend": "FLASH_ATTN", "attention_config": {"backend": "FLASHINFER"}},
        {"attention_backend": "FLASH_ATTN"},
    ),
    "cudagraph-capture-sizes-set-twice": (
        {"cudagraph_capture_sizes": [1, 2, 4], "compilation_config": {"cudagraph_capture_sizes": [8]}},
        {"compilation_config": {"cudagraph_capture_sizes": [8]}},
    ),
    "max-cudagraph-capture-size-set-twice": (
        {"max_cudagraph_capture_size": 256, "compilation_config": {"max_cudagraph_capture_size": 512}},
        {"max_cudagraph_capture_size": 256},
    ),
    "flashinfer-autotune-set-twice": (
        {"enable_flashinfer_autotune": True, "kernel_config": {"enable_flashinfer_autotune": False}},
        {"kernel_config": {"enable_flashinfer_autotune": False}},
    ),
    "max-batched-tokens-ge-max-num-seqs": (
        {"max_num_batched_tokens": 128, "max_num_seqs": 256},
        {"max_num_batched_tokens": 8192, "max_num_seqs": 256},
    ),
    "max-num-active-seqs-le-max-num-seqs": (
        {"max_num_active_seqs": 512, "max_num_seqs": 256},
        {"max_num_active_seqs": 128, "max_num_seqs": 256},
    ),
    "partial-prefills-require-chunked-prefill": (
        {"max_num_partial_prefills": 2, "enable_chunked_prefill": False},
        {"max_num_partial_prefills": 2, "enable_chunked_prefill": True},
    ),
    "max-cpu-loras-ge-max-loras": (
        {"enable_lora": True, "max_loras": 4, "max_cpu_loras": 2},
        {"enable_lora": True, "max_loras": 4, "max_cpu_loras": 8},
    ),
    "detailed-traces-require-otlp-endpoint": (
        {"collect_detailed_traces": ["model"]},
        {"collect_detailed_traces": ["model"], "otlp_traces_endpoint": "http://otel:4317"},
    ),
    "kv-connector-requires-kv-role": (
        {"kv_transfer_config": {"kv_connector": "NixlConnector"}},
        {"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}},
    ),
    "policy-collection-nothing-replayable": (
        dict(args={}, kind="collection"),
        dict(args={"logprobs_mode": "processed_logprobs"}, kind="collection"),
    ),
    "policy-serving-returns-sampling-mask": (
        dict(args=RSM, kind="serving", env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
        dict(args={"logprobs_mode": "processed_logprobs"}, kind="serving"),
    ),
    "policy-collection-no-speculative": (
        dict(args={"speculative_config": NGRAM}, kind="collection"),
        dict(args={}, kind="collection"),
    ),
}


MIXTRAL = {
    "name": "mistralai/Mixtral-8x7B-Instruct-v0.1",
    "architecture": "MixtralForCausalLM",
    "config": {"num_attention_heads": 32, "num_local_experts": 8},
}
T.update(
    {
        "tp-must-divide-attention-heads": ({"tensor_parallel_size": 3}, {"tensor_parallel_size": 4}),
        "expert-parallel-requires-moe": (
            {"enable_expert_parallel": True, "tensor_parallel_size": 2},
            dict(args={"enable_expert_parallel": True, "tensor_parallel_size": 2}, model=MIXTRAL),
        ),
        "external-dp-requires-moe": (
            {"data_parallel_size": 2, "data_parallel_rank": 0},
            dict(args={"data_parallel_size": 2, "data_parallel_rank": 0}, model=MIXTRAL),
        ),
        "kv-role-unsupported": (
            {"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "producer"}},
            {"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_producer"}},
        ),
        "max-batched-tokens-below-max-model-len": (
            {"max_num_batched_tokens": 4096, "max_model_len": 8192, "enable_chunked_prefill": False},
            {"max_num_batched_tokens": 4096, "max_model_len": 8192, "enable_chunked_prefill": True},
        ),
        "long-prefill-threshold-gt-max-model-len": (
            {"long_prefill_token_threshold": 16384, "max_model_len": 8192},
            {"long_prefill_token_threshold": 2048, "max_model_len": 8192},
        ),
        "custom-ops-syntax": (
            {"compilation_config": {"custom_ops": ["none", "rms_norm"]}},
            {"compilation_config": {"custom_ops": ["none", "+rms_norm"]}},
        ),
        "custom-ops-one-base-mode": (
            {"compilation_config": {"custom_ops": ["none", "all"]}},
            {"compilation_config": {"custom_ops": ["all", "-rms_norm"]}},
        ),
        "eplb-log-balancedness-interval-positive": (
            {"eplb_config": {"log_balancedness": True, "log_balancedness_interval": 0}},
            {"eplb_config": {"log_balancedness": True, "log_balancedness_interval": 1}},
        ),
    }
)

_spec = importlib.util.spec_from_file_location("cases2", TOOLS / "cases2.py")
_cases2 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cases2)
T.update(_cases2.T2)


def norm(p):
    if "args" not in p:
        p = {"args": p}
    out = {
        "kind": p.get("kind", "serving"),
        "model": p.get("model", LLAMA),
        "args": p["args"],
        "env": p.get("env", {}),
    }
    if p.get("hardware"):
        out["hardware"] = p["hardware"]
    return out


def in_range(rule, v):
    return Version(v) in SpecifierSet(rule.get("versions", ""))


groups = {}
missing = [r for r in rules if r not in T]
assert not missing, missing
for rid, (bad, good) in T.items():
    rule = rules[rid]
    vs = [v for v in VERS if in_range(rule, v)]
    picks = sorted({vs[0], vs[-1]}, key=VERS.index)
    cases = []
    for v in picks:
        cases.append(dict(name=f"{rid} fires on {v}", vllm=v, **norm(bad), fires=[rid]))
        cases.append(dict(name=f"{rid} passes on {v}", vllm=v, **norm(good), absent=[rid]))
    i0, i1 = VERS.index(vs[0]), VERS.index(vs[-1])
    for j in (i0 - 1, i1 + 1):
        if 0 <= j < len(VERS):
            cases.append(
                dict(name=f"{rid} does not apply on {VERS[j]}", vllm=VERS[j], **norm(bad), absent=[rid])
            )
    grp = rule["category"] if rule["category"] == "policy" else (rule.get("tags") or ["misc"])[0]
    groups.setdefault(grp, []).append({"rule": rid, "cases": cases})


class NoAlias(yaml.SafeDumper):
    def ignore_aliases(self, data):
        return True


out = sys.argv[1] if len(sys.argv) > 1 else str(CASES)
os.makedirs(out, exist_ok=True)
for g, items in groups.items():
    with open(f"{out}/{g}.yaml", "w") as fh:
        fh.write(
            "# One failing and one passing profile at each end of each rule's version range, "
            "and the failing\n"
            "# profile just outside the range. Format: see tests/engine/test_rulepack.py.\n"
        )
        yaml.dump(items, fh, Dumper=NoAlias, sort_keys=False, width=110)
print(sum(len(i["cases"]) for g in groups.values() for i in g))
