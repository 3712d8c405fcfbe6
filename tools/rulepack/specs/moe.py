"""Mixture of experts: expert parallelism, EPLB, elastic EP, routed-experts capture."""

from tools.rulepack.expr import (
    ADAPTIVE,
    EPLB_NRE,
    HAS_SPEC,
    KV_INSTANCE,
    A,
    R,
    join_present,
    q,
    spec_field_true,
    sub,
)
from tools.rulepack.profiles import ADAPT, MIXTRAL, m

# 0.21.0's VllmConfig.__post_init__ resolves an unset --async-scheduling (None) before
# _validate_return_routed_experts() reads it: off for a pooling runner, for a speculative method that is not
# an EAGLE type (eagle, eagle3, extract_hidden_states, the MTP types, dflash) or ngram_gpu, for
# disable_padded_drafter_batch, and for an executor without async scheduling (Ray); on otherwise (mp, uni and
# external_launcher support it).
_ASYNC_DEFAULT_0_21 = (
    f'!({A("runner")} && args.runner == "pooling") && '
    f"!({HAS_SPEC} && !(derived.spec_method in "
    f"{q(['eagle', 'eagle3', 'extract_hidden_states', 'mtp', 'dflash', 'ngram_gpu'])})) && "
    f"!{spec_field_true('disable_padded_drafter_batch')} && "
    f'!({A("distributed_executor_backend")} && args.distributed_executor_backend == "ray")'
)
ASYNC_EFFECTIVE_0_21 = f"({A('async_scheduling')} ? args.async_scheduling == true : ({_ASYNC_DEFAULT_0_21}))"
_RRE_0_21_ITEMS = [
    (
        "effective.pipeline_parallel_size > 1",
        '"pipeline parallelism (pipeline_parallel_size=" + string(effective.pipeline_parallel_size) + ")"',
    ),
    (
        "effective.prefill_context_parallel_size > 1",
        '"prefill context parallelism (prefill_context_parallel_size=" + '
        'string(effective.prefill_context_parallel_size) + ")"',
    ),
    (
        "effective.decode_context_parallel_size > 1",
        '"decode context parallelism (decode_context_parallel_size=" + '
        'string(effective.decode_context_parallel_size) + ")"',
    ),
    (ASYNC_EFFECTIVE_0_21, '"async scheduling"'),
]

RULES = [
    R(
        "routed-experts-not-yet-validated-0.21",
        "--enable-return-routed-experts is not yet validated with: ",
        "effective.enable_return_routed_experts == true && ("
        + " || ".join(f"({c})" for c, _ in _RRE_0_21_ITEMS)
        + ")",
        [
            "enable_return_routed_experts",
            "async_scheduling",
            "pipeline_parallel_size",
            "prefill_context_parallel_size",
            "decode_context_parallel_size",
        ],
        [
            "Add --no-async-scheduling and keep pipeline/prefill/decode context parallel sizes at 1",
            "Drop --enable-return-routed-experts",
        ],
        (
            "VllmConfig._validate_return_routed_experts (0.21.0 only): routed-experts capture was validated "
            "with TP, EP, DP, prefix caching and speculative decoding only, so PP > 1, PCP > 1, DCP > 1 and "
            "async scheduling are refused, listed in that order. Async scheduling is on by default (an unset "
            "--async-scheduling is resolved to on unless the runner is pooling, the speculative method is "
            "not an EAGLE/MTP/DFlash/ngram_gpu one, disable_padded_drafter_batch is set or the executor is "
            "Ray), so the flag is refused unless --no-async-scheduling is given. Any model, MoE or not."
        ),
        ["moe", "parallelism"],
        values={"', '.join(unsupported)": join_present(_RRE_0_21_ITEMS)},
    ),
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
        values={
            "self.tensor_parallel_size": "effective.tensor_parallel_size",
            "self.data_parallel_size": "effective.data_parallel_size",
        },
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
        values={
            "self.tensor_parallel_size": "effective.tensor_parallel_size",
            "self.prefill_context_parallel_size": "effective.prefill_context_parallel_size",
            "self.data_parallel_size": "effective.data_parallel_size",
        },
    ),
    R(
        "redundant-experts-require-eplb",
        "num_redundant_experts is set to {self.eplb_config.num_redundant_experts}",
        f"effective.enable_eplb != true && {EPLB_NRE}",
        ["eplb_config", "enable_eplb"],
        ["Add --enable-eplb", "Remove eplb_config.num_redundant_experts"],
        "Redundant experts are an EPLB feature.",
        ["moe", "eplb"],
        values={"self.eplb_config.num_redundant_experts": "args.eplb_config.num_redundant_experts"},
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
        values={"self.pipeline_parallel_size": "effective.pipeline_parallel_size"},
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
        "elastic-ep-async-eplb-requires-nixl",
        "Elastic EP with async EPLB requires the NIXL package.",
        "effective.enable_elastic_ep == true && effective.enable_eplb == true && "
        f"!({sub('eplb_config', 'use_async')} && args.eplb_config.use_async == false)",
        ["enable_elastic_ep", "eplb_config"],
        [
            "Set --eplb-config.use_async=false",
            "Install NIXL (pip install nixl) on every node of the deployment, or use an image that has it",
        ],
        "ParallelConfig.__post_init__: Elastic EP with asynchronous EPLB (eplb_config.use_async, on by "
        "default) moves experts through NIXL, which a default `pip install vllm` does not install (it is "
        "not a requirement of the wheel). The product assumes a default install; with NIXL installed on "
        "the serving hosts this finding can be waived.",
        ["moe", "elastic-ep", "installation"],
        fix={"set": {"eplb_config.use_async": False}},
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
        "elastic-ep-max-dp-size-ge-dp-size",
        "--elastic-ep-max-dp-size must be greater than or equal to",
        f"effective.enable_elastic_ep == true && {A('elastic_ep_max_dp_size')} && "
        "args.elastic_ep_max_dp_size < effective.data_parallel_size",
        ["elastic_ep_max_dp_size", "data_parallel_size"],
        ["Set --elastic-ep-max-dp-size to at least --data-parallel-size"],
        "The elastic maximum cannot be below the initial data-parallel size.",
        ["moe", "elastic-ep"],
        values={"self.data_parallel_size": "effective.data_parallel_size"},
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
    R(
        "async-eplb-communicator",
        (
            "{self.communicator} communicator is incompatible with async EPLB due to NCCL multi-stream "
            "conflicts. Use 'torch_gloo' or 'nixl' instead, or leave communicator unset for automatic "
            "selection."
        ),
        (
            f'{sub("eplb_config", "communicator")} && args.eplb_config.communicator in ["torch_nccl", '
            f'"pynccl"] && '
            f"!({sub('eplb_config', 'use_async')} && args.eplb_config.use_async == false)"
        ),
        ["eplb_config"],
        [
            "Use eplb_config.communicator torch_gloo or nixl, or leave it unset",
            "Set eplb_config.use_async false",
        ],
        "EPLBConfig validator; use_async defaults to true.",
        ["moe", "eplb"],
        fix={"unset": ["eplb_config.communicator"]},
        values={"self.communicator": "args.eplb_config.communicator"},
    ),
]

CASES = {
    "routed-experts-not-yet-validated-0.21": (
        {"enable_return_routed_experts": True},
        {"enable_return_routed_experts": True, "async_scheduling": False},
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
    "elastic-ep-requires-eplb": (
        {"enable_elastic_ep": True, "enable_expert_parallel": True, "data_parallel_size": 2},
        {
            "enable_elastic_ep": True,
            "enable_eplb": True,
            "enable_expert_parallel": True,
            "data_parallel_size": 2,
        },
    ),
    "elastic-ep-async-eplb-requires-nixl": (
        {
            "enable_elastic_ep": True,
            "enable_eplb": True,
            "enable_expert_parallel": True,
            "data_parallel_size": 2,
        },
        {
            "enable_elastic_ep": True,
            "enable_eplb": True,
            "enable_expert_parallel": True,
            "data_parallel_size": 2,
            "eplb_config": {"use_async": False},
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
    "async-eplb-default-policy": (
        {"eplb_config": {"use_async": True, "policy": "flashlb"}},
        {"eplb_config": {"use_async": True, "policy": "default"}},
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
    "expert-parallel-requires-moe": (
        {"enable_expert_parallel": True, "tensor_parallel_size": 2},
        dict(args={"enable_expert_parallel": True, "tensor_parallel_size": 2}, model=MIXTRAL),
    ),
    "eplb-log-balancedness-interval-positive": (
        {"eplb_config": {"log_balancedness": True, "log_balancedness_interval": 0}},
        {"eplb_config": {"log_balancedness": True, "log_balancedness_interval": 1}},
    ),
    "async-eplb-communicator": (
        {"eplb_config": {"communicator": "torch_nccl"}},
        {"eplb_config": {"communicator": "torch_gloo"}},
    ),
}
