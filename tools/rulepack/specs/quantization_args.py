"""--quantization-config targets (QuantizationConfigArgs, built from the argument while EngineArgs is set up,
0.30.0 on): the map's type and its online shorthand names."""

from tools.rulepack.coverage_expr import templated
from tools.rulepack.expr import R, q, sub

TARGETS = "args.quantization_config.targets"
HAS_TARGETS = sub("quantization_config", "targets")
SHORTHANDS_0_30 = [
    "fp8_per_block",
    "fp8_per_channel",
    "fp8_per_tensor",
    "int8_per_channel_weight_only",
    "mxfp4",
    "mxfp8",
    "nvfp4_per_token",
]
SHORTHANDS_0_34 = sorted([*SHORTHANDS_0_30, "lut_b_moe", "mxfp4_hadamard32"])


def py_list(xs):
    return "[" + ", ".join(f"'{x}'" for x in xs) + "]"


def py_type(x):
    """type(x).__name__ as Python prints it, for a JSON value."""
    return (
        f'(type({x}) == bool ? "bool" : type({x}) == int ? "int" : type({x}) == double ? "float" : '
        f'type({x}) == string ? "str" : type({x}) == list ? "list" : type({x}) == map ? "dict" : "NoneType")'
    )


BAD_0_30 = f"!(type({TARGETS}[p]) == string && {TARGETS}[p] in {q(SHORTHANDS_0_30)})"
BAD_NAME_0_34 = f"(type({TARGETS}[p]) == string && !({TARGETS}[p] in {q(SHORTHANDS_0_34)}))"
BAD_TYPE_0_34 = f"(type({TARGETS}[p]) != string && type({TARGETS}[p]) != map)"


def first(cond):
    return f"{TARGETS}.filter(p, {cond})[0]"


DOCS = "QuantizationConfigArgs._validate_targets (resolve_quantization_config, in EngineArgs.__post_init__)."

RULES = [
    R(
        "quantization-targets-must-be-map",
        "targets must be a dict, got",
        f"{HAS_TARGETS} && type({TARGETS}) != map",
        ["quantization_config"],
        ['Give targets as a JSON object mapping layer patterns to shorthands, e.g. {"re:.*mlp.*": "mxfp8"}'],
        DOCS,
        ["quantization"],
        message_template=f"targets must be a dict, got {{{{ {py_type(TARGETS)} }}}}",
    ),
    R(
        "quantization-targets-shorthand-0.30.0",
        "targets[{pattern}] = {shorthand} is not a valid online shorthand name",
        f"{HAS_TARGETS} && type({TARGETS}) == map && {TARGETS}.exists(p, {BAD_0_30})",
        ["quantization_config"],
        [f"Map each target pattern to one of {', '.join(SHORTHANDS_0_30)}"],
        DOCS + " (0.30.0-0.33.x: a target must be a shorthand name)",
        ["quantization"],
        message_template=(
            f"targets[{{{{ {first(BAD_0_30)} }}}}] = {{{{ {TARGETS}[{first(BAD_0_30)}] }}}} is not a valid "
            f"online shorthand name; expected one of {py_list(SHORTHANDS_0_30)}"
        ),
    ),
    R(
        "quantization-targets-shorthand",
        "targets[{pattern}] = {target} is not a valid online shorthand name",
        f"{HAS_TARGETS} && type({TARGETS}) == map && {TARGETS}.exists(p, {BAD_NAME_0_34})",
        ["quantization_config"],
        [f"Map each target pattern to a spec or to one of {', '.join(SHORTHANDS_0_34)}"],
        DOCS,
        ["quantization"],
        message_template=(
            f"targets[{{{{ {first(BAD_NAME_0_34)} }}}}] = {{{{ {TARGETS}[{first(BAD_NAME_0_34)}] }}}} is not "
            f"a valid online shorthand name; expected one of {py_list(SHORTHANDS_0_34)}"
        ),
    ),
    R(
        "quantization-targets-spec-type",
        "must be an online shorthand name or a quantization spec, got",
        f"{HAS_TARGETS} && type({TARGETS}) == map && {TARGETS}.exists(p, {BAD_TYPE_0_34})",
        ["quantization_config"],
        ["Map each target pattern to a shorthand name or to a spec object with weight / activation keys"],
        DOCS,
        ["quantization"],
        message_template=(
            f"targets[{{{{ {first(BAD_TYPE_0_34)} }}}}] must be an online shorthand name or a quantization "
            f"spec, got {{{{ {py_type(TARGETS + '[' + first(BAD_TYPE_0_34) + ']')} }}}}"
        ),
    ),
]
RULES = templated(RULES)


def qc(targets):
    return {"quantization_config": {"targets": targets}}


CASES = {
    "quantization-targets-must-be-map": (qc(["re:.*mlp.*"]), qc({"re:.*mlp.*": "mxfp8"})),
    "quantization-targets-shorthand-0.30.0": (qc({"re:.*mlp.*": "fp4"}), qc({"re:.*mlp.*": "mxfp8"})),
    "quantization-targets-shorthand": (qc({"re:.*mlp.*": "fp4"}), qc({"re:.*mlp.*": "mxfp8"})),
    "quantization-targets-spec-type": (qc({"re:.*mlp.*": 8}), qc({"re:.*mlp.*": "mxfp8"})),
}
