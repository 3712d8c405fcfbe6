"""Tensor, pipeline and context parallelism, world size, NUMA binding, dual batch overlap (ParallelConfig)."""

from tools.rulepack.expr import HEADS, HISPARSE, KVH, UBATCHING, A, R
from tools.rulepack.profiles import HIS, m

# ParallelConfig.all2all_backend after __post_init__ (the removed pplx/naive fall back to the default)
_A2A = (
    f'({A("all2all_backend")} && !(args.all2all_backend in ["pplx", "naive"]) ? args.all2all_backend : '
    '"allgather_reducescatter")'
)
_DBO_FIX = [
    "Add --all2all-backend deepep_low_latency (with the DeepEP kernels installed)",
    "Drop --enable-dbo",
]
_DBO_DOC = (
    "VllmConfig.__post_init__ asserts that microbatching (--enable-dbo, or --ubatch-size > 1) runs on an "
    "all2all backend that can overlap it; the default backend is allgather_reducescatter."
)

RULES = [
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
        values={
            "self.tensor_parallel_size": "effective.tensor_parallel_size",
            "self.decode_context_parallel_size": "effective.decode_context_parallel_size",
        },
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
        values={"tp": "effective.tensor_parallel_size", "dcp": "effective.decode_context_parallel_size"},
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
        values={"total_num_attention_heads": HEADS, "tensor_parallel_size": "effective.tensor_parallel_size"},
    ),
    R(
        "dbo-thresholds-cover-microbatches",
        (
            "dbo_decode_token_threshold and dbo_prefill_token_threshold must be at least the number of "
            "microbatches ({self.num_ubatches})."
        ),
        (
            f"(effective.enable_dbo == true || effective.ubatch_size > 1) && "
            f"(({A('dbo_decode_token_threshold')} && args.dbo_decode_token_threshold < "
            f"(effective.enable_dbo == true ? 2 : effective.ubatch_size)) || "
            f"({A('dbo_prefill_token_threshold')} && args.dbo_prefill_token_threshold < "
            f"(effective.enable_dbo == true ? 2 : effective.ubatch_size)))"
        ),
        ["dbo_decode_token_threshold", "dbo_prefill_token_threshold", "enable_dbo", "ubatch_size"],
        [
            (
                "Raise the DBO token thresholds to at least the number of microbatches (2 with "
                "--enable-dbo, else --ubatch-size)"
            )
        ],
        (
            "ParallelConfig: with microbatching on (enable_dbo, or ubatch_size > 1), a batch below the "
            "threshold is not split; the number of microbatches is 2 with DBO, else ubatch_size. Defaults "
            "are 32 / 512."
        ),
        ["parallelism", "dbo"],
        values={"self.num_ubatches": "effective.enable_dbo == true ? 2 : effective.ubatch_size"},
    ),
    R(
        "dbo-requires-deepep-all2all",
        "Microbatching currently only supports the deepep_low_latency and deepep_high_throughput all2all",
        f'{UBATCHING} && !({_A2A} in ["deepep_low_latency", "deepep_high_throughput"])',
        ["enable_dbo", "ubatch_size", "all2all_backend"],
        _DBO_FIX,
        _DBO_DOC,
        ["parallelism", "dbo"],
        values={"a2a_backend": _A2A},
    ),
    R(
        "dbo-requires-deepep-or-nixl-all2all",
        "Microbatching currently only supports the deepep_low_latency, deepep_high_throughput, and nixl_ep",
        f'{UBATCHING} && !({_A2A} in ["deepep_low_latency", "deepep_high_throughput", "nixl_ep"])',
        ["enable_dbo", "ubatch_size", "all2all_backend"],
        _DBO_FIX,
        _DBO_DOC,
        ["parallelism", "dbo"],
        values={"a2a_backend": _A2A},
    ),
    R(
        "dbo-requires-platform-all2all",
        "Microbatching currently only supports the {', '.join(supported_backends)} all2all backends on this",
        f'{UBATCHING} && !({_A2A} in ["deepep_low_latency", "deepep_high_throughput", "nixl_ep"])',
        ["enable_dbo", "ubatch_size", "all2all_backend"],
        _DBO_FIX,
        _DBO_DOC
        + " On CUDA (the product's target) the list is deepep_low_latency, deepep_high_throughput, nixl_ep.",
        ["parallelism", "dbo"],
        values={
            "', '.join(supported_backends)": '"deepep_low_latency, deepep_high_throughput, nixl_ep"',
            "a2a_backend": _A2A,
            "', '.join('--all2all-backend=' + b for b in supported_backends)": (
                '"--all2all-backend=deepep_low_latency, --all2all-backend=deepep_high_throughput, '
                '--all2all-backend=nixl_ep"'
            ),
        },
        msg_text=(
            "Microbatching currently only supports the {', '.join(supported_backends)} all2all backends on "
            "this platform. {a2a_backend} is not supported. To fix use one of "
            "{', '.join('--all2all-backend=' + b for b in supported_backends)} and install the matching "
            "kernels."
        ),
    ),
    R(
        "dcp-a2a-requires-dcp",
        "dcp_comm_backend='a2a' requires decode_context_parallel_size > 1.",
        (
            f'{A("dcp_comm_backend")} && args.dcp_comm_backend == "a2a" && '
            f"effective.decode_context_parallel_size <= 1"
        ),
        ["dcp_comm_backend", "decode_context_parallel_size"],
        [
            "Remove --dcp-comm-backend a2a",
            "Enable decode context parallelism (--decode-context-parallel-size > 1)",
        ],
        "ParallelConfig.",
        ["parallelism"],
        fix={"unset": ["dcp_comm_backend"]},
    ),
    R(
        "numa-bind-nodes-not-empty",
        "numa_bind_nodes must not be empty.",
        f"{A('numa_bind_nodes')} && size(args.numa_bind_nodes) == 0",
        ["numa_bind_nodes"],
        ["List at least one NUMA node, or remove --numa-bind-nodes"],
        "ParallelConfig field validator.",
        ["numa"],
        fix={"unset": ["numa_bind_nodes"]},
    ),
    R(
        "numa-bind-nodes-non-negative",
        "numa_bind_nodes must contain non-negative integers.",
        f"{A('numa_bind_nodes')} && args.numa_bind_nodes.exists(n, n < 0)",
        ["numa_bind_nodes"],
        ["Use NUMA node ids 0, 1, ..."],
        "ParallelConfig field validator.",
        ["numa"],
    ),
    R(
        "world-size-exceeds-node-gpus",
        (
            "World size ({self.world_size}) is larger than the number of available GPUs ({gpu_count}) in "
            "this node. If this is intentional and you are using:\n- ray, set "
            "'--distributed-executor-backend ray'.\n- multiprocessing, set '--nnodes' appropriately."
        ),
        (
            f"!{A('distributed_executor_backend')} && effective.nnodes == 1 && "
            "effective.pipeline_parallel_size * effective.tensor_parallel_size * "
            "effective.prefill_context_parallel_size > 1 && "
            "hardware.gpus_per_node < effective.pipeline_parallel_size * effective.tensor_parallel_size * "
            "effective.prefill_context_parallel_size"
        ),
        [
            "tensor_parallel_size",
            "pipeline_parallel_size",
            "prefill_context_parallel_size",
            "nnodes",
            "hardware",
        ],
        [
            "Lower the parallel sizes to fit the node's GPUs",
            "Spread the deployment over nodes with --nnodes (mp)",
            "Use --distributed-executor-backend ray for a Ray cluster",
        ],
        (
            "ParallelConfig.__post_init__: when vLLM picks the executor itself (no "
            "--distributed-executor-backend) on one node, the world size (PP x TP x PCP) must fit the GPUs "
            "visible on the node. Needs hardware.gpus_per_node."
        ),
        ["parallelism", "hardware"],
        needs=["hardware.gpus_per_node"],
        msg_text=(
            "World size ({self.world_size}) is larger than the number of available GPUs ({gpu_count}) in "
            "this node. If this is intentional and you are using:"
            "\\n- ray, set '--distributed-executor-backend ray'."
            "\\n- multiprocessing, set '--nnodes' appropriately."
        ),
        values={
            "self.world_size": (
                "effective.pipeline_parallel_size * effective.tensor_parallel_size * "
                "effective.prefill_context_parallel_size"
            ),
            "gpu_count": "hardware.gpus_per_node",
        },
    ),
    R(
        "dcp-gqa-tp-above-kv-heads-0.20",
        "must be greater than total num kv heads {total_num_kv_heads} when enable decode context parallel",
        "effective.decode_context_parallel_size > 1 && !has(model.config.kv_lora_rank) && "
        f"effective.tensor_parallel_size <= {KVH}",
        ["decode_context_parallel_size", "tensor_parallel_size", "model"],
        [
            "Increase --tensor-parallel-size above the model's number of KV heads",
            "Set --decode-context-parallel-size 1",
        ],
        (
            "ModelConfig.verify_with_parallel_config (an assert; non-MLA models, whose config has no "
            "kv_lora_rank). Reads num_key_value_heads from the model's config.json."
        ),
        ["parallelism", "model"],
        needs=["model.config"],
        fix={"unset": ["decode_context_parallel_size"]},
        values={"tensor_parallel_size": "effective.tensor_parallel_size", "total_num_kv_heads": KVH},
    ),
    R(
        "dcp-gqa-requires-tp-above-kv-heads",
        (
            "Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` "
            "({tensor_parallel_size}) to be greater than the model's total number of KV heads "
            "({total_num_kv_heads}). Increase `--tensor-parallel-size` or set "
            "`--decode-context-parallel-size 1`."
        ),
        "effective.decode_context_parallel_size > 1 && !has(model.config.kv_lora_rank) && "
        f"effective.tensor_parallel_size <= {KVH}",
        ["decode_context_parallel_size", "tensor_parallel_size", "model"],
        [
            "Increase --tensor-parallel-size above the model's number of KV heads",
            "Set --decode-context-parallel-size 1",
        ],
        (
            "ModelConfig.verify_with_parallel_config (non-MLA models; MLA models, whose config has "
            "kv_lora_rank, are exempt). Reads num_key_value_heads from the model's config.json (text_config "
            "for multimodal models); a model without that key cannot be verified."
        ),
        ["parallelism", "model"],
        needs=["model.config"],
        fix={"unset": ["decode_context_parallel_size"]},
        values={"tensor_parallel_size": "effective.tensor_parallel_size", "total_num_kv_heads": KVH},
    ),
]

CASES = {
    "dbo-requires-deepep-all2all": (
        {"enable_dbo": True, "enable_expert_parallel": True, "tensor_parallel_size": 2},
        {"enable_dbo": True, "enable_expert_parallel": True, "all2all_backend": "deepep_low_latency"},
    ),
    "dbo-requires-deepep-or-nixl-all2all": (
        {"ubatch_size": 2, "enable_expert_parallel": True},
        {"ubatch_size": 2, "enable_expert_parallel": True, "all2all_backend": "nixl_ep"},
    ),
    "dbo-requires-platform-all2all": (
        {"enable_dbo": True, "all2all_backend": "allgather_reducescatter"},
        {"enable_dbo": True, "all2all_backend": "deepep_high_throughput"},
    ),
    "hisparse-no-pipeline-parallel": (
        m(HIS, {"pipeline_parallel_size": 2}),
        m(HIS, {"tensor_parallel_size": 2}),
    ),
    "hisparse-no-decode-context-parallel": (
        m(HIS, {"decode_context_parallel_size": 2, "tensor_parallel_size": 2}),
        HIS,
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
    "numa-bind-lists-require-numa-bind": (
        {"numa_bind_nodes": [0, 1]},
        {"numa_bind": True, "numa_bind_nodes": [0, 1]},
    ),
    "tp-must-divide-attention-heads": ({"tensor_parallel_size": 3}, {"tensor_parallel_size": 4}),
    "dbo-thresholds-cover-microbatches": (
        {"enable_dbo": True, "dbo_decode_token_threshold": 1},
        {"enable_dbo": True, "dbo_decode_token_threshold": 2},
    ),
    "dcp-a2a-requires-dcp": (
        {"dcp_comm_backend": "a2a"},
        {"dcp_comm_backend": "a2a", "tensor_parallel_size": 4, "decode_context_parallel_size": 2},
    ),
    "numa-bind-nodes-not-empty": (
        {"numa_bind": True, "numa_bind_nodes": []},
        {"numa_bind": True, "numa_bind_nodes": [0]},
    ),
    "numa-bind-nodes-non-negative": (
        {"numa_bind": True, "numa_bind_nodes": [-1, 0]},
        {"numa_bind": True, "numa_bind_nodes": [0, 1]},
    ),
    "world-size-exceeds-node-gpus": (
        dict(
            args={"tensor_parallel_size": 16},
            hardware={"gpu": "H100-80GB", "gpus_per_node": 8, "nodes": 1},
        ),
        dict(
            args={"tensor_parallel_size": 8},
            hardware={"gpu": "H100-80GB", "gpus_per_node": 8, "nodes": 1},
        ),
    ),
    "dcp-gqa-tp-above-kv-heads-0.20": (
        {"tensor_parallel_size": 4, "decode_context_parallel_size": 2},
        {"tensor_parallel_size": 16, "decode_context_parallel_size": 2},
    ),
    "dcp-gqa-requires-tp-above-kv-heads": (
        {"tensor_parallel_size": 4, "decode_context_parallel_size": 2},
        {"tensor_parallel_size": 16, "decode_context_parallel_size": 2},
    ),
}
