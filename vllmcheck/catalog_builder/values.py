"""The value sets a release compares arguments against at start-up, read statically from its sources.

A *value set* is a registry or an enumeration vLLM checks a value against: quantization methods, speculative
methods, attention backends, reasoning and tool-call parsers, KV-cache dtypes, the modes of
``compilation_config`` and the ``-O`` levels. Each is found by the symbol vLLM defines it with (a
``Literal`` alias, an ``Enum`` class, or a dict of lazily registered names), wherever in the tree it lives.

A *value check* ties a set to the argument (or the key inside a JSON-config argument) vLLM checks with it,
and carries vLLM's own error text for that release: the raise-site whose message names the set, with the
set's part filled in and the user's value left as ``{value}`` / ``{value!r}``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from .source import SourceTree

VALUE_PLACEHOLDERS = ("{value!r}", "{value}")


@dataclass(frozen=True)
class SetSpec:
    name: str  # the catalog key, e.g. "kv_cache_dtypes"
    symbols: tuple[str, ...]  # vLLM's names for it (the first found wins)
    kind: str  # "literal" | "enum" | "dict_keys"


@dataclass(frozen=True)
class CheckSpec:
    set: str
    argument: str  # the argument vLLM checks (``dest``)
    key: str | None = None  # a key inside the argument's JSON config
    message: str | None = None  # a regex matched against the start of the raise-site's message
    case: str | None = None  # "upper": vLLM upper-cases the value before the look-up
    requires: str | None = None  # vLLM checks only when this argument is truthy
    aliases: tuple[str, ...] = ()  # names the value goes by in the raise-site (besides value/name)
    also: tuple[str, ...] = ()  # values vLLM takes before the look-up (``auto``: automatic selection)


SETS: tuple[SetSpec, ...] = (
    SetSpec("quantization_methods", ("QuantizationMethods",), "literal"),
    SetSpec("speculative_methods", ("SpeculativeMethod",), "literal"),
    SetSpec("attention_backends", ("AttentionBackendEnum", "_Backend"), "enum"),
    SetSpec("reasoning_parsers", ("_REASONING_PARSERS_TO_REGISTER",), "dict_keys"),
    SetSpec("tool_call_parsers", ("_TOOL_PARSERS_TO_REGISTER",), "dict_keys"),
    SetSpec("kv_cache_dtypes", ("CacheDType",), "literal"),
    SetSpec("compilation_modes", ("CompilationMode", "CompilationLevel"), "enum"),
    SetSpec("cudagraph_modes", ("CUDAGraphMode",), "enum"),
    SetSpec("optimization_levels", ("OptimizationLevel",), "enum"),
    SetSpec("chat_template_content_formats", ("ChatTemplateContentFormatOption",), "literal"),
)

CHECKS: tuple[CheckSpec, ...] = (
    CheckSpec(
        "kv_cache_dtypes", "kv_cache_dtype", message=r"Invalid kv_cache_dtype", aliases=("cache_dtype",)
    ),
    CheckSpec("quantization_methods", "quantization", message=r"Unknown quantization method"),
    CheckSpec(
        "speculative_methods", "speculative_config", key="method", message=r"Unknown speculative method"
    ),
    CheckSpec(
        "attention_backends",
        "attention_backend",
        message=r"Unknown attention backend",
        case="upper",
        also=("AUTO",),
    ),
    # --reasoning-parser: the API server's own check (validate_api_server_args) reads
    # structured_outputs_config.reasoning_parser, which the engine arguments fill only when the config is
    # built, so the first refusal is ReasoningParserManager.get_reasoning_parser's KeyError
    CheckSpec("reasoning_parsers", "reasoning_parser", message=r"Reasoning parser '"),
    CheckSpec(
        "tool_call_parsers",
        "tool_call_parser",
        message=r"invalid tool call parser",
        requires="enable_auto_tool_choice",
    ),
    CheckSpec(
        "compilation_modes",
        "compilation_config",
        key="mode",
        message=r"Invalid compilation mode",
        case="upper",
    ),
    CheckSpec("cudagraph_modes", "compilation_config", key="cudagraph_mode", case="upper"),
    CheckSpec("optimization_levels", "optimization_level"),
    CheckSpec("chat_template_content_formats", "chat_template_content_format"),
)

# Where vLLM raises the messages of CHECKS besides the config code the catalog's ``errors`` already scan.
MESSAGE_DIRS = (
    "vllm/config/",
    "vllm/entrypoints/",
    "vllm/v1/attention/",
    "vllm/attention/",
    "vllm/engine/",
    "vllm/reasoning/",
)


# ------------------------------------------------------------------------------------------ definitions


class Definitions:
    """Top-level definitions of the tree by name, found through a text search, parsed on demand."""

    def __init__(self, tree: SourceTree):
        self.tree = tree
        self._parsed: dict[str, ast.Module | None] = {}

    def module(self, path: str) -> ast.Module | None:
        if path not in self._parsed:
            try:
                self._parsed[path] = ast.parse(self.tree.get(path) or "", filename=path)
            except SyntaxError:
                self._parsed[path] = None
        return self._parsed[path]

    def find(self, symbol: str) -> tuple[str, ast.stmt] | None:
        """(file, statement) of the first top-level definition of ``symbol`` (shortest path first)."""
        pattern = re.compile(rf"^(class {re.escape(symbol)}\b|{re.escape(symbol)}\s*(:[^=\n]*)?=)", re.M)
        for path in sorted(self.tree.files, key=lambda p: (p.count("/"), p)):
            text = self.tree.files[path]
            if symbol not in text or not pattern.search(text):
                continue
            module = self.module(path)
            for stmt in module.body if module is not None else ():
                if _defines(stmt, symbol):
                    return path, stmt
        return None


def _defines(stmt: ast.stmt, symbol: str) -> bool:
    if isinstance(stmt, ast.ClassDef):
        return stmt.name == symbol
    if isinstance(stmt, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == symbol for t in stmt.targets)
    if isinstance(stmt, ast.AnnAssign):
        return isinstance(stmt.target, ast.Name) and stmt.target.id == symbol and stmt.value is not None
    return False


def literal_values(node: ast.expr, local: dict[str, ast.expr], depth: int = 0) -> list[Any] | None:
    """The members of ``Literal[...]`` (or a union of them, or an alias of one in the same module)."""
    if depth > 8:
        return None
    if isinstance(node, ast.Subscript) and ast.unparse(node.value).split(".")[-1] == "Literal":
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        values: list[Any] = []
        for item in items:
            if isinstance(item, ast.Constant):
                values.append(item.value)
            else:
                inner = literal_values(item, local, depth + 1)
                if inner is None:
                    return None
                values.extend(inner)
        return values
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = (
            literal_values(node.left, local, depth + 1),
            literal_values(node.right, local, depth + 1),
        )
        return None if left is None and right is None else (left or []) + (right or [])
    if isinstance(node, ast.Name) and node.id in local:
        return literal_values(local[node.id], local, depth + 1)
    return None


def enum_members(cls: ast.ClassDef) -> dict[str, Any]:
    """Member name -> value (a constant, or None when vLLM computes it) of an Enum class body."""
    members: dict[str, Any] = {}
    for stmt in cls.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else []
        for target in targets:
            if isinstance(target, ast.Name) and not target.id.startswith("_"):
                value = stmt.value
                members[target.id] = value.value if isinstance(value, ast.Constant) else None
    return members


def _module_assigns(module: ast.Module) -> dict[str, ast.expr]:
    local: dict[str, ast.expr] = {}
    for stmt in module.body:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    local[target.id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            local[stmt.target.id] = stmt.value
    return local


def extract_set(defs: Definitions, spec: SetSpec) -> dict[str, Any] | None:
    for symbol in spec.symbols:
        found = defs.find(symbol)
        if found is None:
            continue
        path, stmt = found
        entry: dict[str, Any] = {"symbol": symbol, "file": path, "line": stmt.lineno}
        if spec.kind == "enum" and isinstance(stmt, ast.ClassDef):
            members = enum_members(stmt)
            entry["values"] = list(members)
            entry["members"] = {k: v for k, v in members.items() if isinstance(v, int | str)}
        elif spec.kind == "literal" and not isinstance(stmt, ast.ClassDef):
            values = literal_values(stmt.value, _module_assigns(defs.module(path)))
            if values is None:
                continue
            entry["values"] = values
        elif spec.kind == "dict_keys" and isinstance(getattr(stmt, "value", None), ast.Dict):
            keys = [k.value for k in stmt.value.keys if isinstance(k, ast.Constant)]
            entry["values"] = sorted(set(keys + registered_names(defs, path)))
        else:
            continue
        entry["values"] = list(dict.fromkeys(entry["values"]))
        return entry
    return None


def registered_names(defs: Definitions, path: str) -> list[str]:
    """Names registered with ``@XManager.register_module("name")`` in the package of ``path``."""
    package = path.rsplit("/", 1)[0] + "/"
    names: list[str] = []
    for other in sorted(p for p in defs.tree.files if p.startswith(package)):
        if "register_module(" not in defs.tree.files[other]:
            continue
        module = defs.module(other)
        for node in ast.walk(module) if module is not None else ():
            if isinstance(node, ast.ClassDef):
                for deco in node.decorator_list:
                    if isinstance(deco, ast.Call) and ast.unparse(deco.func).endswith("register_module"):
                        for arg in [*deco.args, *(k.value for k in deco.keywords if k.arg == "name")]:
                            elts = arg.elts if isinstance(arg, ast.List | ast.Tuple) else [arg]
                            names += [e.value for e in elts if isinstance(e, ast.Constant)]
    return names


# ------------------------------------------------------------------------------------------ messages


def _render_field(expr: ast.expr, values: list[Any], names: _Names, depth: int = 0) -> str | None:
    """The text an f-string field of a value-set message prints; ``{value}`` for the checked value."""
    last = expr.attr if isinstance(expr, ast.Attribute) else expr.id if isinstance(expr, ast.Name) else None
    if last in names.value or depth > 4:
        return "{value}" if last in names.value else None
    if isinstance(expr, ast.Name) and expr.id in names.registered:
        return "[]"  # custom entries a plugin registers at run time: none in a stored profile
    if isinstance(expr, ast.Name) and expr.id in names.local:
        return _render_field(names.local[expr.id], values, names, depth + 1)
    if isinstance(expr, ast.Call):
        func = ast.unparse(expr.func)
        if func.endswith(".join") and isinstance(expr.func, ast.Attribute):
            sep = expr.func.value.value if isinstance(expr.func.value, ast.Constant) else ", "
            inner = _render_field(expr.args[0], values, names, depth + 1) if expr.args else None
            items = (
                sorted(values, key=str)
                if inner and inner.startswith("[") and inner != repr(values)
                else values
            )
            return str(sep).join(str(v) for v in items)
        if func == "sorted" or func.endswith("list_registered"):  # the parser managers sort their names
            return repr(sorted(values, key=str))
        if func in ("list", "tuple", "get_args", "set") and expr.args:
            return _render_field(expr.args[0], values, names, depth + 1)
        return repr(list(values))
    if isinstance(expr, ast.ListComp | ast.Name | ast.Attribute | ast.Subscript):
        return repr(list(values))
    return None


@dataclass
class _Names:
    value: set[str]  # names the checked value goes by
    registered: set[str]  # names bound to registered_*(): plugin registrations, none here
    local: dict[str, ast.expr]  # the function's own assignments


def message_template(node: ast.expr, values: list[Any], names: _Names) -> str | None:
    """vLLM's message with the value set filled in and the checked value as ``{value}``/``{value!r}``."""
    parts: list[str] = []
    pieces = node.values if isinstance(node, ast.JoinedStr) else [node]
    for piece in pieces:
        if isinstance(piece, ast.Constant):
            parts.append(str(piece.value))
            continue
        if not isinstance(piece, ast.FormattedValue):
            return None
        text = _render_field(piece.value, values, names)
        if text is None:
            return None
        if text == "{value}" and piece.conversion == ord("r"):
            text = "{value!r}"
        parts.append(text)
    return "".join(parts)


def _names(func: ast.AST, value_names: set[str]) -> _Names:
    """The value's names, the ``registered_*()`` results and the plain assignments of a function."""
    names = _Names(value=value_names, registered=set(), local={})
    for node in ast.walk(func):
        target = value = None
        if isinstance(node, ast.NamedExpr):
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        if not isinstance(target, ast.Name) or target.id in value_names:
            continue
        if isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1].startswith("registered"):
            names.registered.add(target.id)
        elif isinstance(node, ast.Assign):
            names.local.setdefault(target.id, value)
    return names


def _raise_message(node: ast.Raise) -> ast.expr | None:
    exc = node.exc
    if isinstance(exc, ast.Call) and exc.args:
        return exc.args[0]
    return None


def _flat_text(node: ast.expr) -> str:
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return str(node.value) if isinstance(node, ast.Constant) else ""


def find_message(defs: Definitions, check: CheckSpec, values: list[Any]) -> dict[str, Any] | None:
    """The raise-site of ``check``'s message, and its template for this release."""
    if not check.message:
        return None
    start = re.compile(check.message)
    words = check.message.replace("\\", "")
    value_names = {"value", "name", check.argument, *(check.aliases), *([check.key] if check.key else [])}
    for path in sorted(defs.tree.files):
        if not path.startswith(MESSAGE_DIRS) or words.split()[0] not in defs.tree.files[path]:
            continue
        module = defs.module(path)
        if module is None:
            continue
        for func in ast.walk(module):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                message = _raise_message(node) if isinstance(node, ast.Raise) else None
                if message is None or not start.match(_flat_text(message)):
                    continue
                template = message_template(message, values, _names(func, value_names))
                if template is None or not any(p in template for p in VALUE_PLACEHOLDERS):
                    continue
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                return {
                    "message": template,
                    "class": ast.unparse(exc).split(".")[-1],
                    "file": path,
                    "line": node.lineno,
                }
    return None


# ------------------------------------------------------------------------------------------ the catalog part


def extract_value_sets(tree: SourceTree) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(value sets by name, value checks) of one release."""
    defs = Definitions(tree)
    sets = {spec.name: entry for spec in SETS if (entry := extract_set(defs, spec)) is not None}
    checks = []
    for check in CHECKS:
        entry = sets.get(check.set)
        if entry is None:
            continue
        site = find_message(defs, check, entry["values"])
        checks.append(
            {
                "set": check.set,
                "argument": check.argument,
                "key": check.key,
                "case": check.case,
                "requires": check.requires,
                "also": list(check.also),
                "message": site.pop("message") if site else None,
                "site": site,
            }
        )
    return sets, checks
