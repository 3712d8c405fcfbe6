"""The `vllm serve` entrypoint's own checks, run before the engine config is built (ServeSubcommand.cmd,
validate_parsed_serve_args)."""

from tools.rulepack.expr import EXT_LB, HYB_LB, NOT_GRPC, A, R, arg_true

CLI_RANGES = [
    ("openai", ("0.20.0", "0.28.0")),
    ("launchers", ("0.29.0", "0.32.0")),
    ("common", ("0.33.0", None)),
]


def cli_rule(base, msg, when, fields, solutions, docs, tags, ranges, **kw):
    out = []
    for name, rng in ranges:
        out.append(
            R(
                f"{base}-{rng[0]}" if rng != ranges[-1][1] else base,
                msg,
                when,
                fields,
                solutions,
                docs + f" (validate_parsed_serve_args, vllm/entrypoints/{name}/cli_args.py in this range)",
                tags,
                range=list(rng),
                **kw,
            )
        )
    return out


RULES = [
    R(
        "headless-no-api-servers",
        (
            "--api-server-count={args.api_server_count} cannot be used with --headless (no API servers are "
            "started in headless mode)."
        ),
        f"{arg_true('headless')} && {A('api_server_count')} && args.api_server_count > 0 && {NOT_GRPC}",
        ["headless", "api_server_count"],
        ["Remove --api-server-count from the headless (worker-only) node"],
        "vllm serve (ServeSubcommand.cmd): a headless node runs engine cores only.",
        ["frontend", "data-parallel"],
        example_fix=(
            "# before\nvllm serve model --headless --api-server-count 2\n# after\nvllm serve model --headless"
        ),
        fix={"unset": ["api_server_count"]},
        values={"args.api_server_count": "args.api_server_count"},
    ),
    R(
        "dp-one-lb-mode-0.20",
        (
            "Cannot use both external and hybrid data parallel load balancing modes. External LB is enabled "
            "via --data-parallel-external-lb or --data-parallel-rank. Hybrid LB is enabled via "
            "--data-parallel-hybrid-lb or --data-parallel-start-rank. Use one mode or the other."
        ),
        f"{NOT_GRPC} && {EXT_LB} && {HYB_LB}",
        [
            "data_parallel_external_lb",
            "data_parallel_rank",
            "data_parallel_hybrid_lb",
            "data_parallel_start_rank",
        ],
        [
            (
                "Choose one load-balancing mode: external (--data-parallel-external-lb / "
                "--data-parallel-rank) or hybrid (--data-parallel-hybrid-lb / --data-parallel-start-rank)"
            )
        ],
        "vllm serve (ServeSubcommand.cmd), before the engine arguments are read.",
        ["data-parallel"],
    ),
    R(
        "dp-one-lb-mode",
        "Cannot use more than one data parallel load balancing mode. Choose one of: "
        "--data-parallel-multi-port-external-lb, --data-parallel-external-lb (or --data-parallel-rank), "
        "--data-parallel-hybrid-lb (or --data-parallel-start-rank).",
        (
            f"{NOT_GRPC} && ({arg_true('data_parallel_hybrid_lb')} || "
            f"{arg_true('data_parallel_multi_port_external_lb')} ? "
            f"(({arg_true('data_parallel_hybrid_lb')} ? 1 : 0) + "
            f"({arg_true('data_parallel_multi_port_external_lb')} ? 1 : 0) + "
            f"({EXT_LB} ? 1 : 0)) > 1 : "
            f"({EXT_LB} && has(args.data_parallel_start_rank) && args.data_parallel_start_rank != null))"
        ),
        [
            "data_parallel_external_lb",
            "data_parallel_rank",
            "data_parallel_hybrid_lb",
            "data_parallel_start_rank",
            "data_parallel_multi_port_external_lb",
        ],
        ["Choose one load-balancing mode"],
        (
            "vllm serve (ServeSubcommand.cmd), before the engine arguments are read: multi-port external, "
            "external (--data-parallel-external-lb or --data-parallel-rank) and hybrid "
            "(--data-parallel-hybrid-lb, or --data-parallel-start-rank when neither multi-port nor hybrid "
            "is set) exclude each other. Checked before the engine's own `--data-parallel-hybrid-lb` / "
            "`--data-parallel-external-lb` check."
        ),
        ["data-parallel"],
    ),
]
RULES += cli_rule(
    "auto-tool-choice-requires-parser",
    "Error: --enable-auto-tool-choice requires --tool-call-parser",
    f'{arg_true("enable_auto_tool_choice")} && !({A("tool_call_parser")} && args.tool_call_parser != "")',
    ["enable_auto_tool_choice", "tool_call_parser"],
    [
        "Add --tool-call-parser with the parser for the model's tool-call format (e.g. hermes, llama3_json)",
        "Remove --enable-auto-tool-choice",
    ],
    "`vllm serve` checks the frontend arguments before building the engine: automatic tool choice needs a "
    "parser for the model's tool-call output.",
    ["frontend"],
    CLI_RANGES,
    example_fix=(
        "# before\nvllm serve model --enable-auto-tool-choice\n# after\nvllm serve model "
        "--enable-auto-tool-choice --tool-call-parser hermes"
    ),
)
RULES += cli_rule(
    "log-outputs-requires-log-requests",
    "Error: --enable-log-outputs requires --enable-log-requests",
    f"{arg_true('enable_log_outputs')} && !{arg_true('enable_log_requests')}",
    ["enable_log_outputs", "enable_log_requests"],
    ["Add --enable-log-requests", "Remove --enable-log-outputs"],
    "Outputs are logged alongside the request log.",
    ["frontend", "observability"],
    CLI_RANGES,
    example_fix=(
        "# before\nvllm serve model --enable-log-outputs\n# after\nvllm serve model --enable-log-requests "
        "--enable-log-outputs"
    ),
    fix={"set": {"enable_log_requests": True}},
)
RULES += cli_rule(
    "per-request-metrics-require-log-stats",
    (
        "Error: --enable-per-request-metrics requires engine statistics logging; remove --disable-log-stats "
        "to enable per-request metrics."
    ),
    f"{arg_true('enable_per_request_metrics')} && {arg_true('disable_log_stats')}",
    ["enable_per_request_metrics", "disable_log_stats"],
    ["Remove --disable-log-stats", "Remove --enable-per-request-metrics"],
    "Per-request metrics are computed from the engine's statistics.",
    ["frontend", "observability"],
    [("openai", ("0.25.0", "0.28.0")), ("launchers", ("0.29.0", "0.32.0")), ("common", ("0.33.0", None))],
    example_fix=(
        "# before\nvllm serve model --enable-per-request-metrics --disable-log-stats\n# after\nvllm serve "
        "model --enable-per-request-metrics"
    ),
    fix={"unset": ["disable_log_stats"]},
)
RULES += cli_rule(
    "sse-keep-alive-interval-non-negative",
    "Error: --sse-keep-alive-interval must be a non-negative integer (0 disables keep-alive comments).",
    f"{A('sse_keep_alive_interval')} && args.sse_keep_alive_interval < 0",
    ["sse_keep_alive_interval"],
    ["Set --sse-keep-alive-interval to 0 (off) or a positive number of seconds"],
    "Streaming keep-alive comments are sent every N seconds; 0 disables them.",
    ["frontend"],
    [("launchers", ("0.29.0", "0.32.0")), ("common", ("0.33.0", None))],
    example_fix=(
        "# before\nvllm serve model --sse-keep-alive-interval -1\n# after\nvllm serve model "
        "--sse-keep-alive-interval 0"
    ),
    fix={"set": {"sse_keep_alive_interval": 0}},
)

CASES = {
    "auto-tool-choice-requires-parser-0.20.0": (
        {"enable_auto_tool_choice": True},
        {"enable_auto_tool_choice": True, "tool_call_parser": "hermes"},
    ),
    "auto-tool-choice-requires-parser-0.29.0": (
        {"enable_auto_tool_choice": True},
        {"enable_auto_tool_choice": True, "tool_call_parser": "hermes"},
    ),
    "auto-tool-choice-requires-parser": (
        {"enable_auto_tool_choice": True},
        {"enable_auto_tool_choice": True, "tool_call_parser": "hermes"},
    ),
    "log-outputs-requires-log-requests-0.20.0": (
        {"enable_log_outputs": True},
        {"enable_log_outputs": True, "enable_log_requests": True},
    ),
    "log-outputs-requires-log-requests-0.29.0": (
        {"enable_log_outputs": True},
        {"enable_log_outputs": True, "enable_log_requests": True},
    ),
    "log-outputs-requires-log-requests": (
        {"enable_log_outputs": True},
        {"enable_log_outputs": True, "enable_log_requests": True},
    ),
    "per-request-metrics-require-log-stats-0.25.0": (
        {"enable_per_request_metrics": True, "disable_log_stats": True},
        {"enable_per_request_metrics": True},
    ),
    "per-request-metrics-require-log-stats-0.29.0": (
        {"enable_per_request_metrics": True, "disable_log_stats": True},
        {"enable_per_request_metrics": True},
    ),
    "per-request-metrics-require-log-stats": (
        {"enable_per_request_metrics": True, "disable_log_stats": True},
        {"enable_per_request_metrics": True},
    ),
    "sse-keep-alive-interval-non-negative-0.29.0": (
        {"sse_keep_alive_interval": -1},
        {"sse_keep_alive_interval": 15},
    ),
    "sse-keep-alive-interval-non-negative": (
        {"sse_keep_alive_interval": -1},
        {"sse_keep_alive_interval": 0},
    ),
    "headless-no-api-servers": ({"headless": True, "api_server_count": 2}, {"headless": True}),
    "dp-one-lb-mode-0.20": (
        {"data_parallel_size": 4, "data_parallel_rank": 0, "data_parallel_start_rank": 2},
        {"data_parallel_size": 4, "data_parallel_rank": 0},
    ),
    "dp-one-lb-mode": (
        {"data_parallel_size": 4, "data_parallel_hybrid_lb": True, "data_parallel_external_lb": True},
        {"data_parallel_size": 4, "data_parallel_hybrid_lb": True, "data_parallel_size_local": 2},
    ),
}
