"""What a rule's condition says before it runs, from its text: the release's constants written in
(``specialise``), the ``has()`` guards it cannot be true without (``required_keys``) and the conjuncts any one
of which, false, makes it false (``conjuncts``). A release plan uses them to run fewer rules (``plan``); none
changes an outcome.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from ..cel_reads import LexError, _is_root, _key_at, tokens
from ..memo import LIMIT, freeze
from ..messages import compile_cel

_MACRO_NAMES = frozenset({"all", "exists", "exists_one", "map", "filter"})
_CONSTANT_ROOTS = ("effective", "vllm")


_ESCAPES = {"\\": "\\\\", '"': '\\"'}


def _escape(char: str) -> str:
    return _ESCAPES.get(char) or (f"\\u{ord(char):04x}" if char < " " or char == "\x7f" else char)


def _cel_literal(value: Any) -> str | None:
    """CEL source for ``value`` (null, bool, int, float, string, list, string-keyed map), or None."""
    if value is None:
        return "null"
    kind = type(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value) if -(2**63) <= value < 2**63 else None
    if kind is float:
        return repr(value) if math.isfinite(value) else None
    if kind is str:
        escaped = "".join(_escape(c) for c in value)
        return f'"{escaped}"'
    if kind is list:
        items = [_cel_literal(v) for v in value]
        return None if None in items else "[" + ", ".join(items) + "]"  # type: ignore[arg-type]
    if kind is dict and all(type(k) is str for k in value):
        items = [_cel_literal(v) for v in value.values()]
        if None in items:
            return None
        return "{" + ", ".join(f"{_cel_literal(k)}: {v}" for k, v in zip(value, items, strict=True)) + "}"
    return None


def _same_value(a: Any, b: Any) -> bool:
    """``a`` and ``b`` are the same CEL value (type included; a map's order aside)."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return a.hex() == b.hex()
    if type(a) is list:
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is dict:
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    return bool(a == b)


_LITERALS: dict[Any, str | None] = {}  # frozen value -> its checked literal (release defaults: a few hundred)


def _literal(value: Any) -> str | None:
    """``_cel_literal(value)`` if CEL reads it back as ``value`` exactly, else None."""
    try:
        frozen = freeze(value)
    except TypeError:
        return None
    if frozen in _LITERALS:
        return _LITERALS[frozen]
    literal = _cel_literal(value)
    if literal is not None:
        try:
            if not _same_value(compile_cel(literal).execute(), value):
                literal = None
        except (ValueError, RuntimeError, TypeError, LookupError, ArithmeticError):
            literal = None
    if len(_LITERALS) >= LIMIT:
        _LITERALS.clear()
    _LITERALS[frozen] = literal
    return literal


def specialise(expr: str, effective: Mapping[str, Any], vllm: Mapping[str, Any]) -> str:
    """``expr`` with what its release fixes written in: ``vllm.minor`` (and the other fields of ``vllm``) as
    literals, ``has(effective.k)`` as ``true`` and ``effective.k`` as ``(has(args.k) ? args.k : DEFAULT)``
    for every argument ``k`` whose release default is known before start-up (``effective``: the plan's
    defaults, null for one that is not). The value is the same for every profile; a context for it then
    holds only the arguments the profile sets, not the release's defaults (converting a map key into CEL
    costs a microsecond or two). Returns ``expr`` itself when it binds a variable named like those maps or
    cannot be lexed."""
    try:
        toks = tokens(expr)
    except LexError:
        return expr
    for i in range(len(toks) - 3):
        if toks[i][1] in _MACRO_NAMES and toks[i + 1][0] == "(" and toks[i + 2][1] in _CONSTANT_ROOTS:
            return expr  # a comprehension binding `effective` or `vllm`: left as it is
    constants = {"effective": effective, "vllm": vllm}
    out: list[str] = []
    changed = False
    i = 0
    while i < len(toks):
        kind, text = toks[i]
        if kind == "ident" and text == "has" and i + 5 < len(toks) and toks[i + 1][0] == "(":
            root = toks[i + 2]
            if (
                root[0] == "ident"
                and root[1] in constants
                and toks[i + 3][0] == "."
                and toks[i + 4][0] == "ident"
                and toks[i + 5][0] == ")"
                and toks[i + 4][1] in constants[root[1]]
            ):
                out.append("true")
                changed = True
                i += 6
                continue
        if kind == "ident" and text in constants and _is_root(toks, i) and (i == 0 or toks[i - 1][0] != "."):
            key, after = _key_at(toks, i + 1)
            values = constants[text]
            if key is not None and key in values and key.isidentifier() and key.isascii():
                literal = _literal(values[key])
                if literal is not None:
                    out.append(
                        f"(has(args.{key}) ? args.{key} : {literal})"
                        if text == "effective"
                        else f"({literal})"
                    )
                    changed = True
                    i = after
                    continue
        out.append(text)
        i += 1
    return " ".join(out) if changed else expr


_HAS = re.compile(
    r"^has\s*\(\s*(args|env|hardware|model\.config|model)\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)$"
)


def _top_level(expr: str) -> list[tuple[int, str]]:
    """Positions of the operators ``&&``, ``||``, ``?`` and ``:`` outside brackets and string literals."""
    found: list[tuple[int, str]] = []
    depth, i, quote = 0, 0, ""
    while i < len(expr):
        char = expr[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and expr.startswith(("&&", "||"), i):
            found.append((i, expr[i : i + 2]))
            i += 1
        elif depth == 0 and char in "?:":
            found.append((i, char))
        i += 1
    return found


def _unwrap(expr: str) -> str:
    expr = expr.strip()
    while expr.startswith("(") and expr.endswith(")"):
        depth = 0
        for i, char in enumerate(expr):
            depth += char == "("
            depth -= char == ")"
            if depth == 0 and i < len(expr) - 1:
                return expr  # "(a) && (b)": the outer brackets are not one pair
        expr = expr[1:-1].strip()
    return expr


@lru_cache(maxsize=8192)
def required_keys(expr: str) -> frozenset[tuple[str, str]]:
    """Keys that must be present for ``expr`` to be true: ``has(x.k)`` conjuncts at the top level
    (also inside ``has(x.k) ? ... : false``). A rule missing one cannot fire, whatever else it reads."""
    expr = _unwrap(expr)
    operators = _top_level(expr)
    kinds = [op for _, op in operators]
    if kinds and kinds[0] == "?" and kinds.count("?") == 1 and kinds.count(":") == 1 and "||" not in kinds:
        question = operators[0][0]
        colon = next(pos for pos, op in operators if op == ":")
        if expr[colon + 1 :].strip() == "false":
            return required_keys(expr[:question])
        return frozenset()
    if "||" in kinds or "?" in kinds or ":" in kinds:
        return frozenset()
    if not kinds:
        match = _HAS.match(expr)
        return frozenset({(match.group(1), match.group(2))}) if match else frozenset()
    keys: set[tuple[str, str]] = set()
    start = 0
    for position, _ in [*operators, (len(expr), "&&")]:
        part = _unwrap(expr[start:position])
        keys |= required_keys(part)
        start = position + 2
    return frozenset(keys)


# The longest conjunct used as a filter: compiling CEL costs about a microsecond a character (a filter
# compiles when first run), and a long conjunct reads about as much as its rule.
_FILTER_CHARS = 1000
# A condition on the profile a conjunct applies under: (root, key, whether the profile sets it), or None.
_Case = tuple[str, str, bool] | None


@lru_cache(maxsize=4096)
def conjuncts(expr: str, case: _Case = None) -> tuple[tuple[_Case, str], ...]:
    """Parts of ``expr`` each of which, when false, makes ``expr`` false: its top-level ``&&`` operands, and
    in ``has(x.k) ? A : B`` those of ``A`` while the profile sets ``x.k`` and those of ``B`` while it does
    not (``has()`` of an argument, environment variable, model or hardware fact is never an error). CEL's
    ``&&`` is false if either side is, even when the other is an error. Each with the case it holds in."""
    expr = _unwrap(expr)
    operators = _top_level(expr)
    kinds = [op for _, op in operators]
    if kinds[:2] == ["?", ":"] and kinds.count("?") == 1 and kinds.count(":") == 1:  # `c ? a : b ...`
        condition = _HAS.match(expr[: operators[0][0]].strip())
        if condition is None or condition.group(1) == "model.config" or case is not None:
            return ((case, expr),)
        root, key = condition.group(1), condition.group(2)
        return (
            *conjuncts(expr[operators[0][0] + 1 : operators[1][0]], (root, key, True)),
            *conjuncts(expr[operators[1][0] + 1 :], (root, key, False)),
        )
    if not operators or any(op != "&&" for op in kinds):
        return ((case, expr),)
    parts: list[tuple[_Case, str]] = []
    start = 0
    for position, _ in [*operators, (len(expr), "&&")]:
        parts.extend(conjuncts(expr[start:position], case))
        start = position + 2
    return tuple(parts)
