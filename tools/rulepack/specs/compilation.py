"""CompilationConfig (custom ops, CUDA graphs) and the arguments that arg_utils refuses when given both as
a flag and inside a config."""

from tools.rulepack.expr import CUSTOM_OPS, A, R, sub

BAD_OP = '!(op in ["all", "none"]) && (size(op) < 2 || !(op.startsWith("+") || op.startsWith("-")))'
# sorted({op[1:] for +op} & {op[1:] for -op}) joined by ", " (CEL's strings and lists extensions)
CONFLICTING_OPS = (
    f'sort(distinct({CUSTOM_OPS}.filter(op, op.startsWith("+") && ("-" + op.substring(1)) in {CUSTOM_OPS})'
    '.map(op, op.substring(1)))).join(", ")'
)

RULES = [
    R(
        "attention-backend-set-twice",
        "attention_backend and attention_config.backend are mutually exclusive",
        f"{A('attention_backend')} && {sub('attention_config', 'backend')}",
        ["attention_backend", "attention_config"],
        ["Give the attention backend once: --attention-backend or --attention-config.backend"],
        "EngineArgs.create_engine_config.",
        ["arguments"],
    ),
    R(
        "cudagraph-capture-sizes-set-twice",
        "cudagraph_capture_sizes and compilation_config.cudagraph_capture_sizes are mutually exclusive",
        f"{A('cudagraph_capture_sizes')} && {sub('compilation_config', 'cudagraph_capture_sizes')}",
        ["cudagraph_capture_sizes", "compilation_config"],
        ["Give the capture sizes once"],
        "EngineArgs.create_engine_config.",
        ["arguments", "cudagraph"],
    ),
    R(
        "max-cudagraph-capture-size-set-twice",
        "max_cudagraph_capture_size and compilation_config.max_cudagraph_capture_size are mutually exclusive",
        f"{A('max_cudagraph_capture_size')} && {sub('compilation_config', 'max_cudagraph_capture_size')}",
        ["max_cudagraph_capture_size", "compilation_config"],
        ["Give the maximum capture size once"],
        "EngineArgs.create_engine_config.",
        ["arguments", "cudagraph"],
    ),
    R(
        "flashinfer-autotune-set-twice",
        "enable_flashinfer_autotune and kernel_config.enable_flashinfer_autotune are mutually exclusive",
        f"{A('enable_flashinfer_autotune')} && {sub('kernel_config', 'enable_flashinfer_autotune')}",
        ["enable_flashinfer_autotune", "kernel_config"],
        ["Give the FlashInfer autotune setting once"],
        "EngineArgs.create_engine_config.",
        ["arguments"],
    ),
    R(
        "custom-ops-syntax",
        "Invalid syntax '{op}' for custom op,",
        f"{sub('compilation_config', 'custom_ops')} && {CUSTOM_OPS}.exists(op, {BAD_OP})",
        ["compilation_config"],
        ["Write each custom op as 'all', 'none', '+op' or '-op'"],
        "CompilationConfig.",
        ["compilation"],
        values={"op": f"{CUSTOM_OPS}.filter(op, {BAD_OP})[0]"},
    ),
    R(
        "custom-ops-one-base-mode-0.20",
        "Can only specify 'none' or 'all'",
        (
            f'{sub("compilation_config", "custom_ops")} && size({CUSTOM_OPS}.filter(op, op in ["all", '
            f'"none"])) > 1'
        ),
        ["compilation_config"],
        ["Keep one of 'all' / 'none' in custom_ops"],
        "CompilationConfig.__post_init__ (an assert, raised while --compilation-config is parsed): at most "
        "one 'all' or 'none' in custom_ops.",
        ["compilation"],
    ),
    R(
        "custom-ops-one-base-mode",
        "custom_ops can contain only one base mode: 'all' or 'none'",
        (
            f'{sub("compilation_config", "custom_ops")} && size({CUSTOM_OPS}.filter(op, op in ["all", '
            f'"none"])) > 1'
        ),
        ["compilation_config"],
        ["Keep one of 'all' / 'none' in custom_ops"],
        "CompilationConfig.",
        ["compilation"],
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
        values={"', '.join(conflicting_ops)": CONFLICTING_OPS},
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
        values={
            "self.encoder_cudagraph_token_budgets": "args.compilation_config.encoder_cudagraph_token_budgets"
        },
    ),
]

CASES = {
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
    "custom-ops-syntax": (
        {"compilation_config": {"custom_ops": ["none", "rms_norm"]}},
        {"compilation_config": {"custom_ops": ["none", "+rms_norm"]}},
    ),
    "custom-ops-one-base-mode-0.20": (
        {"compilation_config": {"custom_ops": ["none", "all"]}},
        {"compilation_config": {"custom_ops": ["none", "+rms_norm"]}},
    ),
    "custom-ops-one-base-mode": (
        {"compilation_config": {"custom_ops": ["none", "all"]}},
        {"compilation_config": {"custom_ops": ["all", "-rms_norm"]}},
    ),
    "custom-ops-enable-and-disable": (
        {"compilation_config": {"custom_ops": ["+rms_norm", "-rms_norm"]}},
        {"compilation_config": {"custom_ops": ["+rms_norm", "-silu_and_mul"]}},
    ),
    "encoder-cudagraph-budgets-positive": (
        {"compilation_config": {"encoder_cudagraph_token_budgets": [1024, 0]}},
        {"compilation_config": {"encoder_cudagraph_token_budgets": [1024, 4096]}},
    ),
}
