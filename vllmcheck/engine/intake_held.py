"""Launches that a text holds without a command line to run: vLLM's own log line of the arguments it parsed
(``non-default args: {...}``, pasted into issues with the error that followed), and an environment variable
that holds vLLM's arguments for a wrapper to pass on (``VLLM_ARGS=--max-model-len 8192 ...`` in an env file,
a template's settings or a container's environment) beside the model another variable names.

Each reader returns the argv of ``vllm serve`` it rebuilt, the line it was found on, and what the user is told
about how it was read; ``intake`` turns them into launches when nothing else in the text runs vLLM. Plain
Python, no Django.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import shell
from .types import ParseError

__all__ = ["Held", "args_variable", "env_arguments", "literal_value", "logged_arguments"]


@dataclass
class Held:
    """A launch rebuilt from what a text holds: ``vllm serve`` argv, its line, the release it names, notes."""

    argv: list[str]
    line: int
    release: str | None = None
    notes: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # values the text does not give (Python reprs)


# ------------------------------------------------------------------------- vLLM's "non-default args" log

_NON_DEFAULT = re.compile(r"non-default args: (\{.*\})\s*$")
_SERVER_VERSION = re.compile(
    r"(?:vLLM API server version|\u2588\s+version|Initializing a V\d LLM engine \(v)\s*v?(\d+\.\d+(?:\.\d+)?)"
)
_SKIPPED_KEYS = frozenset({"model_tag", "subparser", "dispatch_function", "config"})


def logged_arguments(text: str) -> list[Held]:
    """Each ``non-default args: {...}`` line vLLM logs at start-up (0.9 and later), as the ``vllm serve``
    argv that gives those values; the release from the log's ``vLLM API server version`` (or banner) line."""
    release = None
    out: list[Held] = []
    for number, line in enumerate(text.split("\n"), start=1):
        version = _SERVER_VERSION.search(line)
        if version:
            release = version.group(1) if version.group(1).count(".") == 2 else version.group(1) + ".0"
        match = _NON_DEFAULT.search(line)
        if not match:
            continue
        try:
            node = ast.parse(match.group(1), mode="eval").body
        except SyntaxError:
            continue
        if not isinstance(node, ast.Dict):
            continue
        held = _from_logged_dict(node, number)
        if held is not None:
            held.release = release
            if release:
                held.notes.append(f"release {release} from the log's version line")
            out.append(held)
    return out


def _from_logged_dict(node: ast.Dict, line: int) -> Held | None:
    values: dict[str, ast.AST] = {}
    for key, value in zip(node.keys, node.values, strict=True):
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            values[key.value] = value
    model_node = values.get("model_tag", values.get("model"))
    if model_node is None:
        return None
    held = Held(argv=["vllm", "serve"], line=line)
    held.argv.append(_word(model_node, held))
    for name, value in values.items():
        if name in _SKIPPED_KEYS or (name == "model" and "model_tag" in values):
            continue
        held.argv.extend(_flag_words("--" + name.replace("_", "-"), value, held))
    held.notes.append(
        f"read from vLLM's own log line `non-default args: {{...}}` on line {line}: the launch is rebuilt "
        "from the values vLLM parsed, each as the flag of its name"
    )
    return held


def _flag_words(flag: str, value: ast.AST, held: Held) -> list[str]:
    try:
        literal = ast.literal_eval(value)
    except ValueError:
        return [flag, _word(value, held)]
    if literal is True:
        return [flag]
    if literal is False:
        return ["--no-" + flag[2:]]
    if literal is None:
        return []
    if isinstance(literal, list | tuple):
        return [flag, *(json.dumps(v) if isinstance(v, dict | list) else str(v) for v in literal)]
    if isinstance(literal, dict):
        return [flag, json.dumps(literal)]
    return [flag, str(literal)]


def _word(node: ast.AST, held: Held) -> str:
    try:
        literal = ast.literal_eval(node)
    except ValueError:
        literal = None
    if isinstance(literal, str | int | float):
        return str(literal)
    placeholder = f"<{ast.unparse(node)}>"
    held.unknown.append(placeholder)
    return placeholder


# ------------------------------------------------------------------- arguments held in a variable

# `VLLM_ARGS=...`, `EXTRA_VLLM_ARGS=...`, `VLLM_ADDITIONAL_ARGS=...`: in an env file, a list of settings, a
# comment that documents a template (`#   VLLM_ARGS=...`), or `export`.
# `NAME=value` (env files, shells) or `NAME: value` (YAML settings), a comment after a quoted YAML value.
_ARGS_LINE = re.compile(
    r"^\s*(?:[-*]\s+|#\s*|export\s+|set\s+)?(?P<name>[A-Za-z_][A-Za-z0-9_]*ARGS)(?:=|:[ \t]+)"
    r"(?P<value>.*\S)\s*$"
)
_MODEL_LINE = re.compile(
    r"^\s*(?:[-*]\s+|#\s*|export\s+|set\s+)?(?P<name>(?:VLLM_)?MODEL(?:_NAME|_ID|_PATH)?)(?:=|:[ \t]+)"
    r"(?P<value>['\"]?[^\s'\"#]+['\"]?)(?:\s+#.*)?\s*$"
)
_ARGS_NAME = re.compile(r"(?:^|_)ARGS$")
_VLLM_ARGS_NAME = re.compile(r"VLLM", re.I)
_EXTRA_NAME = re.compile(r"EXTRA|ADDITIONAL|ADDL", re.I)


def args_variable(env: Mapping[str, str], vllm_flag: re.Pattern[str]) -> tuple[str, list[str]] | None:
    """The variable of ``env`` that holds vLLM's arguments (its name ends in ``ARGS`` and its words include
    one of vLLM's flags), with its words; None when there is none or its value cannot be split."""
    for name, value in env.items():
        if not _ARGS_NAME.search(name):
            continue
        words = _split(value)
        if words and any(vllm_flag.match(word) for word in words):
            return name, words
    return None


def env_arguments(text: str, vllm_flag: re.Pattern[str]) -> list[Held]:
    """A variable holding vLLM's arguments, written one per line (an env file, a template's settings): the
    ``vllm serve`` argv it gives, with the model the text's ``MODEL``/``VLLM_MODEL``/``MODEL_NAME`` names
    when the arguments do not."""
    models: dict[str, tuple[str, int]] = {}
    found: list[tuple[str, list[str], int]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        model = _MODEL_LINE.match(line)
        if model:
            models.setdefault(model.group("name"), (model.group("value").strip("'\""), number))
            continue
        match = _ARGS_LINE.match(line)
        if not match:
            continue
        words = _split(_unquoted(match.group("value")))
        if words and any(vllm_flag.match(word) for word in words):
            found.append((match.group("name"), words, number))
    if not found:
        return []
    found.sort(key=lambda item: not _VLLM_ARGS_NAME.search(item[0]))  # a name saying vLLM first
    name, words, number = found[0]
    held = Held(argv=["vllm", "serve"], line=number)
    held.notes.append(
        f"the arguments {name} holds (line {number}) are read as those of `vllm serve` (the text does not "
        "show the command that passes them on)"
    )
    if _EXTRA_NAME.search(name):
        held.notes.append(
            f"{name} holds extra arguments: the command that passes them on may give others, not checked here"
        )
    if not any(w == "--model" or w.startswith("--model=") for w in words) and models:
        model_name = next(iter(models))
        value, model_line = models[model_name]
        held.argv.append(value)
        held.notes.append(f"the model is {model_name} (line {model_line}): {value}")
    held.argv.extend(words)
    return [held]


def _unquoted(value: str) -> str:
    """A value without its quotes (and a comment after them: `"--enforce-eager" # optional args`)."""
    value = value.strip()
    if value[:1] in ("'", '"'):
        end = value.find(value[0], 1)
        rest = value[end + 1 :].strip() if end > 0 else None
        if rest is not None and (not rest or rest.startswith("#")):
            return value[1:end]
    return value


def _split(value: str) -> list[str] | None:
    try:
        return [word for word, _ in shell.split_words(value)]
    except ParseError:
        return None


def literal_value(node: ast.AST, names: Mapping[str, Any]) -> Any:
    """A Python literal with the arithmetic people write in it (``1280 * 28 * 28``) and names bound to
    constants worked out; ValueError for anything else."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.Dict) and None not in node.keys:
        pairs = zip(node.keys, node.values, strict=True)
        return {literal_value(k, names): literal_value(v, names) for k, v in pairs}  # type: ignore[arg-type]
    if isinstance(node, ast.List | ast.Tuple):
        return [literal_value(item, names) for item in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = literal_value(node.operand, names)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        left, right = literal_value(node.left, names), literal_value(node.right, names)
        numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (left, right))
        if numbers and isinstance(node.op, ast.Mult | ast.Add | ast.Sub | ast.FloorDiv | ast.Div):
            if isinstance(node.op, ast.Div | ast.FloorDiv) and right == 0:
                raise ValueError("division by zero")
            operations = {
                ast.Mult: lambda a, b: a * b,
                ast.Add: lambda a, b: a + b,
                ast.Sub: lambda a, b: a - b,
            }
            operations[ast.FloorDiv] = lambda a, b: a // b
            operations[ast.Div] = lambda a, b: a / b
            return operations[type(node.op)](left, right)
    raise ValueError(f"not a literal: {ast.unparse(node)}")
