"""`vllm serve` argument checks run before the engine is built (validate_parsed_serve_args): the Rust
frontend's gRPC port and the reasoning-effort map."""

from tools.rulepack.coverage_expr import AV, env_true, located, templated
from tools.rulepack.expr import A, R, q
from tools.rulepack.expr import arg_true as T

# validate_grpc_port_arg: vllm/entrypoints/launchers/cli_args.py in 0.32.0, entrypoints/common/ from 0.33.0
GRPC_RANGES = [("0.32.0", "0.32.0"), ("0.33.0", "0.34.0")]
GRPC_CHECKS = [
    T("grpc"),
    "!" + env_true("VLLM_USE_RUST_FRONTEND"),
    f"({T('headless')} || ({A('api_server_count')} && args.api_server_count <= 0))",
    T("data_parallel_multi_port_external_lb"),
    "(args.grpc_port < 0 || args.grpc_port > 65535)",
    f"(args.grpc_port != 0 && args.grpc_port == {AV('port', '8000')} && !{A('uds')})",
]


def grpc_when(k):
    """validate_grpc_port_arg raises its k-th check when --grpc-port is set and no earlier check fails."""
    earlier = [f"!{c}" for c in GRPC_CHECKS[:k]]
    return " && ".join([A("grpc_port"), *earlier, GRPC_CHECKS[k]])


GRPC_DOCS = (
    "validate_grpc_port_arg (validate_parsed_serve_args, before the engine is built): --grpc-port starts "
    "the Rust frontend's gRPC listener; its checks run in this order."
)
EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"]
REM = "args.reasoning_effort_map"
REM_SHAPE = f"(type({REM}) == map && !{REM}.exists(k, type({REM}[k]) != string))"

RULES = []
RULES += located(
    "grpc-and-grpc-port-exclusive",
    GRPC_RANGES,
    "--grpc and --grpc-port are mutually exclusive.",
    grpc_when(0),
    ["grpc", "grpc_port"],
    [
        "Use --grpc --port for the Python gRPC server",
        "Or VLLM_USE_RUST_FRONTEND=1 with --grpc-port (without --grpc) for the Rust frontend",
    ],
    GRPC_DOCS,
    ["frontend"],
    fix={"unset": ["grpc_port"]},
)
RULES += located(
    "grpc-port-requires-rust-frontend",
    GRPC_RANGES,
    "--grpc-port requires VLLM_USE_RUST_FRONTEND=1 vllm serve",
    grpc_when(1),
    ["grpc_port", "env.VLLM_USE_RUST_FRONTEND"],
    ["Set VLLM_USE_RUST_FRONTEND=1 in the deployment's environment", "Remove --grpc-port"],
    GRPC_DOCS,
    ["frontend"],
)
RULES += located(
    "grpc-port-requires-api-server",
    GRPC_RANGES,
    "--grpc-port requires a Rust frontend; remove --headless and non-positive --api-server-count",
    grpc_when(2),
    ["grpc_port", "headless", "api_server_count"],
    ["Remove --headless (and a non-positive --api-server-count) from the instance that serves gRPC"],
    GRPC_DOCS,
    ["frontend"],
)
RULES += located(
    "grpc-port-multi-port-external-lb",
    GRPC_RANGES,
    "--grpc-port is incompatible with --data-parallel-multi-port-external-lb",
    grpc_when(3),
    ["grpc_port", "data_parallel_multi_port_external_lb"],
    ["Remove --grpc-port, or run one frontend per port without --data-parallel-multi-port-external-lb"],
    GRPC_DOCS,
    ["frontend"],
)
RULES += located(
    "grpc-port-range",
    GRPC_RANGES,
    "--grpc-port must be between 0 and 65535",
    grpc_when(4),
    ["grpc_port"],
    ["Give a TCP port between 0 and 65535 (0 picks a free port)"],
    GRPC_DOCS,
    ["frontend"],
)
RULES += located(
    "grpc-port-differs-from-port",
    GRPC_RANGES,
    "--grpc-port must differ from --port when HTTP uses TCP",
    grpc_when(5),
    ["grpc_port", "port", "uds"],
    ["Give --grpc-port a port other than --port (default 8000)", "Serve HTTP on a Unix socket with --uds"],
    GRPC_DOCS,
    ["frontend"],
)
RULES += [
    R(
        "reasoning-effort-map-shape",
        "Error: --reasoning-effort-map must be a JSON object mapping reasoning efforts to strings.",
        f"{A('reasoning_effort_map')} && !{REM_SHAPE}",
        ["reasoning_effort_map"],
        ['Give a JSON object such as {"low": "/no_think", "high": "/think"}'],
        "validate_reasoning_effort_map (validate_parsed_serve_args).",
        ["frontend"],
    ),
    R(
        "reasoning-effort-map-unknown-effort",
        "Error: --reasoning-effort-map has unknown efforts",
        f"{A('reasoning_effort_map')} && {REM_SHAPE} && {REM}.exists(k, !(k in {q(EFFORTS)}))",
        ["reasoning_effort_map"],
        [f"Use only the efforts {', '.join(EFFORTS)} as keys"],
        "validate_reasoning_effort_map (validate_parsed_serve_args).",
        ["frontend"],
        message_template=(
            "Error: --reasoning-effort-map has unknown efforts "
            f"{{{{ {REM}.filter(k, !(k in {q(EFFORTS)})) }}}}; "
            "keys must be one of ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']."
        ),
    ),
]

RULES = templated(RULES)

RUST = {"VLLM_USE_RUST_FRONTEND": "1"}


def g(args, env=RUST):
    return dict(args={"grpc_port": 50051, **args}, env=env)


_C = {
    "grpc-and-grpc-port-exclusive": (g({"grpc": True}), g({})),
    "grpc-port-requires-rust-frontend": (g({}, env={}), g({})),
    "grpc-port-requires-api-server": (g({"headless": True}), g({"api_server_count": 2})),
    "grpc-port-multi-port-external-lb": (
        g({"data_parallel_multi_port_external_lb": True, "data_parallel_size": 2}),
        g({"data_parallel_size": 2}),
    ),
    "grpc-port-range": (g({"grpc_port": 70000}), g({"grpc_port": 0})),
    "grpc-port-differs-from-port": (g({"grpc_port": 8000}), g({"grpc_port": 8000, "uds": "/tmp/vllm.sock"})),
}
CASES = {}
for _rid, _pair in _C.items():
    CASES[_rid] = _pair
    CASES[f"{_rid}-0.32.0"] = _pair
CASES.update(
    {
        "reasoning-effort-map-shape": (
            {"reasoning_effort_map": {"low": 1}},
            {"reasoning_effort_map": {"low": "/no_think"}},
        ),
        "reasoning-effort-map-unknown-effort": (
            {"reasoning_effort_map": {"turbo": "/think"}},
            {"reasoning_effort_map": {"high": "/think"}},
        ),
    }
)
