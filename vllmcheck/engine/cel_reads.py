"""What a CEL expression reads: the keys of each top-level map, from the expression's tokens.

The engine hands each rule only the keys it reads and skips, for a profile, the rules that read nothing the
profile sets (see ``rules.plan._ReleasePlan``). That is exact only if the read set is never too small, so it
is computed from the lexed expression, not from a regular expression over its text:

- ``args.x``, ``has(args.x)``, ``args["x"]`` read the key ``x`` of ``args``;
- ``model.config.x`` reads the key ``config`` of ``model`` and the key ``x`` of ``model.config``;
- anything else that touches a map reads all of it: a method or macro on it (``env.exists(k, ...)``,
  ``args.size()``, ``args.all(...)``), the map as a value (``size(env)``, ``"x" in args``, ``args == {}``,
  ``f(args)``), a computed or optional index (``args[k]``, ``args.?x``), a bound variable named like it.

String literals and comments are skipped, so ``"args.x"`` reads nothing. The library
(common-expression-language) does not expose its syntax tree; the lexer below follows CEL's lexical
grammar (cel-spec ``langdef.md``).
"""

from __future__ import annotations

import re
from functools import lru_cache

ReadSet = dict[str, frozenset[str] | None]  # root -> keys read, None = the whole map

# Maps whose keys can be pruned; ``model.config`` is the nested map of the model's config.json.
NESTED = {"model": "config"}

_TOKEN = re.compile(
    r"""
    (?P<space>\s+|//[^\n]*)
  | (?P<string>(?:[rR][bB]?|[bB][rR]?)?(?:\"\"\"(?:\\.|[^\\])*?\"\"\"|'''(?:\\.|[^\\])*?'''
        |"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))
  | (?P<number>0[xX][0-9a-fA-F]+[uU]?|(?:\d+\.\d+|\.\d+|\d+)(?:[eE][+-]?\d+)?[uU]?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>&&|\|\||==|!=|<=|>=|\.\?|[-+*/%!<>?:.,()\[\]{}])
    """,
    re.VERBOSE | re.DOTALL,
)
# Tokens after which a ``.`` selects a field (``x.y``); elsewhere a leading ``.`` names the root scope
# (``.args``).
_OPERAND_END = frozenset({"ident", "string", "number", ")", "]", "}"})


class LexError(ValueError):
    pass


# One (kind, text) pair per distinct token, shared by every expression that has it. The lexed expressions are
# kept (``tokens``' cache), and a release's conditions run to tens of KB each (a derived value written in):
# a pair of their own per token cost a worker ~20 MB for five release plans; the distinct tokens of a pack
# are a few thousand. Starts over past ``_PAIRS_KEPT`` (tokens already lexed keep their pairs).
_PAIRS: dict[tuple[str, str], tuple[str, str]] = {}
_PAIRS_KEPT = 65536


@lru_cache(maxsize=4096)
def tokens(expr: str) -> tuple[tuple[str, str], ...]:
    """(kind, text) pairs; kind is ident, string, number or the operator itself. Spaces and comments go."""
    if len(_PAIRS) >= _PAIRS_KEPT:
        _PAIRS.clear()
    pairs = _PAIRS
    found: list[tuple[str, str]] = []
    position = 0
    while position < len(expr):
        match = _TOKEN.match(expr, position)
        if match is None:
            raise LexError(f"unexpected character {expr[position]!r} at {position}")
        kind = match.lastgroup or ""
        text = match.group()
        position = match.end()
        if kind == "space":
            continue
        pair = (text, text) if kind == "op" else (kind, text)
        found.append(pairs.setdefault(pair, pair))
    return tuple(found)


def _string_key(token: tuple[str, str]) -> str | None:
    """The value of a plain string literal without escapes (``"x"``, ``'x'``), else None."""
    kind, text = token
    if kind != "string" or text[0] not in "\"'" or text[:3] in ('"""', "'''") or "\\" in text:
        return None
    return text[1:-1]


def _key_at(toks: tuple[tuple[str, str], ...], i: int) -> tuple[str | None, int]:
    """The key read by the selection starting at ``toks[i]`` and the index after it; None: not a key read."""
    if i + 1 < len(toks) and toks[i][0] == "." and toks[i + 1][0] == "ident":
        if i + 2 < len(toks) and toks[i + 2][0] == "(":
            return None, i  # a method or macro on the map itself
        return toks[i + 1][1], i + 2
    if i + 2 < len(toks) and toks[i][0] == "[" and toks[i + 2][0] == "]":
        key = _string_key(toks[i + 1])
        if key is not None:
            return key, i + 3
    return None, i


def _is_root(toks: tuple[tuple[str, str], ...], i: int) -> bool:
    """``toks[i]`` (an identifier) names a variable, not a field (``x.args``) nor a function (``args()``)."""
    if i + 1 < len(toks) and toks[i + 1][0] == "(":
        return False
    if i >= 1 and toks[i - 1][0] == ".":
        return not (i >= 2 and toks[i - 2][0] in _OPERAND_END)
    return True


@lru_cache(maxsize=4096)
def read_set(expr: str, roots: frozenset[str]) -> ReadSet:
    """The keys of each of ``roots`` that ``expr`` reads (roots it never names are absent).

    ``roots`` may hold nested roots such as ``model.config``; a whole read of ``model`` reads all of
    ``model.config`` too. An expression that cannot be lexed reads everything (CEL will refuse it anyway).
    """
    try:
        toks = tokens(expr)
    except LexError:
        return dict.fromkeys(roots)
    reads: dict[str, set[str] | None] = {}

    def add(root: str, key: str | None) -> None:
        if root not in roots:
            return
        if key is None:
            reads[root] = None
        else:
            current = reads.setdefault(root, set())
            if current is not None:
                current.add(key)

    for i, (kind, text) in enumerate(toks):
        if kind != "ident" or text not in roots or not _is_root(toks, i):
            continue
        key, after = _key_at(toks, i + 1)
        add(text, key)
        nested = NESTED.get(text)
        if key is None and nested:
            add(f"{text}.{nested}", None)
        elif key is not None and key == nested:
            inner, _ = _key_at(toks, after)
            add(f"{text}.{nested}", inner)
    return {root: (None if keys is None else frozenset(keys)) for root, keys in reads.items()}
