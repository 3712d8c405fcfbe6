"""CompilationConfig values checked while the config is built (compile_cache_save_format) and the
Proton profiler's CUDA-graph requirements (VllmConfig._validate_profiler_config)."""

from tools.rulepack.expr import CC, R, sub, subv

PRC = "args.profiler_config"
PROTON = (
    f'{subv("profiler_config", "profiler", "null")} == "proton" && '
    f'{sub("profiler_config", "proton_profiler_dir")} && {PRC}.proton_profiler_dir != ""'
)
ATTRIBUTION = (
    f"({sub('profiler_config', 'proton_graph_attribution')} && {PRC}.proton_graph_attribution == true)"
)
PCSAMPLING = (
    f'({sub("profiler_config", "proton_mode")} && {PRC}.proton_mode.matches("^(?i)pcsampling(:.*)?$"))'
)
# CUDA graphs stay on (VllmConfig.__post_init__ turns them off under --enforce-eager, and for a compilation
# mode other than VLLM_COMPILE): only a profile that leaves both to vLLM's defaults, or asks for graphs,
# is sure.
GRAPHS = (
    "!(has(args.enforce_eager) && args.enforce_eager == true) && "
    f"(!{sub('compilation_config', 'cudagraph_mode')} || "
    f'!string({CC}.cudagraph_mode).matches("^(?i)none$")) && '
    f'(!{sub("compilation_config", "mode")} || string({CC}.mode).matches("^(?i)(3|vllm_compile)$"))'
)

RULES = [
    R(
        "cc-compile-cache-save-format",
        "compile_cache_save_format must be 'binary' or 'unpacked', got: {value}",
        f"{sub('compilation_config', 'compile_cache_save_format')} && "
        f'!({CC}.compile_cache_save_format in ["binary", "unpacked"])',
        ["compilation_config"],
        ["Use compilation_config.compile_cache_save_format 'binary' or 'unpacked'"],
        "CompilationConfig field validator (the default comes from VLLM_COMPILE_CACHE_SAVE_FORMAT).",
        ["compilation"],
        values={"value": f"{CC}.compile_cache_save_format"},
        fix={"unset": ["compilation_config.compile_cache_save_format"]},
    ),
    R(
        "proton-attribution-needs-mrv2",
        "Proton CUDA graph attribution requires the V2 model runner.",
        f"{PROTON} && {ATTRIBUTION} && derived.use_v2_model_runner == false",
        ["profiler_config", "env.VLLM_USE_V2_MODEL_RUNNER"],
        ["Set VLLM_USE_V2_MODEL_RUNNER=1", "Remove proton_graph_attribution"],
        "VllmConfig._validate_profiler_config (0.30.0 - 0.33.0), before the CUDA-graph checks.",
        ["profiler", "model-runner"],
    ),
    R(
        "proton-pcsampling-needs-eager",
        "Proton PC sampling requires CUDA graphs to be disabled. Use --enforce-eager.",
        f"{PROTON} && {GRAPHS} && {PCSAMPLING} && !{ATTRIBUTION}",
        ["profiler_config", "enforce_eager"],
        ["Add --enforce-eager to profile with PC sampling", "Use another proton_mode"],
        "VllmConfig._validate_profiler_config: PC sampling cannot run while CUDA graphs are captured.",
        ["profiler"],
        fix={"set": {"enforce_eager": True}},
    ),
    R(
        "proton-graphs-need-attribution",
        "Proton profiling with CUDA graphs requires proton_graph_attribution=True",
        f"{PROTON} && {GRAPHS} && !{PCSAMPLING} && !{ATTRIBUTION}",
        ["profiler_config", "enforce_eager"],
        [
            "Set profiler_config.proton_graph_attribution to true",
            "Add --enforce-eager to profile without CUDA graphs",
        ],
        "VllmConfig._validate_profiler_config: with CUDA graphs, Proton needs graph attribution to see the "
        "replayed kernels (proton_graph_attribution defaults to false).",
        ["profiler"],
        fix={"set": {"enforce_eager": True}},
    ),
]

PP = {"profiler": "proton", "proton_profiler_dir": "/tmp/proton"}

CASES = {
    "proton-attribution-needs-mrv2": (
        {
            "args": {"profiler_config": dict(PP, proton_graph_attribution=True)},
            "env": {"VLLM_USE_V2_MODEL_RUNNER": "0"},
        },
        {
            "args": {"profiler_config": dict(PP, proton_graph_attribution=True)},
            "env": {"VLLM_USE_V2_MODEL_RUNNER": "1"},
        },
    ),
    "cc-compile-cache-save-format": (
        {"compilation_config": {"compile_cache_save_format": "zip"}},
        {"compilation_config": {"compile_cache_save_format": "unpacked"}},
    ),
    "proton-pcsampling-needs-eager": (
        {"profiler_config": dict(PP, proton_mode="pcsampling")},
        {"profiler_config": dict(PP, proton_mode="pcsampling"), "enforce_eager": True},
    ),
    "proton-graphs-need-attribution": (
        {"profiler_config": PP},
        {"profiler_config": PP, "enforce_eager": True},
    ),
}
