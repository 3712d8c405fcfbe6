"""Rules added in the second round (imported by spec.py's build)."""


def A(name):
    return f"(has(args.{name}) && args.{name} != null)"


def sub(obj, key):
    return f"(has(args.{obj}) && args.{obj} != null && has(args.{obj}.{key}) && args.{obj}.{key} != null)"


def subv(obj, key, default):
    return f"({sub(obj, key)} ? args.{obj}.{key} : {default})"


def R(id, msg, when, fields, solutions, docs, tags, fix=None, **kw):
    d = dict(id=id, msg=msg, when=when, fields=fields, solutions=solutions, docs=docs, tags=tags, **kw)
    if fix:
        d["fix"] = fix
    return d


SC = "args.speculative_config"
SO = "structured_outputs_config"
PC = "profiler_config"
PROF = subv(PC, "profiler", "null")
RSM = subv("speculative_config", "rejection_sample_method", '""')
NST = f"{sub('speculative_config', 'num_speculative_tokens')} && {SC}.num_speculative_tokens > 0"
RATES = f"{SC}.synthetic_acceptance_rates"
HAS_RATES = sub("speculative_config", "synthetic_acceptance_rates")
HAS_LEN = sub("speculative_config", "synthetic_acceptance_length")
SYN = f'{RSM} == "synthetic" && {NST}'
IDX = "[" + ", ".join(str(i) for i in range(1, 64)) + "]"

RULES = [
    # ------------------------------------------------------------------ structured outputs
    R(
        "structured-outputs-any-whitespace-backend",
        "disable_any_whitespace is only supported for xgrammar and guidance backends.",
        f"{sub(SO, 'disable_any_whitespace')} && args.{SO}.disable_any_whitespace == true && "
        f'!({subv(SO, "backend", chr(34) + "auto" + chr(34))} in ["xgrammar", "guidance"])',
        ["structured_outputs_config"],
        [
            "Select the backend explicitly: --structured-outputs-config.backend xgrammar (or guidance)",
            "Remove disable_any_whitespace",
        ],
        "StructuredOutputsConfig validator. The default backend 'auto' is refused too: the option needs the "
        "backend chosen explicitly.",
        ["structured-outputs"],
        example_fix=(
            "# before\nvllm serve model --structured-outputs-config.disable_any_whitespace true\n# after\n"
            'vllm serve model --structured-outputs-config \'{"backend": "xgrammar", '
            '"disable_any_whitespace": true}\''
        ),
        fix={"set": {"structured_outputs_config.backend": "xgrammar"}},
    ),
    R(
        "structured-outputs-additional-properties-backend",
        "disable_additional_properties is only supported for the guidance backend.",
        f"{sub(SO, 'disable_additional_properties')} && args.{SO}.disable_additional_properties == true && "
        f'{subv(SO, "backend", chr(34) + "auto" + chr(34))} != "guidance"',
        ["structured_outputs_config"],
        ["Select --structured-outputs-config.backend guidance", "Remove disable_additional_properties"],
        "StructuredOutputsConfig validator; the default backend 'auto' is refused too.",
        ["structured-outputs"],
        example_fix=(
            "# before\nvllm serve model --structured-outputs-config.disable_additional_properties true\n"
            '# after\nvllm serve model --structured-outputs-config \'{"backend": "guidance", '
            '"disable_additional_properties": true}\''
        ),
        fix={"set": {"structured_outputs_config.backend": "guidance"}},
    ),
    # ------------------------------------------------------------------ synthetic rejection sampling
    R(
        "spec-synthetic-needs-rates-or-length",
        (
            "rejection_sample_method='synthetic' requires exactly one of synthetic_acceptance_rates or "
            "synthetic_acceptance_length."
        ),
        f"{SYN} && {HAS_RATES} == {HAS_LEN}",
        ["speculative_config"],
        [
            "Give exactly one of synthetic_acceptance_rates (one rate per speculative token) or "
            "synthetic_acceptance_length in --speculative-config"
        ],
        "SpeculativeConfig._verify_args: synthetic rejection sampling is calibrated from either per-position "
        "rates or a target mean acceptance length, not both and not neither.",
        ["speculative-decoding"],
        example_fix=(
            '# before\nvllm serve model --speculative-config \'{"method": "ngram", '
            '"num_speculative_tokens": 3, "rejection_sample_method": "synthetic"}\'\n# after\n'
            'vllm serve model --speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, '
            '"rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.5}\''
        ),
    ),
    R(
        "spec-synthetic-rates-length",
        "synthetic_acceptance_rates must have length {n}, got {rates}.",
        f"{SYN} && {HAS_RATES} && !{HAS_LEN} && size({RATES}) != {SC}.num_speculative_tokens",
        ["speculative_config"],
        ["Give one acceptance rate per speculative token (num_speculative_tokens entries)"],
        "SpeculativeConfig._resolve_synthetic_acceptance_rates: n is num_speculative_tokens.",
        ["speculative-decoding"],
        example_fix=(
            '# before\n--speculative-config \'{..., "num_speculative_tokens": 3, "rejection_sample_method": '
            '"synthetic", "synthetic_acceptance_rates": [0.9, 0.8]}\'\n# after\n'
            '--speculative-config \'{..., "num_speculative_tokens": 3, "rejection_sample_method": '
            '"synthetic", "synthetic_acceptance_rates": [0.9, 0.8, 0.7]}\''
        ),
    ),
    R(
        "spec-synthetic-rates-in-unit-interval",
        "synthetic_acceptance_rates entries must be in [0, 1], got {rates}.",
        f"{SYN} && {HAS_RATES} && !{HAS_LEN} && size({RATES}) == {SC}.num_speculative_tokens && "
        f"{RATES}.exists(r, double(r) < 0.0 || double(r) > 1.0)",
        ["speculative_config"],
        ["Give acceptance rates between 0 and 1"],
        "SpeculativeConfig._resolve_synthetic_acceptance_rates.",
        ["speculative-decoding"],
        example_fix=(
            '# before\n"synthetic_acceptance_rates": [1.2, 0.8, 0.5]\n# after\n'
            '"synthetic_acceptance_rates": [0.95, 0.8, 0.5]'
        ),
    ),
    R(
        "spec-synthetic-rates-non-increasing",
        "synthetic_acceptance_rates must be non-increasing, got {rates}.",
        f"{SYN} && {HAS_RATES} && !{HAS_LEN} && size({RATES}) == {SC}.num_speculative_tokens && "
        f"!{RATES}.exists(r, double(r) < 0.0 || double(r) > 1.0) && "
        f"{IDX}.exists(i, i < size({RATES}) && double({RATES}[i]) > double({RATES}[i - 1]))",
        ["speculative_config"],
        [
            "Order the acceptance rates from the first speculative position to the last, "
            "each no higher than the one before"
        ],
        (
            "SpeculativeConfig._resolve_synthetic_acceptance_rates: rates are unconditional per-position "
            "acceptance probabilities, which cannot grow with the position."
        ),
        ["speculative-decoding"],
        example_fix=(
            '# before\n"synthetic_acceptance_rates": [0.7, 0.8, 0.5]\n# after\n'
            '"synthetic_acceptance_rates": [0.8, 0.7, 0.5]'
        ),
    ),
    R(
        "spec-synthetic-length-range",
        "synthetic_acceptance_length must be in [1, {n + 1}], got {length}.",
        f"{SYN} && {HAS_LEN} && !{HAS_RATES} && (double({SC}.synthetic_acceptance_length) < 1.0 || "
        f"double({SC}.synthetic_acceptance_length) > double({SC}.num_speculative_tokens + 1))",
        ["speculative_config"],
        ["Give a synthetic_acceptance_length between 1 and num_speculative_tokens + 1"],
        "SpeculativeConfig._resolve_synthetic_acceptance_rates: n is num_speculative_tokens; the mean "
        "acceptance length counts the bonus token.",
        ["speculative-decoding"],
        example_fix=(
            '# before\n"num_speculative_tokens": 3, "synthetic_acceptance_length": 5\n# after\n'
            '"num_speculative_tokens": 3, "synthetic_acceptance_length": 3.5'
        ),
    ),
    R(
        "spec-synthetic-options-need-synthetic",
        (
            "synthetic_acceptance_rates / synthetic_acceptance_length are only valid with "
            "rejection_sample_method='synthetic'."
        ),
        f'{A("speculative_config")} && ({HAS_RATES} || {HAS_LEN}) && {RSM} != "synthetic"',
        ["speculative_config"],
        [
            'Add "rejection_sample_method": "synthetic" to --speculative-config',
            "Remove synthetic_acceptance_rates / synthetic_acceptance_length",
        ],
        "SpeculativeConfig._verify_args.",
        ["speculative-decoding"],
        example_fix=(
            "# before\n--speculative-config '{..., \"synthetic_acceptance_length\": 2.5}'\n# after\n"
            '--speculative-config \'{..., "rejection_sample_method": "synthetic", '
            '"synthetic_acceptance_length": 2.5}\''
        ),
        fix={"set": {"speculative_config.rejection_sample_method": "synthetic"}},
    ),
    # ------------------------------------------------------------------ profiler
    R(
        "profiler-torch-dir-only-for-torch",
        "torch_profiler_dir is only applicable when profiler is set to 'torch'",
        f'{sub(PC, "torch_profiler_dir")} && args.{PC}.torch_profiler_dir != "" && {PROF} != "torch"',
        ["profiler_config"],
        ["Set --profiler-config.profiler torch", "Remove torch_profiler_dir"],
        "ProfilerConfig validator.",
        ["profiler"],
        example_fix=(
            "# before\nvllm serve model --profiler-config.torch_profiler_dir /tmp/prof\n# after\n"
            'vllm serve model --profiler-config \'{"profiler": "torch", "torch_profiler_dir": "/tmp/prof"}\''
        ),
        fix={"set": {"profiler_config.profiler": "torch"}},
    ),
    R(
        "profiler-torch-requires-dir",
        "torch_profiler_dir must be set when profiler is 'torch'",
        f'{PROF} == "torch" && !({sub(PC, "torch_profiler_dir")} && args.{PC}.torch_profiler_dir != "")',
        ["profiler_config"],
        ["Add --profiler-config.torch_profiler_dir /path/to/traces"],
        "ProfilerConfig validator: the torch profiler writes its traces to torch_profiler_dir.",
        ["profiler"],
        example_fix=(
            "# before\nvllm serve model --profiler-config.profiler torch\n# after\n"
            'vllm serve model --profiler-config \'{"profiler": "torch", "torch_profiler_dir": "/tmp/prof"}\''
        ),
    ),
    R(
        "profiler-proton-requires-dir",
        "proton_profiler_dir must be set when profiler is 'proton'",
        f'{PROF} == "proton" && !({sub(PC, "proton_profiler_dir")} && args.{PC}.proton_profiler_dir != "")',
        ["profiler_config"],
        ["Add --profiler-config.proton_profiler_dir /path/to/traces"],
        "ProfilerConfig validator.",
        ["profiler"],
        example_fix=(
            "# before\nvllm serve model --profiler-config.profiler proton\n# after\n"
            'vllm serve model --profiler-config \'{"profiler": "proton", "proton_profiler_dir": '
            '"/tmp/proton"}\''
        ),
    ),
    R(
        "profiler-proton-options-only-for-proton",
        "{options} only applicable when profiler is set to 'proton'",
        f'{sub(PC, "proton_profiler_dir")} && args.{PC}.proton_profiler_dir != "" && {PROF} != "proton"',
        ["profiler_config"],
        ["Set --profiler-config.profiler proton", "Remove the proton_* options"],
        "ProfilerConfig validator (checked here for proton_profiler_dir; the other proton_* options set to a "
        "non-default value are refused the same way).",
        ["profiler"],
        example_fix=(
            "# before\n--profiler-config.proton_profiler_dir /tmp/proton\n# after\n"
            '--profiler-config \'{"profiler": "proton", "proton_profiler_dir": "/tmp/proton"}\''
        ),
        fix={"set": {"profiler_config.profiler": "proton"}},
    ),
    R(
        "profiler-chrome-trace-requires-trace-data",
        "chrome_trace output requires proton_data='trace'",
        f'{PROF} == "proton" && {subv(PC, "proton_output_format", "null")} == "chrome_trace" && '
        f'{subv(PC, "proton_data", chr(34) + "tree" + chr(34))} != "trace"',
        ["profiler_config"],
        ["Add proton_data: trace to --profiler-config", "Use another proton_output_format"],
        "ProfilerConfig validator (proton_data defaults to 'tree').",
        ["profiler"],
        example_fix=(
            '# before\n--profiler-config \'{"profiler": "proton", "proton_profiler_dir": "/tmp/p", '
            '"proton_output_format": "chrome_trace"}\'\n# after\n--profiler-config \'{"profiler": '
            '"proton", "proton_profiler_dir": "/tmp/p", "proton_output_format": "chrome_trace", '
            '"proton_data": "trace"}\''
        ),
        fix={"set": {"profiler_config.proton_data": "trace"}},
    ),
    R(
        "profiler-graph-attribution-requires-tree",
        "proton_graph_attribution requires proton_data='tree'",
        (
            f'{PROF} == "proton" && {sub(PC, "proton_graph_attribution")} && '
            f"args.{PC}.proton_graph_attribution == true && "
            f'{subv(PC, "proton_data", chr(34) + "tree" + chr(34))} != "tree"'
        ),
        ["profiler_config"],
        ["Use proton_data: tree (the default)", "Disable proton_graph_attribution"],
        "ProfilerConfig validator.",
        ["profiler"],
        example_fix=(
            '# before\n"proton_graph_attribution": true, "proton_data": "trace"\n# after\n'
            '"proton_graph_attribution": true'
        ),
        fix={"unset": ["profiler_config.proton_data"]},
    ),
    R(
        "profiler-graph-attribution-vs-periodic-flushing",
        "proton_graph_attribution is incompatible with periodic_flushing: both manage Proton data phases.",
        (
            f'{PROF} == "proton" && {sub(PC, "proton_graph_attribution")} && '
            f"args.{PC}.proton_graph_attribution == true && "
            f'{sub(PC, "proton_mode")} && args.{PC}.proton_mode.matches("^(?i)periodic_flushing(:.*)?$")'
        ),
        ["profiler_config"],
        ["Disable proton_graph_attribution", "Use another proton_mode"],
        "ProfilerConfig validator.",
        ["profiler"],
        example_fix=(
            '# before\n"proton_graph_attribution": true, "proton_mode": "periodic_flushing"\n# after\n'
            '"proton_graph_attribution": true'
        ),
    ),
    R(
        "profiler-capture-torch-only-for-torch",
        "capture_torch_profiler is only applicable when profiler is set to 'torch'",
        (
            f"{sub(PC, 'capture_torch_profiler')} && args.{PC}.capture_torch_profiler == true && {PROF} != "
            f'"torch"'
        ),
        ["profiler_config"],
        ["Remove capture_torch_profiler (deprecated, it has no effect)"],
        "ProfilerConfig validator.",
        ["profiler"],
        example_fix="# before\n--profiler-config.capture_torch_profiler true\n# after\n(remove it)",
        fix={"unset": ["profiler_config.capture_torch_profiler"]},
    ),
    R(
        "profiler-torch-activities-only-for-torch",
        "torch_profiler_activities is only applicable when profiler is set to 'torch'",
        f'{sub(PC, "torch_profiler_activities")} && {PROF} != "torch"',
        ["profiler_config"],
        ["Set --profiler-config.profiler torch", "Remove torch_profiler_activities"],
        "ProfilerConfig validator.",
        ["profiler"],
        example_fix=(
            '# before\n--profiler-config \'{"torch_profiler_activities": ["CUDA"]}\'\n# after\n'
            '--profiler-config \'{"profiler": "torch", "torch_profiler_dir": "/tmp/prof", '
            '"torch_profiler_activities": ["CUDA"]}\''
        ),
    ),
    R(
        "profiler-torch-activities-unique",
        "torch_profiler_activities must not contain duplicates",
        (
            f'{PROF} == "torch" && {sub(PC, "torch_profiler_activities")} && '
            f"args.{PC}.torch_profiler_activities.exists(a, "
            f"size(args.{PC}.torch_profiler_activities.filter(b, b == a)) > 1)"
        ),
        ["profiler_config"],
        ["List each activity once"],
        "ProfilerConfig validator.",
        ["profiler"],
        example_fix=(
            '# before\n"torch_profiler_activities": ["CUDA", "CUDA"]\n# after\n"torch_profiler_activities": '
            '["CUDA"]'
        ),
    ),
]


def T(name):  # argument explicitly set to true
    return f"(has(args.{name}) && args.{name} == true)"


CLI_RANGES = [
    ("openai", ("0.20.0", "0.28.0")),
    ("launchers", ("0.29.0", "0.32.0")),
    ("common", ("0.33.0", "0.34.0")),
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


RULES += cli_rule(
    "auto-tool-choice-requires-parser",
    "Error: --enable-auto-tool-choice requires --tool-call-parser",
    f'{T("enable_auto_tool_choice")} && !({A("tool_call_parser")} && args.tool_call_parser != "")',
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
    f"{T('enable_log_outputs')} && !{T('enable_log_requests')}",
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
    f"{T('enable_per_request_metrics')} && {T('disable_log_stats')}",
    ["enable_per_request_metrics", "disable_log_stats"],
    ["Remove --disable-log-stats", "Remove --enable-per-request-metrics"],
    "Per-request metrics are computed from the engine's statistics.",
    ["frontend", "observability"],
    [("openai", ("0.25.0", "0.28.0")), ("launchers", ("0.29.0", "0.32.0")), ("common", ("0.33.0", "0.34.0"))],
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
    [("launchers", ("0.29.0", "0.32.0")), ("common", ("0.33.0", "0.34.0"))],
    example_fix=(
        "# before\nvllm serve model --sse-keep-alive-interval -1\n# after\nvllm serve model "
        "--sse-keep-alive-interval 0"
    ),
    fix={"set": {"sse_keep_alive_interval": 0}},
)

NOT_GRPC = "!(has(args.grpc) && args.grpc == true)"
EXT_LB = (
    "(effective.data_parallel_external_lb == true || (has(args.data_parallel_rank) && "
    "args.data_parallel_rank != null))"
)
HYB_LB = (
    "(effective.data_parallel_hybrid_lb == true || (has(args.data_parallel_start_rank) && "
    "args.data_parallel_start_rank != null))"
)
RULES += [
    R(
        "headless-no-api-servers",
        (
            "--api-server-count={args.api_server_count} cannot be used with --headless (no API servers are "
            "started in headless mode)."
        ),
        f"{T('headless')} && {A('api_server_count')} && args.api_server_count > 0 && {NOT_GRPC}",
        ["headless", "api_server_count"],
        ["Remove --api-server-count from the headless (worker-only) node"],
        "vllm serve (ServeSubcommand.cmd): a headless node runs engine cores only.",
        ["frontend", "data-parallel"],
        example_fix=(
            "# before\nvllm serve model --headless --api-server-count 2\n# after\nvllm serve model --headless"
        ),
        fix={"unset": ["api_server_count"]},
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
            f"{NOT_GRPC} && ({T('data_parallel_hybrid_lb')} || "
            f"{T('data_parallel_multi_port_external_lb')} ? "
            f"(({T('data_parallel_hybrid_lb')} ? 1 : 0) + "
            f"({T('data_parallel_multi_port_external_lb')} ? 1 : 0) + "
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

DP = "effective.data_parallel_size"
RULES += [
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
    ),
    R(
        "ec-connector-requires-ec-role",
        "Please specify ec_role when ec_connector is set, supported roles are {get_args(ECRole)}",
        f"{sub('ec_transfer_config', 'ec_connector')} && !{sub('ec_transfer_config', 'ec_role')}",
        ["ec_transfer_config"],
        ["Set ec_role (ec_producer, ec_consumer or ec_both) in --ec-transfer-config"],
        "ECTransferConfig (encoder-cache transfer for disaggregated encoders).",
        ["ec-transfer"],
    ),
    R(
        "ec-role-unsupported",
        "Unsupported ec_role: {self.ec_role}. Supported roles are {get_args(ECRole)}",
        (
            f"{sub('ec_transfer_config', 'ec_role')} && !(args.ec_transfer_config.ec_role in "
            f'["ec_producer", "ec_consumer", "ec_both"])'
        ),
        ["ec_transfer_config"],
        ["Use ec_role ec_producer, ec_consumer or ec_both"],
        "ECTransferConfig (ECRole is the union of the producer and consumer literals).",
        ["ec-transfer"],
    ),
    R(
        "custom-ops-enable-and-disable",
        (
            "custom_ops cannot both enable and disable the same operation(s): {', '.join(conflicting_ops)}. "
            "Remove either the '+' or '-' directive"
        ),
        (
            f"{sub('compilation_config', 'custom_ops')} && args.compilation_config.custom_ops.exists(op, "
            'op.matches("^[+][A-Za-z0-9_]+$") && args.compilation_config.custom_ops.exists(o, '
            'o.matches("^-(?:)" + op + "$")))'
        ),
        ["compilation_config"],
        ["Keep either '+op' or '-op' for each custom op"],
        "CompilationConfig.",
        ["compilation"],
    ),
    R(
        "encoder-cudagraph-budgets-positive",
        "All encoder_cudagraph_token_budgets must be positive, got {self.encoder_cudagraph_token_budgets}",
        f"{sub('compilation_config', 'encoder_cudagraph_token_budgets')} && "
        "args.compilation_config.encoder_cudagraph_token_budgets.exists(b, b <= 0)",
        ["compilation_config"],
        ["Give positive token budgets"],
        "CompilationConfig.",
        ["compilation", "cudagraph"],
    ),
]

RULES += [
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
        f"{T('enable_fault_tolerance')} && !{EXT_LB}",
        ["enable_fault_tolerance", "data_parallel_external_lb", "data_parallel_rank"],
        ["Run with --data-parallel-external-lb or --data-parallel-rank", "Remove --enable-fault-tolerance"],
        "EngineArgs.create_engine_config.",
        ["data-parallel", "fault-tolerance"],
    ),
]

SPEC_M = f"{sub('speculative_config', 'method')}"
RULES += [
    R(
        "spec-ngram-lookup-min-le-max",
        "prompt_lookup_min={self.prompt_lookup_min} must be <= prompt_lookup_max={self.prompt_lookup_max}",
        (
            f"{sub('speculative_config', 'prompt_lookup_min')} && "
            f"{sub('speculative_config', 'prompt_lookup_max')} && "
            f"{SC}.prompt_lookup_min > {SC}.prompt_lookup_max && "
            f'(({SPEC_M} && {SC}.method in ["ngram", "[ngram]", "ngram_gpu"]) || '
            f'(!{SPEC_M} && {sub("speculative_config", "model")} && {SC}.model in ["ngram", "[ngram]"]))'
        ),
        ["speculative_config"],
        ["Make prompt_lookup_min at most prompt_lookup_max"],
        "SpeculativeConfig.__post_init__ (n-gram methods; when only one bound is given the other copies it).",
        ["speculative-decoding"],
        example_fix=(
            '# before\n--speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, '
            '"prompt_lookup_min": 5, "prompt_lookup_max": 2}\'\n# after\n--speculative-config '
            '\'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_min": 2, '
            '"prompt_lookup_max": 5}\''
        ),
    ),
    R(
        "spec-tokens-without-model",
        "num_speculative_tokens was provided but without speculative model.",
        f"{sub('speculative_config', 'num_speculative_tokens')} && !{sub('speculative_config', 'model')} && "
        f'(!{SPEC_M} || {SC}.method in ["draft_model", "eagle", "eagle3", "medusa", "mlp_speculator"])',
        ["speculative_config"],
        [
            'Add the draft / EAGLE model to --speculative-config ("model": "org/draft")',
            "Use a method that needs no model (ngram, ngram_gpu, suffix, mtp)",
        ],
        (
            "SpeculativeConfig.__post_init__: without a method vLLM assumes a draft model; draft-model, "
            "EAGLE, EAGLE-3, Medusa and MLP-speculator methods need the model that proposes the tokens "
            "(mtp, ngram, ngram_gpu, suffix, extract_hidden_states and, from 0.25.0, dspark do not)."
        ),
        ["speculative-decoding"],
        example_fix=(
            '# before\n--speculative-config \'{"method": "eagle3", "num_speculative_tokens": 3}\'\n# after\n'
            '--speculative-config \'{"method": "eagle3", "model": "org/eagle3-draft", '
            '"num_speculative_tokens": 3}\''
        ),
    ),
    R(
        "spec-custom-class-requires-model",
        (
            "method='custom_class' requires 'model' to contain the custom proposer module path (e.g., "
            "'my_module.MyProposer')."
        ),
        (
            f'{SPEC_M} && {SC}.method == "custom_class" && '
            f"{sub('speculative_config', 'num_speculative_tokens')} && "
            f"!{sub('speculative_config', 'model')}"
        ),
        ["speculative_config"],
        ["Put the proposer's import path in speculative_config.model"],
        "SpeculativeConfig.__post_init__.",
        ["speculative-decoding"],
        example_fix=(
            '# before\n--speculative-config \'{"method": "custom_class", "num_speculative_tokens": 3}\'\n'
            '# after\n--speculative-config \'{"method": "custom_class", "model": "my_module.MyProposer", '
            '"num_speculative_tokens": 3}\''
        ),
    ),
    R(
        "spec-heterogeneous-vocab-requires-draft-model",
        "use_heterogeneous_vocab only works with method='draft_model'",
        f"{sub('speculative_config', 'use_heterogeneous_vocab')} && {SC}.use_heterogeneous_vocab == true && "
        f'{SPEC_M} && {SC}.method != "draft_model"',
        ["speculative_config"],
        ["Use method draft_model", "Remove use_heterogeneous_vocab"],
        "SpeculativeConfig._verify_args (checked here for an explicit method).",
        ["speculative-decoding"],
        fix={"unset": ["speculative_config.use_heterogeneous_vocab"]},
    ),
    R(
        "spec-heterogeneous-vocab-greedy-only",
        (
            "use_heterogeneous_vocab currently only supports greedy draft sampling. Set "
            "draft_sample_method='greedy' (the default) or omit it."
        ),
        f"{sub('speculative_config', 'use_heterogeneous_vocab')} && {SC}.use_heterogeneous_vocab == true && "
        f'{sub("speculative_config", "draft_sample_method")} && {SC}.draft_sample_method != "greedy"',
        ["speculative_config"],
        ["Remove draft_sample_method (greedy is the default)"],
        "SpeculativeConfig._verify_args.",
        ["speculative-decoding"],
        fix={"unset": ["speculative_config.draft_sample_method"]},
    ),
    R(
        "lora-spec-batched-token-budget",
        "Consider increasing max_num_batched_tokens or decreasing num_speculative_tokens",
        (
            f"{T('enable_lora')} && {sub('speculative_config', 'num_speculative_tokens')} && "
            f"{A('max_num_batched_tokens')} && "
            f"{A('max_num_seqs')} && args.max_num_batched_tokens < args.max_num_seqs * "
            f"({SC}.num_speculative_tokens + 1)"
        ),
        ["enable_lora", "speculative_config", "max_num_batched_tokens", "max_num_seqs"],
        [
            "Raise --max-num-batched-tokens to at least max_num_seqs x (num_speculative_tokens + 1)",
            "Lower --max-num-seqs or num_speculative_tokens",
        ],
        "EngineArgs.create_engine_config: with LoRA and speculative decoding every sequence may need "
        "num_speculative_tokens + 1 slots in one step (checked here for explicit max_num_batched_tokens and "
        "max_num_seqs; their defaults depend on the hardware).",
        ["lora", "speculative-decoding"],
    ),
    R(
        "mamba-ssu-algorithm-requires-flashinfer",
        (
            "Mamba SSU algorithm selection is only supported with the FlashInfer backend. Please set "
            "`--mamba-backend flashinfer`, or omit `--mamba-ssu-algorithm`."
        ),
        (
            f'{A("mamba_ssu_algorithm")} && args.mamba_ssu_algorithm in ["auto", "simple", "vertical", '
            f'"horizontal"] && '
            '!string(effective.mamba_backend).matches("^(?i)flashinfer$")'
        ),
        ["mamba_ssu_algorithm", "mamba_backend"],
        ["Add --mamba-backend flashinfer", "Remove --mamba-ssu-algorithm"],
        (
            "MambaConfig.validate_ssu_algorithm, run for every model while the engine config is built "
            "(mamba_backend defaults to triton)."
        ),
        ["mamba"],
        fix={"set": {"mamba_backend": "flashinfer"}},
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
    ),
]
KVH = (
    "(has(model.config.text_config) && has(model.config.text_config.num_key_value_heads) ? "
    "model.config.text_config.num_key_value_heads : model.config.num_key_value_heads)"
)
RULES += [
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
    ),
]

# ---------------------------------------------------------------- Model Runner V2 forced by the environment
# VllmConfig._validate_v2_model_runner() (called from __post_init__ when use_v2_model_runner) raises with the
# list from _get_v2_model_runner_unsupported_features(). The text is the same f-string in 0.23.0-0.33.0 (one
# rule: a rule's range is its message's whole range); the list differs per release, so the condition
# branches on vllm.minor. Only features readable from the arguments are checked (see the docs); stock
# torch.compile and sequence parallelism are left out because __post_init__ may override the user's values.
_SPEC = f"(has({SC}) && {SC} != null)"
_M = "derived.spec_method"


def _spec_true(k):
    return f"({_SPEC} && has({SC}.{k}) && {SC}.{k} == true)"


def _methods(ms):
    return "[" + ", ".join(f'"{m}"' for m in ms) + "]"


_PD_ANY = _spec_true("parallel_drafting")
_EAGLE3_PP = f'({_SPEC} && {_M} == "eagle3" && effective.pipeline_parallel_size > 1)'
_EXT_PP = (
    '(has(args.distributed_executor_backend) && args.distributed_executor_backend == "external_launcher" '
    "&& effective.pipeline_parallel_size > 1)"
)
_LOGITS = (
    "(has(args.logits_processors) && args.logits_processors != null && size(args.logits_processors) > 0)"
)
_DBO = "effective.enable_dbo == true"
_EEP = "effective.enable_elastic_ep == true"
_ROUTED = "effective.enable_return_routed_experts == true"
_PEMB = "(has(args.enable_prompt_embeds) && args.enable_prompt_embeds == true)"
_KVS = "effective.kv_sharing_fast_prefill == true"
_EC = "(has(args.ec_transfer_config) && args.ec_transfer_config != null)"
_PCP = "effective.prefill_context_parallel_size > 1"
_LORA = "(has(args.enable_lora) && args.enable_lora == true)"
_ADAPT = _spec_true("enable_adaptive_verification")
_MAMBA_ALL = 'effective.mamba_cache_mode == "all"'
_HETERO = _spec_true("use_heterogeneous_vocab")
# 0.30.0+: use_ubatching (enable_dbo or ubatch_size > 1) adds _get_dbo_unsupported_features(), which with
# VLLM_USE_V2_MODEL_RUNNER set lists only DBO combined with LoRA, speculative decoding, PP, DCP/PCP, ...
_UB_FORCED = (
    "((effective.enable_dbo == true || effective.ubatch_size > 1) && "
    f"({_LORA} || {_SPEC} || effective.pipeline_parallel_size > 1 || "
    "effective.decode_context_parallel_size > 1 || effective.prefill_context_parallel_size > 1))"
)


def _list_by_minor(table):
    expr = "[]"
    for minor in sorted(table, reverse=True):
        expr = f"(vllm.minor == {minor} ? {_methods(table[minor])} : {expr})"
    return expr


_EEA = ["eagle", "eagle3", "mtp"]
_V2_SPEC_OK = {  # 0.23-0.29: every other method is listed
    23: _EEA,
    24: _EEA + ["dflash"],
    25: _EEA + ["dflash", "dspark"],
    26: _EEA + ["dflash", "dspark"],
    27: _EEA + ["dflash", "dspark"],
    28: _EEA + ["dflash", "dspark"],
    29: _EEA + ["dflash", "dspark", "extract_hidden_states"],
}
_V2_SPEC_NOT_OK = {  # 0.30+: only these methods are listed
    30: ["ngram", "ngram_gpu", "draft_model", "suffix", "medusa", "mlp_speculator", "custom_class"],
    31: ["ngram", "ngram_gpu", "suffix", "medusa", "mlp_speculator", "custom_class"],
    32: ["suffix", "medusa", "mlp_speculator", "custom_class"],
    33: ["suffix", "custom_class"],
}
_V2_SPEC_METHOD = (
    f"({_SPEC} && (vllm.minor <= 29 ? !({_M} in {_list_by_minor(_V2_SPEC_OK)}) : "
    f"{_M} in {_list_by_minor(_V2_SPEC_NOT_OK)}))"
)
_V2_PD = (
    f'({_PD_ANY} && (vllm.minor == 23 ? true : vllm.minor == 24 ? {_M} != "dflash" : '
    f'!({_M} in ["dflash", "dspark"])))'
)
# (version condition, feature) as read in each release's _get_v2_model_runner_unsupported_features();
# 0.25 dropped hybrid/align cache mode (model-dependent, not checked), 0.26 made PCP non-MLA only (left out:
# ModelConfig.use_mla) and dropped logprobs_mode.
V2_UNSUPPORTED = [
    ("vllm.minor <= 25", _PCP),
    ("vllm.minor >= 24", _EXT_PP),
    ("true", _V2_SPEC_METHOD),
    ("true", _V2_PD),
    ("vllm.minor <= 29", _EAGLE3_PP),
    ("vllm.minor == 28", f"{_ADAPT} && ({_LORA} || effective.pipeline_parallel_size > 1)"),
    ("vllm.minor <= 29", _DBO),
    ("vllm.minor >= 30", _UB_FORCED),
    ("vllm.minor >= 24 && vllm.minor <= 31", _EEP),
    ("vllm.minor <= 27", f"({_ROUTED} || {_EC})"),
    ("vllm.minor <= 30", _LOGITS),
    ("vllm.minor <= 28", _PEMB),
    ("vllm.minor <= 29", _KVS),
    ("vllm.minor >= 30 && vllm.minor <= 31", _MAMBA_ALL),
    ("vllm.minor >= 32", _HETERO),
]
V2_UNSUPPORTED_EXPR = (
    "(" + " || ".join(f"({c} && {f})" if c != "true" else f for c, f in V2_UNSUPPORTED) + ")"
)


# 0.28.0+: _verify_sampling_replay_config() runs earlier in __post_init__; where it refuses (speculative
# decoding until 0.31, custom logits processors, logprobs_mode), vLLM never reaches the V2 check.
_REPLAY_FIRST = (
    "(vllm.minor >= 28 && effective.return_sampling_mask == true && "
    f'((vllm.minor < 32 && {_SPEC}) || {_LOGITS} || effective.logprobs_mode != "processed_logprobs"))'
)

RULES += [
    R(
        "mrv2-forced-unsupported-features",
        "Model Runner V2 does not yet support: {', '.join(unsupported)}",
        (
            "has(env.VLLM_USE_V2_MODEL_RUNNER) ? (int(env.VLLM_USE_V2_MODEL_RUNNER) != 0 && "
            f"!{_REPLAY_FIRST} && {V2_UNSUPPORTED_EXPR}) : false"
        ),
        [
            "env.VLLM_USE_V2_MODEL_RUNNER",
            "speculative_config",
            "logits_processors",
            "enable_dbo",
            "ubatch_size",
            "enable_elastic_ep",
            "enable_return_routed_experts",
            "enable_prompt_embeds",
            "kv_sharing_fast_prefill",
            "ec_transfer_config",
            "prefill_context_parallel_size",
            "pipeline_parallel_size",
            "distributed_executor_backend",
            "mamba_cache_mode",
        ],
        [
            "Remove VLLM_USE_V2_MODEL_RUNNER=1 (vLLM then falls back to the V1 model runner by itself)",
            "Remove the feature Model Runner V2 does not support yet in this release",
        ],
        (
            "VllmConfig._validate_v2_model_runner: with VLLM_USE_V2_MODEL_RUNNER=1 the V2 model runner is "
            "forced, and every feature in _get_v2_model_runner_unsupported_features() is refused (without "
            "the variable vLLM falls back to V1 with a warning). The list differs per release: 0.23-0.29 "
            "accept only eagle/eagle3/mtp (+dflash 0.24, +dspark 0.25, +extract_hidden_states 0.29) "
            "speculative methods; 0.30 refuses ngram/ngram_gpu/draft_model/suffix/medusa/mlp_speculator/"
            "custom_class, 0.31 the same without draft_model, 0.32 suffix/medusa/mlp_speculator/"
            "custom_class, 0.33 suffix/custom_class; parallel drafting (except dflash/dspark), EAGLE3 with "
            "PP (-0.29), external_launcher with PP (0.24+), dual batch overlap (-0.29; 0.30+ only with LoRA, "
            "speculative decoding, PP or context parallelism), elastic EP (0.24-0.31), routed experts "
            "capture and EC transfer (-0.27), custom logits processors (-0.30), prompt embeds (-0.28), KV "
            "sharing fast prefill (-0.29), prefill context parallelism (-0.25), adaptive verification with "
            "LoRA or PP (0.28), mamba cache mode 'all' (0.30-0.31), heterogeneous-vocabulary drafts "
            "(0.32+). Not reported where a sampling-replay check refuses first (0.28+). Checked here from "
            "the arguments only: "
            "stock torch.compile and sequence parallelism "
            "(overridden in __post_init__), model-dependent entries (MLA, hybrid/mamba, Step5, Parse MTP) "
            "and a 'draft_model' method refined from the draft's config are not decided by this rule."
        ),
        ["model-runner-v2", "speculative-decoding"],
        example_fix=(
            "# before\nVLLM_USE_V2_MODEL_RUNNER=1 vllm serve model --speculative-config "
            '\'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\'\n'
            "# after\nvllm serve model --speculative-config "
            '\'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\''
        ),
    ),
]

# ---------------------------------------------------------------- max_model_len above the derived maximum
# _get_and_verify_max_len (vllm/config/model.py) with the base convertor's derive_max_model_len_and_key:
# identical in 0.20.0-0.34.0 for the simple case checked here (0.30.0 changed only the yarn / per-layer RoPE
# handling): a model type without its own convertor, max_position_embeddings and no other length key, no
# text_config, no RoPE scaling other than llama3 (never applied to the length), no --disable-sliding-window,
# no --hf-overrides, VLLM_ALLOW_LONG_MAX_MODEL_LEN not "1"/"true".
_MC = "model.config"
_OTHER_LEN_KEYS = [
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_target_positions",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
]
_SIMPLE_LEN = (
    f'{_MC}.model_type in ["llama", "mistral", "qwen2", "qwen3", "qwen3_moe"] && '
    f"has({_MC}.max_position_embeddings) && {_MC}.max_position_embeddings != null && "
    f"!has({_MC}.text_config) && !has({_MC}.rope_parameters) && !has({_MC}.position_embedding_type) && "
    + " && ".join(f"!has({_MC}.{k})" for k in _OTHER_LEN_KEYS)
    + f" && (!has({_MC}.rope_scaling) || {_MC}.rope_scaling == null || "
    f'(has({_MC}.rope_scaling.rope_type) && {_MC}.rope_scaling.rope_type == "llama3"))'
)
RULES += [
    R(
        "max-model-len-above-derived",
        "{msg} To allow overriding this maximum",
        (
            f"{A('max_model_len')} && type(args.max_model_len) == int && args.max_model_len != -1 && "
            f"!{T('disable_sliding_window')} && !{A('hf_overrides')} && "
            "!(has(env.VLLM_ALLOW_LONG_MAX_MODEL_LEN) && "
            'env.VLLM_ALLOW_LONG_MAX_MODEL_LEN.matches("^\\\\s*(1|(?i:true))\\\\s*$")) && '
            f"{_SIMPLE_LEN} && double(args.max_model_len) > double({_MC}.max_position_embeddings)"
        ),
        ["max_model_len", "model", "env.VLLM_ALLOW_LONG_MAX_MODEL_LEN"],
        [
            "Lower --max-model-len to the model's max_position_embeddings or less",
            "Set VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 only if the model really handles longer contexts",
        ],
        (
            "ModelConfig.get_and_verify_max_len: a user max_model_len above the length derived from "
            "config.json (the smallest of max_position_embeddings and the other length keys, times the RoPE "
            "scaling factor) is refused unless VLLM_ALLOW_LONG_MAX_MODEL_LEN is 1/true. vLLM's text is "
            "'User-specified max_model_len (...) is greater than the derived max_model_len (...)' "
            "followed by this sentence and a caution. Checked here only for the simple case "
            "(llama/mistral/qwen2/qwen3/"
            "qwen3_moe configs with max_position_embeddings, no other length key, no RoPE scaling except "
            "llama3, no --hf-overrides or --disable-sliding-window); a sentence-transformers config in the "
            "checkpoint (max_seq_length) would override the length and is not visible to a profile."
        ),
        ["scheduler", "model"],
        needs=["model.config"],
        fix={"unset": ["max_model_len"]},
    ),
]
