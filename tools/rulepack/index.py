"""Index every raise with a literal (or locally assigned) message (an f-string, or a literal concatenated with
values, which is written as the f-string it amounts to), and every assert with a literal message
(class AssertionError), in vLLM's config, arg_utils and serve entrypoint sources (and the platform's check of
the environment, and the CLI parser's own checks in utils/argparse_utils.py), per release:
{message: [[release, file, line, exception class], ...]}.
The int bounds of the config classes' pydantic fields (`x: int = Field(..., ge=1)` in vllm/config/) are
indexed as the error pydantic reports for a value outside them, rendered `field: msg` as the conformance
harness records a ValidationError (`max_num_seqs: Input should be greater than or equal to 1`), with the
class `pydantic:<error type>` (`pydantic:greater_than_equal`): a value vLLM derives (not one the catalog's
argument bounds see) can break them.
Usage: python -m tools.rulepack.index (writes RULEPACK_INDEX; build.py runs it when the index is missing)."""

import ast
import json
import os

from tools.rulepack.releases import INDEX, RELEASES, source_dir


def render(n):
    if isinstance(n, ast.Constant) and isinstance(n.value, str):
        return n.value
    if isinstance(n, ast.JoinedStr):
        out = ""
        for v in n.values:
            if isinstance(v, ast.Constant):
                out += v.value
            else:
                out += (
                    "{" + ast.unparse(v.value) + ("!" + chr(v.conversion) if v.conversion > 0 else "") + "}"
                )
        return out
    if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
        # "text: " + ", ".join(xs) (0.20.0-0.22.1's Model Runner V2 refusal): a concatenated operand that is
        # not a string is written as the f-string field it amounts to, "text: {', '.join(xs)}"
        a, b = render(n.left), render(n.right)
        if a is None and b is None:
            return None
        return (a if a is not None else "{" + ast.unparse(n.left) + "}") + (
            b if b is not None else "{" + ast.unparse(n.right) + "}"
        )
    return None


def files_for(v):
    base = f"{source_dir(v)}/"
    out = ["vllm/config/" + f for f in os.listdir(base + "vllm/config") if f.endswith(".py")]
    out += ["vllm/engine/arg_utils.py"]
    for p in [
        "vllm/entrypoints/openai/cli_args.py",
        "vllm/entrypoints/launchers/cli_args.py",
        "vllm/entrypoints/common/cli_args.py",
        "vllm/entrypoints/cli/serve.py",
        "vllm/platforms/interface.py",  # Platform.validate_environ: the start-up check of VLLM_* variables
        "vllm/utils/argparse_utils.py",  # FlexibleArgumentParser: --config files, ports, human-readable ints
        # 0.34.0: SpeculativeConfig's per-method checks moved into the speculators' configs
        "vllm/v1/worker/gpu/spec_decode/speculator_config.py",
        # ParallelConfig._verify_args asks it whether Ray imports (--distributed-executor-backend ray)
        "vllm/v1/executor/ray_utils.py",
        # VllmConfig._get_quantization_config -> get_quant_config: a quantization method's config file
        "vllm/model_executor/model_loader/weight_utils.py",
        # ReasoningConfig.initialize_token_ids builds the reasoning parser: its think tokens
        "vllm/reasoning/basic_parsers.py",
    ]:
        if os.path.exists(base + p):
            out.append(p)
    # 0.34.0: each speculator's own configure() checks (e.g. ngram/config.py's prompt_lookup bounds)
    sd = "vllm/v1/worker/gpu/spec_decode"
    if os.path.isdir(base + sd):
        for d in sorted(os.listdir(base + sd)):
            if os.path.exists(f"{base}{sd}/{d}/config.py"):
                out.append(f"{sd}/{d}/config.py")
    return out


# pydantic's error for a number outside a field's bound: (words of its message, its error type)
BOUNDS = {
    "ge": ("greater than or equal to", "greater_than_equal"),
    "gt": ("greater than", "greater_than"),
    "le": ("less than or equal to", "less_than_equal"),
    "lt": ("less than", "less_than"),
}


def _int_constant(n):
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
        value = _int_constant(n.operand)
        return None if value is None else -value
    if isinstance(n, ast.Constant) and type(n.value) is int:
        return n.value
    return None  # a float bound: how pydantic prints it is not read here


def field_bounds(tree):
    """(message, line, class) of each int bound of an annotated `name: T = Field(..., ge=N)` class field."""
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        for node in cls.body:
            if not (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(node.value, ast.Call)
                and ast.unparse(node.value.func) in ("Field", "pydantic.Field")
            ):
                continue
            for kw in node.value.keywords:
                limit = _int_constant(kw.value) if kw.arg in BOUNDS else None
                if limit is not None:
                    words, kind = BOUNDS[kw.arg]
                    message = f"{node.target.id}: Input should be {words} {limit}"
                    yield message, node.lineno, f"pydantic:{kind}"


def index_release(v, idx):
    for f in files_for(v):
        with open(source_dir(v) / f) as fh:
            tree = ast.parse(fh.read())
        if f.startswith("vllm/config/"):
            for m, line, cls in field_bounds(tree):
                rec = [v, f, line, cls]
                if rec not in idx.setdefault(m, []):
                    idx[m].append(rec)
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                continue
            assigns = {}
            nodes = [n for n in ast.walk(fn)]
            for node in nodes:
                if (
                    isinstance(node, ast.Assign)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)
                ):
                    r = render(node.value)
                    if r is not None:
                        assigns.setdefault(node.targets[0].id, []).append((node.lineno, r))
            for node in nodes:
                # `assert cond, "message"`: the catalogs index these sites like raise-sites (kind "assert")
                if isinstance(node, ast.Assert) and node.msg is not None:
                    m = render(node.msg)
                    rec = [v, f, node.lineno, "AssertionError"]
                    if m is not None and rec not in idx.setdefault(m, []):
                        idx[m].append(rec)
                    continue
                if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
                    a = node.exc.args[0]
                    m = render(a)
                    if (
                        m is None
                        and not isinstance(fn, ast.Module)
                        and isinstance(a, ast.Name)
                        and a.id in assigns
                    ):
                        prev = [r for ln, r in assigns[a.id] if ln < node.lineno]
                        m = prev[-1] if prev else None
                    if m is None:
                        continue
                    cls = ast.unparse(node.exc.func)
                    rec = [v, f, node.lineno, cls]
                    if rec not in idx.setdefault(m, []):
                        idx[m].append(rec)


def build_index():
    idx = {}
    for v in RELEASES:
        index_release(v, idx)
    with open(INDEX, "w") as fh:
        json.dump(idx, fh)
    return idx


def load_index():
    if not INDEX.exists():
        return build_index()
    with open(INDEX) as fh:
        idx = json.load(fh)
    seen = {o[0] for occ in idx.values() for o in occ}
    if not set(RELEASES) <= seen:  # a release was added since the index was cached
        return build_index()
    return idx


if __name__ == "__main__":
    print(len(build_index()))
