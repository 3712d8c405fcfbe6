"""ProfilerConfig and tracing."""

from tools.rulepack.expr import PC, PROF, A, R, join_present, sub, subv
from tools.rulepack.profiles import PP, PT, pc

# ProfilerConfig: the proton_* options set to something other than their default, in vLLM's order
PROTON_OPTIONS = join_present(
    [
        (f'{subv(PC, "proton_profiler_dir", chr(34) * 2)} != ""', '"proton_profiler_dir"'),
        (f'{subv(PC, "proton_context", chr(34) + "shadow" + chr(34))} != "shadow"', '"proton_context"'),
        (f'{subv(PC, "proton_data", chr(34) + "tree" + chr(34))} != "tree"', '"proton_data"'),
        (sub(PC, "proton_backend"), '"proton_backend"'),
        (sub(PC, "proton_mode"), '"proton_mode"'),
        (sub(PC, "proton_hook"), '"proton_hook"'),
        (sub(PC, "proton_output_format"), '"proton_output_format"'),
        (
            f"vllm.minor >= 30 && {subv(PC, 'proton_graph_attribution', 'false')} != false",
            '"proton_graph_attribution"',
        ),
    ]
)

RULES = [
    R(
        "detailed-traces-require-otlp-endpoint",
        "collect_detailed_traces requires `--otlp-traces-endpoint`",
        (
            f"{A('collect_detailed_traces')} && size(args.collect_detailed_traces) > 0 && "
            f"!{A('otlp_traces_endpoint')}"
        ),
        ["collect_detailed_traces", "otlp_traces_endpoint"],
        ["Add --otlp-traces-endpoint", "Remove --collect-detailed-traces"],
        "Detailed traces are exported over OTLP.",
        ["observability"],
    ),
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
        values={"options": PROTON_OPTIONS},
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

CASES = {
    "detailed-traces-require-otlp-endpoint": (
        {"collect_detailed_traces": ["model"]},
        {"collect_detailed_traces": ["model"], "otlp_traces_endpoint": "http://otel:4317"},
    ),
    "profiler-torch-dir-only-for-torch": (pc(torch_profiler_dir="/tmp/prof"), pc(**PT)),
    "profiler-torch-requires-dir": (pc(profiler="torch"), pc(**PT)),
    "profiler-proton-requires-dir": (pc(profiler="proton"), pc(**PP)),
    "profiler-proton-options-only-for-proton": (pc(proton_profiler_dir="/tmp/proton"), pc(**PP)),
    "profiler-chrome-trace-requires-trace-data": (
        pc(**PP, proton_output_format="chrome_trace"),
        pc(**PP, proton_output_format="chrome_trace", proton_data="trace"),
    ),
    "profiler-graph-attribution-requires-tree": (
        pc(**PP, proton_graph_attribution=True, proton_data="trace"),
        pc(**PP, proton_graph_attribution=True),
    ),
    "profiler-graph-attribution-vs-periodic-flushing": (
        pc(**PP, proton_graph_attribution=True, proton_mode="periodic_flushing:format=hatchet"),
        pc(**PP, proton_graph_attribution=True),
    ),
    "profiler-capture-torch-only-for-torch": (
        pc(capture_torch_profiler=True),
        pc(**PT, capture_torch_profiler=True),
    ),
    "profiler-torch-activities-only-for-torch": (
        pc(torch_profiler_activities=["CUDA"]),
        pc(**PT, torch_profiler_activities=["CUDA"]),
    ),
    "profiler-torch-activities-unique": (
        pc(**PT, torch_profiler_activities=["CUDA", "CUDA"]),
        pc(**PT, torch_profiler_activities=["CPU", "CUDA"]),
    ),
}
