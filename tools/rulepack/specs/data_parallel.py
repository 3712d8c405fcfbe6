"""Data parallelism and multi-node launches: ParallelConfig and EngineArgs' data-parallel launch checks."""

from tools.rulepack.expr import DP, EXT_LB, A, R, arg_true
from tools.rulepack.profiles import MIXTRAL

RULES = [
    R(
        "dp-size-local-le-dp-size",
        "data_parallel_size_local ({self.data_parallel_size_local}) must be <=",
        f"{A('data_parallel_size_local')} && args.data_parallel_size_local > effective.data_parallel_size",
        ["data_parallel_size_local", "data_parallel_size"],
        ["Lower --data-parallel-size-local to at most --data-parallel-size"],
        "ParallelConfig: the ranks on this node cannot exceed the total number of data-parallel ranks.",
        ["parallelism", "data-parallel"],
        values={
            "self.data_parallel_size_local": "args.data_parallel_size_local",
            "self.data_parallel_size": "effective.data_parallel_size",
        },
    ),
    R(
        "external-lb-requires-dp-rank-0.20",
        "data_parallel_rank or node_rank must be specified if data_parallel_external_lb is enable.",
        "effective.data_parallel_external_lb == true && "
        "!(has(args.data_parallel_rank) && args.data_parallel_rank != null) && "
        "!((has(args.nnodes) && args.nnodes != null && args.nnodes > 1) && effective.data_parallel_size > 1)",
        ["data_parallel_external_lb", "data_parallel_rank", "node_rank"],
        ["Give each instance its --data-parallel-rank", "Remove --data-parallel-external-lb"],
        "EngineArgs.create_engine_config (an assert): with external load balancing each instance needs its "
        "data-parallel rank, given or inferred from --node-rank (with --nnodes > 1 and a data-parallel size "
        "above 1).",
        ["parallelism", "data-parallel"],
        fix={"unset": ["data_parallel_external_lb"]},
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
        values={
            "self.nnodes": "effective.nnodes",
            "self.data_parallel_backend": "effective.data_parallel_backend",
        },
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
        values={
            "self.nnodes": "effective.nnodes",
            "world_size": (
                "effective.data_parallel_size * effective.pipeline_parallel_size * "
                "effective.tensor_parallel_size"
            ),
        },
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
        values={
            "self.nnodes": "effective.nnodes",
            "world_size": (
                "effective.data_parallel_size * effective.pipeline_parallel_size * "
                "effective.tensor_parallel_size * effective.prefill_context_parallel_size"
            ),
        },
    ),
    R(
        "node-rank-in-range",
        "`--node-rank` must be between 0 and",
        "effective.nnodes > 1 && (effective.node_rank < 0 || effective.node_rank >= effective.nnodes)",
        ["node_rank", "nnodes"],
        ["Set --node-rank to this node's zero-based index, below --nnodes"],
        "Checked only for multi-node launches.",
        ["data-parallel", "multi-node"],
        values={"self.nnodes - 1": "effective.nnodes - 1", "self.node_rank": "effective.node_rank"},
    ),
    R(
        "external-dp-requires-moe",
        "Non-MoE models do not support external data parallel mode.",
        f"effective.data_parallel_size > 1 && {EXT_LB} && !derived.model_is_moe",
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
        "dp-rank-in-range",
        "data_parallel_rank ({self.data_parallel_rank}) must be in the range [0, {self.data_parallel_size})",
        f"{A('data_parallel_rank')} && {DP} > 1 && effective.nnodes == 1 && "
        f"(!{A('data_parallel_size_local')} || args.data_parallel_size_local == 1) && "
        f"(args.data_parallel_rank < 0 || args.data_parallel_rank >= {DP})",
        ["data_parallel_rank", "data_parallel_size"],
        ["Set --data-parallel-rank between 0 and --data-parallel-size - 1"],
        (
            "ParallelConfig.__post_init__ (single-node launches; with --nnodes the rank is inferred from "
            "--node-rank). For a dense model vLLM refuses external data parallelism first."
        ),
        ["data-parallel"],
        values={
            "self.data_parallel_rank": "args.data_parallel_rank",
            "self.data_parallel_size": "effective.data_parallel_size",
        },
    ),
    R(
        "dp-external-lb-requires-rank",
        (
            "Invalid data-parallel launch options: `--data-parallel-external-lb` requires a data-parallel "
            "rank. Set `--data-parallel-rank`, or set `--data-parallel-size` greater than 1 and use "
            "`--nnodes` with `--node-rank` so the rank can be inferred."
        ),
        (
            f"effective.data_parallel_external_lb == true && !{A('data_parallel_rank')} && "
            f"!(effective.nnodes > 1 && {DP} > 1)"
        ),
        ["data_parallel_external_lb", "data_parallel_rank"],
        [
            "Add --data-parallel-rank",
            "Use --nnodes with --node-rank (and --data-parallel-size > 1) so the rank is inferred",
        ],
        "EngineArgs.create_engine_config (raised before ParallelConfig's own data_parallel_size check).",
        ["data-parallel"],
    ),
    R(
        "dp-external-rank-requires-size-local-1",
        (
            "Invalid data-parallel launch options: an external data-parallel rank requires "
            "`--data-parallel-size-local 1`; got {self.data_parallel_size_local}. Set it to 1 or omit it."
        ),
        (
            f"{A('data_parallel_size_local')} && args.data_parallel_size_local != 1 && "
            f"({A('data_parallel_rank')} || "
            f"(effective.data_parallel_external_lb == true && effective.nnodes > 1 && {DP} > 1))"
        ),
        ["data_parallel_size_local", "data_parallel_rank", "data_parallel_external_lb"],
        ["Set --data-parallel-size-local 1 or omit it"],
        "EngineArgs.create_engine_config.",
        ["data-parallel"],
        fix={"unset": ["data_parallel_size_local"]},
        values={"self.data_parallel_size_local": "args.data_parallel_size_local"},
    ),
    R(
        "dp-hybrid-lb-requires-size-local",
        (
            "Invalid data-parallel launch options: `--data-parallel-hybrid-lb` requires "
            "`--data-parallel-size-local`. Set it to the number of data-parallel ranks on this node."
        ),
        f"effective.data_parallel_hybrid_lb == true && effective.data_parallel_external_lb == false && "
        f"!{A('data_parallel_rank')} && !{A('data_parallel_size_local')} && effective.nnodes == 1",
        ["data_parallel_hybrid_lb", "data_parallel_size_local"],
        ["Add --data-parallel-size-local"],
        "EngineArgs.create_engine_config (with --nnodes the local size is inferred).",
        ["data-parallel"],
    ),
    R(
        "fault-tolerance-requires-external-lb",
        (
            "Fault tolerance requires external load balancer mode (--data-parallel-external-lb or "
            "--data-parallel-rank). Internal LB mode is not supported."
        ),
        f"{arg_true('enable_fault_tolerance')} && !{EXT_LB}",
        ["enable_fault_tolerance", "data_parallel_external_lb", "data_parallel_rank"],
        ["Run with --data-parallel-external-lb or --data-parallel-rank", "Remove --enable-fault-tolerance"],
        "EngineArgs.create_engine_config.",
        ["data-parallel", "fault-tolerance"],
    ),
]

CASES = {
    "dp-size-local-le-dp-size": (
        {"data_parallel_size": 2, "data_parallel_size_local": 4},
        {"data_parallel_size": 4, "data_parallel_size_local": 2},
    ),
    "external-lb-requires-dp-rank-0.20": (
        {"data_parallel_external_lb": True, "data_parallel_size": 2},
        {"data_parallel_external_lb": True, "data_parallel_size": 2, "data_parallel_rank": 0},
    ),
    "external-lb-requires-dp": (
        {"data_parallel_external_lb": True},
        {"data_parallel_external_lb": True, "data_parallel_size": 2, "data_parallel_rank": 0},
    ),
    "nnodes-requires-mp-executor": (
        {"nnodes": 2, "tensor_parallel_size": 16, "distributed_executor_backend": "ray"},
        {"nnodes": 2, "tensor_parallel_size": 16, "distributed_executor_backend": "mp"},
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
    "external-dp-requires-moe": (
        {"data_parallel_size": 2, "data_parallel_rank": 0},
        dict(args={"data_parallel_size": 2, "data_parallel_rank": 0}, model=MIXTRAL),
    ),
    "dp-rank-in-range": (
        {"data_parallel_size": 2, "data_parallel_rank": 2},
        {"data_parallel_size": 2, "data_parallel_rank": 1},
    ),
    "dp-external-lb-requires-rank": (
        {"data_parallel_external_lb": True},
        {"data_parallel_external_lb": True, "data_parallel_size": 2, "data_parallel_rank": 0},
    ),
    "dp-external-rank-requires-size-local-1": (
        {"data_parallel_size": 4, "data_parallel_rank": 0, "data_parallel_size_local": 2},
        {"data_parallel_size": 4, "data_parallel_rank": 0, "data_parallel_size_local": 1},
    ),
    "dp-hybrid-lb-requires-size-local": (
        {"data_parallel_size": 4, "data_parallel_hybrid_lb": True},
        {"data_parallel_size": 4, "data_parallel_hybrid_lb": True, "data_parallel_size_local": 2},
    ),
    "fault-tolerance-requires-external-lb": (
        {"enable_fault_tolerance": True, "data_parallel_size": 2},
        {"enable_fault_tolerance": True, "data_parallel_size": 2, "data_parallel_rank": 0},
    ),
}
