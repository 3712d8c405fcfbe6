"""Message templates: vLLM's message with the profile's values filled in.

A rule keeps its static ``message`` (vLLM's source text with ``{self.x}`` placeholders: searchable, grouped
by id) and may carry ``message_template``, the same text in which each ``{{ EXPR }}`` or
``{{ EXPR | SPEC }}`` is a CEL expression over the rule's document (like ``when``), and SPEC the
conversion and/or format spec of vLLM's f-string (``!r``, ``:.2f``, ``!r:>10``). This is Kubernetes'
``message`` + ``messageExpression`` of a ValidatingAdmissionPolicy, one expression per placeholder.

Slots that are a plain path (``effective.speculative_config``) read the document's Python value directly, so a
map prints its keys in the profile's order as vLLM's does (CEL returns maps in an arbitrary order).

The CEL value comes back as Python (bool, None, int, float, str, list, dict) and is formatted exactly as
Python's f-string ``{value!conv:spec}`` formats it, so the text reads as vLLM prints it. Templates compile
once with the rule set; nothing is ever run as Python.
"""

from __future__ import annotations

import contextlib
import copyreg
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cel

from .cel_reads import LexError, read_set, tokens
from .missing import PLACEHOLDER
from .types import RuleCompileError

FIELD = "message_template"
CONVERSIONS = {"r": repr, "s": str, "a": ascii}
# Python's format-spec mini-language: [[fill]align][sign]["z"]["#"]["0"][width][grouping]["." precision][type]
_FORMAT_SPEC = re.compile(r"^(?:.?[<>=^])?[-+ ]?z?#?0?(?:\d+)?[_,]?(?:\.\d+)?[bcdeEfFgGnosxX%]?$", re.DOTALL)
_SPEC = re.compile(r"^(?:!(?P<conversion>[a-z]))?(?::(?P<format>.*))?$", re.DOTALL)
# Errors the cel library raises while evaluating (an absent key is a KeyError, a bad index an IndexError ...).
EVAL_ERRORS = (LookupError, ArithmeticError, RuntimeError, TypeError, ValueError)


class RenderError(Exception):
    """A slot cannot be evaluated or formatted for this profile (an unknown fact, a value of another type)."""

    def __init__(self, slot: Slot, detail: str):
        self.slot = slot
        self.detail = detail
        super().__init__(f"{{{{ {slot.expr} }}}}: {detail}")


@dataclass(frozen=True)
class Slot:
    number: int  # 1-based, as the error messages name it
    expr: str
    program: cel.Program | LazyProgram
    conversion: str | None
    format_spec: str
    # ``args.speculative_config`` and the like: read straight from the document, which keeps a map's keys in
    # the order vLLM prints them (CEL's maps come back in an arbitrary order).
    path: tuple[str, ...] | None = None

    @property
    def label(self) -> str:
        """How a message names this slot when it cannot be filled: the expression itself when it is short
        (``model.config.num_attention_heads``); for a long one (a whole sentence vLLM builds from many
        values, thousands of characters of CEL) the inputs it reads, so a finding stays readable. The full
        expression stays in the rule's ``message_template``."""
        return _label(self.expr)

    @property
    def paths(self) -> tuple[str, ...]:
        """The document paths the slot's expression reads (``hardware.gpus_per_node``, ``model.config.x``):
        what a finding names, in words (``missing``), when the slot cannot be filled."""
        return _paths(self.expr)

    def value(self, context: cel.Context, variables: Mapping[str, Any] | None) -> Any:
        if self.path is None or variables is None:
            return self.program.execute(context)
        value: Any = variables
        for key in self.path:
            if not isinstance(value, Mapping):
                raise TypeError(f"{self.expr}: no field {key!r} in a {type(value).__name__}")
            value = value[key]
        return value

    def render(self, context: cel.Context, variables: Mapping[str, Any] | None = None) -> str:
        try:
            value = self.value(context, variables)
        except EVAL_ERRORS as exc:
            missing = f"the profile does not give {exc.args[0]}" if isinstance(exc, KeyError) else str(exc)
            raise RenderError(self, missing) from exc
        if self.conversion is not None:
            value = CONVERSIONS[self.conversion](value)
        try:
            return format(value, self.format_spec)
        except (TypeError, ValueError) as exc:
            raise RenderError(self, f"{type(value).__name__} value {value!r}: {exc}") from exc


@dataclass(frozen=True)
class MessageTemplate:
    source: str
    parts: tuple[str | Slot, ...]

    @property
    def slots(self) -> tuple[Slot, ...]:
        return tuple(p for p in self.parts if isinstance(p, Slot))

    @property
    def expressions(self) -> tuple[str, ...]:
        return tuple(slot.expr for slot in self.slots)

    def render(self, context: cel.Context, variables: Mapping[str, Any] | None = None) -> str:
        """The filled message; RenderError if any slot cannot be filled. ``variables``: the Python values
        ``context`` was built from (path slots read them directly)."""
        return "".join(p if isinstance(p, str) else p.render(context, variables) for p in self.parts)

    def render_partial(
        self, context: cel.Context, variables: Mapping[str, Any] | None = None
    ) -> tuple[str, tuple[RenderError, ...]]:
        """The message with every slot that can be filled filled, and ``missing.PLACEHOLDER`` for the others.

        vLLM would print a value there, but the profile does not say which (an unknown model fact, say):
        the reader sees a gap rather than a raw ``{self.x}`` placeholder or an invented value; the finding
        names the missing facts in words (``missing``).
        """
        text: list[str] = []
        failed: list[RenderError] = []
        for part in self.parts:
            if isinstance(part, str):
                text.append(part)
                continue
            try:
                text.append(part.render(context, variables))
            except RenderError as exc:
                failed.append(exc)
                text.append(PLACEHOLDER)
        return "".join(text), tuple(failed)


# An expression up to this long is shown as it is where its value is unknown; a longer one by what it reads.
LABEL_CHARS = 80
LABEL_INPUTS = 4
_LABEL_ROOTS = frozenset({"args", "env", "model", "model.config", "vllm", "hardware", "derived", "effective"})
# The roots the rules' read sets are worked out over (``rules.NAMESPACES``; a test checks): a label reads the
# read set its rule's planning left in ``read_set``'s cache, restricted to its roots, rather than lexing a
# long expression again (milliseconds, paid by the first profile whose finding could not fill it in).
_READ_ROOTS = frozenset(
    {"args", "effective", "env", "hardware", "model", "model.config", "vllm", "derived", "values"}
)


@lru_cache(maxsize=1024)
def _paths(expr: str) -> tuple[str, ...]:
    reads = {root: keys for root, keys in read_set(expr, _READ_ROOTS).items() if root in _LABEL_ROOTS}
    paths: list[str] = []
    for root in sorted(reads):
        keys = reads[root]
        if root == "model" and "model.config" in reads:
            keys = None if keys is None else keys - {"config"}
            if keys == frozenset():
                continue
        paths.extend([root] if keys is None else (f"{root}.{key}" for key in sorted(keys)))
    return tuple(paths)


@lru_cache(maxsize=1024)
def _label(expr: str) -> str:
    text = " ".join(expr.split())
    if len(text) <= LABEL_CHARS:
        return text
    paths = _paths(expr)
    if not paths:
        return text[: LABEL_CHARS - 1] + "\u2026"
    shown = ", ".join(paths[:LABEL_INPUTS])
    more = f" and {len(paths) - LABEL_INPUTS} more" if len(paths) > LABEL_INPUTS else ""
    return f"a value computed from {shown}{more}"


def _scan_slot(text: str, start: int) -> tuple[int, int | None]:
    """From just after ``{{``: the index of the closing ``}}`` and of a ``|`` spec separator (or None).

    Brackets, braces and string literals of the CEL expression are skipped, so ``{{ {"a": {"b": 1}} }}`` and
    ``{{ x || y }}`` are one expression. -1 if the slot never closes.
    """
    depth, quote, bar = 0, "", None
    i = start
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 1
            elif text.startswith(quote, i):
                i += len(quote) - 1
                quote = ""
        elif char in "\"'":
            quote = text[i : i + 3] if text.startswith(char * 3, i) else char
            i += len(quote) - 1
        elif char in "([{":
            depth += 1
        elif depth == 0 and text.startswith("}}", i):
            return i, bar
        elif char in ")]}":
            depth -= 1
        elif char == "|" and depth == 0 and bar is None:
            if text.startswith("||", i):
                i += 1
            else:
                bar = i
        i += 1
    return -1, bar


def _path(expr: str) -> tuple[str, ...] | None:
    """``a.b.c`` or ``a["b"].c`` as ("a", "b", "c"); None for any other expression."""
    try:
        toks = tokens(expr)
    except LexError:
        return None
    if not toks or toks[0][0] != "ident":
        return None
    path, i = [toks[0][1]], 1
    while i < len(toks):
        if toks[i][0] == "." and i + 1 < len(toks) and toks[i + 1][0] == "ident":
            path.append(toks[i + 1][1])
            i += 2
        elif toks[i][0] == "[" and i + 2 < len(toks) and toks[i + 2][0] == "]" and _plain(toks[i + 1]):
            path.append(toks[i + 1][1][1:-1])
            i += 3
        else:
            return None
    return tuple(path) if path[0] not in ("true", "false", "null") else None


def _plain(token: tuple[str, str]) -> bool:
    kind, text = token
    return kind == "string" and text[0] in "\"'" and text[:3] not in ('"""', "'''") and "\\" not in text


def _parse_spec(owner: str, label: str, spec: str) -> tuple[str | None, str]:
    match = _SPEC.match(spec)
    if not spec or match is None:
        raise RuleCompileError(
            owner,
            FIELD,
            f"{label}: {spec!r} is not a conversion and/or format spec (!r, :.2f, !r:>10)",
        )
    conversion, format_spec = match.group("conversion"), match.group("format") or ""
    if conversion is not None and conversion not in CONVERSIONS:
        raise RuleCompileError(owner, FIELD, f"{label}: unknown conversion !{conversion} (use !r, !s or !a)")
    if not _FORMAT_SPEC.match(format_spec):
        raise RuleCompileError(owner, FIELD, f"{label}: {spec!r} is not a Python format spec")
    return conversion, format_spec


def _pieces(owner: str, text: str) -> Iterator[str | tuple[int, str, str | None]]:
    """Literal text and (slot number, expression, spec) in order; errors name the slot."""
    position, number = 0, 0
    while True:
        opening = text.find("{{", position)
        closing = text.find("}}", position)
        if closing != -1 and (opening == -1 or closing < opening):
            raise RuleCompileError(
                owner, FIELD, f"unbalanced braces: '}}}}' at character {closing + 1} closes no '{{{{'"
            )
        if opening == -1:
            if position < len(text):
                yield text[position:]
            return
        number += 1
        end, bar = _scan_slot(text, opening + 2)
        if end == -1:
            raise RuleCompileError(
                owner,
                FIELD,
                f"unbalanced braces: slot {number} (character {opening + 1}) never closes",
            )
        if opening > position:
            yield text[position:opening]
        expr = text[opening + 2 : bar if bar is not None else end].strip()
        spec = text[bar + 1 : end].strip() if bar is not None else None
        yield number, expr, spec
        position = end + 2


@lru_cache(maxsize=8192)
def compile_cel(expr: str) -> cel.Program:
    """``cel.compile``, once per expression text: a Program is immutable, and the releases of a pack share
    most expressions (a rule with a derived value compiles once per definition of it)."""
    return cel.compile(expr)


class LazyProgram:
    """A CEL program compiled when first executed, for a rule set known to compile (``compile_ruleset(...,
    lazy=True)``): a linter run checking one file executes a few dozen of the pack's hundreds of programs."""

    __slots__ = ("source", "_program")

    def __init__(self, source: str):
        self.source = source
        self._program: cel.Program | None = None

    def __reduce__(self) -> tuple[type[LazyProgram], tuple[str]]:
        return LazyProgram, (self.source,)  # pickled as its source: compiled again when next executed

    def prepare(self) -> None:
        """Compile it now (one that does not compile is left to fail where it is executed, as before)."""
        if self._program is None:
            with contextlib.suppress(ValueError, RuntimeError, TypeError):
                self._program = compile_cel(self.source)

    def execute(self, context: Any = None) -> Any:
        program = self._program
        if program is None:
            program = self._program = compile_cel(self.source)
        return program.execute(context)


def _reduce_program(program: cel.Program) -> tuple[type[LazyProgram], tuple[str]]:
    return LazyProgram, (program.source,)


# A compiled program pickles as its source too (the server keeps its compiled rule sets: engine.store).
copyreg.pickle(cel.Program, _reduce_program)


@lru_cache(maxsize=4096)
def compile_template(owner: str, text: str, lazy: bool = False) -> MessageTemplate:
    """Compile every slot of a template once; RuleCompileError names the rule and the slot at fault."""
    parts: list[str | Slot] = []
    for piece in _pieces(owner, text):
        if isinstance(piece, str):
            parts.append(piece)
            continue
        number, expr, spec = piece
        label = f"slot {number} {{{{ {expr} }}}}" if len(expr) <= 60 else f"slot {number}"
        if not expr:
            raise RuleCompileError(owner, FIELD, f"slot {number} is empty: write a CEL expression")
        try:
            program = LazyProgram(expr) if lazy else compile_cel(expr)
        except (ValueError, RuntimeError, TypeError) as exc:
            detail = str(exc).split("ERROR: ", 1)[-1].strip()
            raise RuleCompileError(owner, FIELD, f"{label}: {detail}") from exc
        conversion, format_spec = _parse_spec(owner, label, spec) if spec is not None else (None, "")
        parts.append(Slot(number, expr, program, conversion, format_spec, _path(expr)))
    return MessageTemplate(text, tuple(parts))
