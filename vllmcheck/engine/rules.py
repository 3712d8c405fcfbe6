"""Rules as data: load a rule pack, compile its CEL once, evaluate profile documents.

A rule's ``when`` is a CEL expression over the profile document (see ``vllmcheck/rulepacks/README.md``);
true means the rule fires. CEL is evaluated by the ``cel`` library (common-expression-language); nothing
from a pack is ever run as Python.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from operator import itemgetter
from pathlib import Path
from typing import Any

import cel
from cel.stdlib import STDLIB_FUNCTIONS, add_stdlib_to_context
from packaging.version import Version

from .catalog import Catalog
from .cel_reads import LexError, _is_root, _key_at, read_set, tokens
from .checks import ArgumentChecks, check_argument, scalar_outcome
from .lazy import lazy_module
from .memo import _NUMBERS, ABSENT, ABSENT_NUMBER, LIMIT, freeze, number, number_of
from .messages import EVAL_ERRORS, LazyProgram, MessageTemplate, compile_cel, compile_template
from .types import (
    CATEGORIES,
    KINDS,
    SEVERITIES,
    SEVERITY_ORDER,
    Finding,
    RuleCompileError,
    Verdict,
    new_finding,
    parse_version,
)

yaml = lazy_module("yaml")  # a pack read from YAML imports it; one from the linter's cache does not

# A rule's fields, in the order the pack, the Rule model, the API and the rule-set editor list them: the one
# definition they are all driven from (besides the rule's ``id``).
RULE_FIELDS: tuple[str, ...] = (
    "title",
    "category",
    "severity",
    "message",
    "message_template",
    "when",
    "versions",
    "kinds",
    "fields",
    "needs",
    "solutions",
    "tips",
    "tags",
    "example_fix",
    "docs",
    "source",
    "error_class",
    "fix",
    "enabled",
)
LIST_FIELDS: tuple[str, ...] = ("kinds", "fields", "needs", "solutions", "tips", "tags")  # lists of strings
RULE_KEYS = {"id", *RULE_FIELDS}
REQUIRED_RULE_KEYS = ("id", "category", "severity", "message", "when")
PACK_KEYS = {"pack", "description", "defaults", "derived", "rules"}


class PackError(RuleCompileError):
    """The pack's structure is wrong (as opposed to a CEL syntax error)."""


def load_pack(source: Path | str | Mapping[str, Any]) -> dict[str, Any]:
    """Read a pack (a path, YAML text or an already-loaded mapping) and check its structure."""
    if isinstance(source, Mapping):
        data: Any = dict(source)
    else:
        text = source.read_text() if isinstance(source, Path) else source
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1}" if mark else "pack"
            raise PackError("<pack>", where, str(exc)) from exc
    if not isinstance(data, dict):
        raise PackError("<pack>", "top level", "a rule pack must be a mapping with a 'rules' list")
    unknown = set(data) - PACK_KEYS
    if unknown:
        raise PackError("<pack>", "top level", f"unknown keys: {', '.join(sorted(unknown))}")
    rules = data.get("rules") or []
    if not isinstance(rules, list):
        raise PackError("<pack>", "rules", "must be a list")
    seen: set[str] = set()
    for index, rule in enumerate(rules):
        check_rule(rule, index=index)
        if rule["id"] in seen:
            raise PackError(rule["id"], "id", "duplicate rule id")
        seen.add(rule["id"])
    for index, derived in enumerate(data.get("derived") or []):
        _check_derived(derived, index)
    for index, block in enumerate(data.get("defaults") or []):
        if not isinstance(block, dict) or not isinstance(block.get("values"), dict):
            raise PackError("<pack>", f"defaults[{index}]", "needs 'versions' and a 'values' mapping")
        _specifier("<pack>", f"defaults[{index}].versions", block.get("versions"))
    return data


def check_rule(rule: Any, *, index: int | None = None) -> None:
    """Structural checks of one rule, each naming the rule and the field at fault."""
    label = f"rules[{index}]" if index is not None else "<rule>"
    if not isinstance(rule, dict):
        raise PackError(label, "rule", "each rule must be a mapping")
    rule_id = str(rule.get("id") or label)
    for key in REQUIRED_RULE_KEYS:
        if rule.get(key) in (None, ""):
            raise PackError(rule_id, key, "is required")
    unknown = set(rule) - RULE_KEYS
    if unknown:
        raise PackError(rule_id, "rule", f"unknown keys: {', '.join(sorted(unknown))}")
    if rule["category"] not in CATEGORIES:
        raise PackError(rule_id, "category", f"must be one of {', '.join(CATEGORIES)}")
    if rule["severity"] not in SEVERITIES:
        raise PackError(rule_id, "severity", f"must be one of {', '.join(SEVERITIES)}")
    kinds = rule.get("kinds")
    if kinds is not None and (not isinstance(kinds, list) or not set(kinds) <= set(KINDS)):
        raise PackError(rule_id, "kinds", f"must be a list of {', '.join(KINDS)}")
    template = rule.get("message_template")
    if template is not None and not isinstance(template, str):
        raise PackError(rule_id, "message_template", "must be a string")
    for key in LIST_FIELDS:
        if key == "kinds":
            continue
        value = rule.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise PackError(rule_id, key, "must be a list of strings")
    fix = rule.get("fix")
    if fix is not None and (not isinstance(fix, dict) or not set(fix) <= {"set", "unset"}):
        raise PackError(rule_id, "fix", "must be a mapping with 'set' and/or 'unset'")
    _specifier(rule_id, "versions", rule.get("versions"))


def _check_derived(derived: Any, index: int) -> None:
    if not isinstance(derived, dict) or not derived.get("name"):
        raise PackError(f"derived[{index}]", "name", "is required")
    variants = derived.get("variants")
    if not isinstance(variants, list) or not variants:
        raise PackError(derived["name"], "variants", "must be a non-empty list of {versions, expr}")
    for i, variant in enumerate(variants):
        if not isinstance(variant, dict) or not variant.get("expr"):
            raise PackError(derived["name"], f"variants[{i}].expr", "is required")
        _specifier(derived["name"], f"variants[{i}].versions", variant.get("versions"))


class Versions:
    """A release range (a PEP 440 specifier set), checked when the pack is compiled and parsed again only
    when a release plan first asks: a rule set loaded by the linter plans from its cache without it."""

    __slots__ = ("text", "_set")

    def __init__(self, text: str, parsed: Any = None):
        self.text = text
        self._set = parsed

    def __reduce__(self) -> tuple[type[Versions], tuple[str]]:
        return Versions, (self.text,)

    def __str__(self) -> str:
        return self.text

    def contains(self, version: Version, prereleases: bool = True) -> bool:
        if self._set is None:
            from packaging.specifiers import SpecifierSet

            self._set = SpecifierSet(self.text)
        return self._set.contains(version, prereleases=prereleases)


def _specifier(owner: str, field_name: str, value: Any) -> Versions:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    text = str(value or "")
    try:
        return Versions(text, SpecifierSet(text))
    except InvalidSpecifier as exc:
        raise PackError(owner, field_name, f"not a PEP 440 version specifier: {value!r}") from exc


# CEL's cost budget. CEL has no loops, I/O, files, network or environment (the only functions are CEL's and
# vllmcheck.engine's pure stdlib), so an expression's cost is bounded by its size and by how deeply its
# comprehensions (all, exists, exists_one, map, filter) nest: each level multiplies the work by a list.
MAX_CEL_CHARS = 100_000
MAX_COMPREHENSION_DEPTH = 3
_CEL_STRING = re.compile(r"'(?:[^'\\]|\\.)*'" + r'|"(?:[^"\\]|\\.)*"')
_CEL_NESTING = re.compile(r"\.(?:all|exists_one|exists|map|filter)\(|[()]")


def _comprehension_depth(expr: str) -> int:
    deepest, stack = 0, []
    for token in _CEL_NESTING.findall(_CEL_STRING.sub('""', expr)):
        if token == ")":  # nosec B105  # a CEL token, not a password
            if stack:
                stack.pop()
            continue
        stack.append(token != "(")  # nosec B105  # a CEL token, not a password
        deepest = max(deepest, sum(stack))
    return deepest


def check_cost(expr: str) -> str | None:
    """Why ``expr`` is over CEL's cost budget, or None."""
    if len(expr) > MAX_CEL_CHARS:
        return f"cost over the limit: {len(expr)} characters (at most {MAX_CEL_CHARS})"
    depth = _comprehension_depth(expr)
    if depth > MAX_COMPREHENSION_DEPTH:
        return (
            f"cost over the limit: comprehensions (all/exists/map/filter) nested {depth} deep "
            f"(at most {MAX_COMPREHENSION_DEPTH})"
        )
    return None


def compile_expression(owner: str, field_name: str, expr: str) -> cel.Program:
    too_costly = check_cost(str(expr))
    if too_costly:
        raise RuleCompileError(owner, field_name, too_costly)
    try:
        return compile_cel(str(expr))
    except (ValueError, RuntimeError, TypeError) as exc:
        raise RuleCompileError(owner, field_name, _first_line_error(str(exc))) from exc


def _first_line_error(text: str) -> str:
    # cel reports "Failed to parse expression '...': ERROR: <input>:1:10: Syntax error: ...\n| ...\n| ..^"
    return text.split("ERROR: ", 1)[-1].strip()


_EXTENSION_CALL = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in STDLIB_FUNCTIONS) + r")\s*\(")
# The same search in one pass: a word followed by ``(``, looked up among the extensions' names (with the word
# before a dot for ``math.abs`` and the like). The alternation above tries every name at every word and took
# milliseconds on a long template; ``calls_extension`` says the same of any text (tests compare the two).
_CALLED_WORD = re.compile(r"\b(\w+)\s*\(")
_WORD_CHAR = re.compile(r"\w")
_EXTENSION_NAMES = frozenset(STDLIB_FUNCTIONS)
_EXTENSION_LAST = frozenset(name.rsplit(".", 1)[-1] for name in STDLIB_FUNCTIONS if "." in name)


def calls_extension(text: str) -> bool:
    """Whether ``text`` calls one of CEL's strings, lists or math extensions (``_EXTENSION_CALL.search``)."""
    for match in _CALLED_WORD.finditer(text):
        name = match.group(1)
        if name in _EXTENSION_NAMES:
            return True
        start = match.start()
        if name in _EXTENSION_LAST and start > 1 and text[start - 1] == ".":
            first = start - 1  # the word before the dot, whole (``\b`` before it)
            while first > 0 and _WORD_CHAR.match(text[first - 1]):
                first -= 1
            if f"{text[first : start - 1]}.{name}" in _EXTENSION_NAMES:
                return True
    return False


_DERIVED_REF = re.compile(r"\bderived\.([A-Za-z_][A-Za-z0-9_]*)")
_KIND_REF = re.compile(r"\bkind\b")  # textual, so also inside a string literal: only ever too cautious
# The maps a rule reads, and the key paths of each that can be pruned to what the rules name.
NAMESPACES = ("args", "effective", "env", "hardware", "model", "model.config", "vllm", "derived", "values")


_ROOTS = frozenset(NAMESPACES)


def referenced_keys(expressions: Iterable[str], root: str) -> frozenset[str] | None:
    """The ``<root>.<key>`` names the expressions read; None if one reads ``root`` as a whole.

    Converting a value into CEL costs one to two microseconds a key (more for strings and nested maps),
    and a release has hundreds of defaults, so the engine hands the rules only what they can read. Read
    sets come from the lexed expression (``cel_reads``): a method, macro, ``size`` or ``in`` on a map reads
    all of it.
    """
    keys: set[str] = set()
    for expr in expressions:
        reads = read_set(expr, _ROOTS)
        if root not in reads:
            continue
        found = reads[root]
        if found is None:
            return None
        keys |= found
    return frozenset(keys)


def referenced_effective_keys(expressions: Iterable[str]) -> frozenset[str] | None:
    return referenced_keys(expressions, "effective")


def _prune(values: Mapping[str, Any], wanted: frozenset[str] | None) -> dict[str, Any]:
    if wanted is None:
        return dict(values)
    return {k: v for k, v in values.items() if k in wanted}


@dataclass(frozen=True)
class CompiledRule:
    id: str
    category: str
    severity: str
    message: str
    program: cel.Program | LazyProgram
    specifier: Versions
    kinds: frozenset[str]
    fields: tuple[str, ...]
    solutions: tuple[str, ...]
    source: str | None
    example_fix: str | None
    docs: str | None
    fix: dict[str, Any] | None
    needs: tuple[str, ...]
    when: str
    template: MessageTemplate | None = None

    @cached_property
    def expressions(self) -> tuple[str, ...]:
        """Every CEL expression of the rule: its condition and its message template's slots."""
        return (self.when, *self.template.expressions) if self.template else (self.when,)

    @cached_property
    def reads(self) -> dict[str, frozenset[str] | None]:
        """The keys of each namespace the rule's expressions read (None: the whole map), computed once."""
        return {root: referenced_keys(self.expressions, root) for root in NAMESPACES}

    @cached_property
    def named_effective(self) -> frozenset[str]:
        """The ``effective.<key>`` names its expressions spell out (even where one also reads all of it)."""
        return frozenset(
            key for expr in self.expressions for key in (referenced_keys([expr], "effective") or ())
        )

    @cached_property
    def required(self) -> frozenset[tuple[str, str]]:
        """Keys whose absence means the rule cannot fire (its top-level ``has()`` guards)."""
        return required_keys(self.when)

    @cached_property
    def inputs(self) -> tuple[tuple[str, str | None], ...]:
        """The profile inputs the rule's outcome depends on (see ``_inputs``)."""
        return _inputs(self.reads)

    @cached_property
    def calls_extensions(self) -> bool:
        """Whether the message template calls CEL's strings or lists extensions (searched once per rule)."""
        return self.template is not None and calls_extension(self.template.source)

    @cached_property
    def reads_kind(self) -> bool:
        """Whether an expression may read ``kind`` (textual: a string or a macro variable so named counts)."""
        return any(_KIND_REF.search(expr) for expr in self.expressions)

    @cached_property
    def uses_derived(self) -> bool:
        return any(_DERIVED_REF.search(expr) for expr in self.expressions)

    def render(
        self, cel_context: cel.Context | None, variables: Mapping[str, Any] | None = None
    ) -> tuple[str, str | None]:
        """The message with the profile's values filled in, and a note naming the values it could not fill.

        A slot that cannot be evaluated for this profile (an unknown model fact, say) reads
        ``<unknown: EXPR>``, never a raw ``{self.x}`` placeholder; the finding then says
        ``message_rendered: false``.
        """
        if self.template is None:
            return self.message, None
        if cel_context is None:
            return self.message, "the values were not filled in"
        if variables is not None and self.calls_extensions:
            # CEL's strings and lists extensions (join, substring, sort ...), as Kubernetes offers them to
            # messageExpression: registered only for the templates that call them
            cel_context = cel.Context(variables=dict(variables))
            add_stdlib_to_context(cel_context)
        text, failed = self.template.render_partial(cel_context, variables)
        if not failed:
            return text, None
        return text, "could not fill in " + "; ".join(f"{e.slot.label} ({e.detail})" for e in failed)

    def finding(
        self,
        *,
        waived: bool,
        cel_context: cel.Context | None = None,
        variables: Mapping[str, Any] | None = None,
    ) -> Finding:
        message, note = self.render(cel_context, variables)
        return new_finding(
            rule=self.id,
            severity=self.severity,
            category=self.category,
            message=message,
            fields=self.fields,
            solutions=self.solutions,
            source=self.source,
            example_fix=self.example_fix,
            docs=self.docs,
            waived=waived,
            fix=self.fix,
            message_source=self.message,
            message_rendered=note is None,
            message_note=note,
        )

    def unverifiable(
        self,
        missing: str,
        *,
        waived: bool,
        cel_context: cel.Context | None = None,
        variables: Mapping[str, Any] | None = None,
    ) -> Finding:
        needed = next((n for n in self.needs if n.split(".")[-1] == missing), missing)
        message, note = self.render(cel_context, variables)
        return new_finding(
            rule=self.id,
            severity="info",
            category=self.category,
            message=f"could not verify: {message} (the profile does not give {needed})",
            fields=self.fields,
            source=self.source,
            docs=self.docs,
            waived=waived,
            message_source=self.message,
            message_rendered=note is None,
            message_note=note,
        )


@dataclass(frozen=True)
class CompiledDerived:
    name: str
    variants: tuple[tuple[Versions, str], ...]  # (versions, CEL source), checked to compile

    def expr_for(self, version: Version | None) -> str | None:
        for specifier, expr in self.variants:
            if version is not None and specifier.contains(version, prereleases=True):
                return expr
        return None


def expand_derived(expr: str, definitions: Mapping[str, str]) -> str:
    """Replace ``derived.NAME`` by the release's definition of NAME, in parentheses.

    Derived values are macros: expanding them at compile time lets one CEL context serve a whole
    profile (rebuilding a context costs tens of microseconds). A name with no definition for the
    release stays as a read of the empty ``derived`` map, so the rule reports "could not verify".
    """
    return _DERIVED_REF.sub(
        lambda m: f"({definitions[m.group(1)]})" if m.group(1) in definitions else m.group(0), expr
    )


# ---- a rule's condition with its release's constants written in

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


# The parts of a profile whose keys can be present or absent; `effective` reads count as `args` reads.
PRESENCE_ROOTS = ("args", "env", "model", "model.config", "hardware")


def _present_keys(doc: Mapping[str, Any]) -> dict[str, set[str]]:
    model = doc.get("model") or {}
    config = model.get("config")
    return {
        "args": set(doc.get("args") or ()),
        "env": set(doc.get("env") or ()),
        "model": {k for k, v in model.items() if v is not None},
        "model.config": set(config) if isinstance(config, Mapping) else set(),
        "hardware": {k for k, v in (doc.get("hardware") or {}).items() if v is not None},
    }


A_MAPPING = ("<mapping>",)  # model.config is a mapping (its keys are inputs of their own)


def _inputs(reads: Mapping[str, frozenset[str] | None]) -> tuple[tuple[str, str | None], ...]:
    """The profile inputs a rule's outcome (fired, its rendered message, or "could not verify") depends on:
    (root, key) pairs, key None for a whole map. The release, the kind, the defaults and the value sets are
    the plan's own, so ``effective.k`` is a function of ``args.k`` (and all of ``effective`` of all of
    ``args``). A read of ``model.config.k`` reads ``model.config`` itself only as "is it a mapping" (its keys
    are inputs of their own)."""
    found: set[tuple[str, str | None]] = set()
    for root in ("args", "effective", "env", "hardware", "model", "model.config"):
        keys = reads.get(root, frozenset())
        name = "args" if root == "effective" else root
        if keys is None:
            found.add((name, None))
        else:
            found.update((name, key) for key in keys)
    if ("args", None) in found:
        found = {(root, key) for root, key in found if root != "args" or key is None}
    if ("model.config", None) in found:
        found.discard(("model", "config"))  # the whole config is an input already
    return tuple(sorted(found, key=lambda item: (item[0], item[1] or "")))


def _no_inputs(values: Any) -> tuple[()]:
    return ()


@dataclass(frozen=True)
class _PlannedRule:
    """A rule of a release plan, with what decides whether it must run for a given profile.

    A rule's outcome depends only on the keys it reads. For a profile that sets none of them, the outcome is
    the one computed once on the empty profile of that release and kind (``baseline``), so only the rules
    that read something the profile sets run per profile. This is exact, not a heuristic.
    """

    rule: CompiledRule
    triggers: dict[str, frozenset[str]] | None  # None: reads a whole map, always run
    baseline: Finding | None
    # The rule's condition with the release's constants written in (``specialise``), and its program: what
    # runs per profile (the message, if it fires, is rendered by the rule itself).
    when: str = ""
    program: Any = None

    def must_run(self, present: Mapping[str, set[str]]) -> bool:
        if self.triggers is None:
            return True
        return any(not keys.isdisjoint(present[root]) for root, keys in self.triggers.items() if keys)


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


def _guard_fails(root: str, key: str, present: Mapping[str, set[str]]) -> bool:
    """``has(root.key)`` is false. ``has(model.config.k)`` without any model config is an error in CEL
    (an unknown input, "could not verify"), not false, so it never counts as failing."""
    if root == "model.config":
        return "config" in present["model"] and key not in present["model.config"]
    return key not in present[root]


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


# A rule's filter: the case it applies in (the slot of a key and whether the profile must set it, or None),
# the memo key of a conjunct of its condition (a function of the profile's input numbers), the conjunct's
# program, and whether it was false, memoised by that key.
_Filter = tuple[tuple[int, bool] | None, Callable[[list[int]], Any], Any, dict[Any, bool]]


_NO_CONTEXT: dict[str, Any] = {"cel_context": None, "variables": None}  # a rule without a message template

# A rule's finding as a verdict orders it: its severity's order, 0 for a rule of the catalog category and 2
# for another (the catalog's own checks rank 1, between: see ``lint.validate``), its rule's position; then
# the finding.
Ranked = tuple[int, int, int, Finding]
_SEVERITY_THEN_POSITION = itemgetter(0, 2)


def _ranked(position: int, finding: Finding) -> Ranked:
    return (SEVERITY_ORDER[finding.severity], 0 if finding.category == "catalog" else 2, position, finding)


def _entry(offset: int, finding: Finding) -> tuple[int, Finding, int, int]:
    """An entry of a memoised outcome: the finding's offset among its group's rules, the finding and the first
    two items of its rank (``Ranked``), worked out once rather than for each profile it is reused for."""
    severity, order, _, _ = _ranked(offset, finding)
    return (offset, finding, severity, order)


def _proven_false(
    filters: tuple[_Filter, ...], values: list[int], cel_context: Callable[[], cel.Context]
) -> bool:
    """Whether a conjunct of the rule's condition (``conjuncts``) is false for these input numbers: the
    condition is then false too, whatever the others give."""
    for case, key_of, program, table in filters:
        if case is not None and (values[case[0]] != 0) is not case[1]:
            continue
        key = key_of(values)
        false = table.get(key)
        if false is None:
            try:
                false = program.execute(cel_context()) is False
            except EVAL_ERRORS:
                false = False
            if len(table) >= LIMIT:
                table.clear()
            table[key] = false
        if false:
            return True
    return False


_PLAN_ROOTS = frozenset({"effective", "vllm", "values"})  # the maps whose values a release plan gives


@lru_cache(maxsize=8192)
def _plan_reads(expr: str) -> tuple[tuple[tuple[str, tuple[str, ...] | None], ...], bool]:
    """The keys of each of a plan's maps ``expr`` reads (by root; None: all of it), and whether it may read
    ``kind``: computed once per text, which every release that runs it the same way shares."""
    reads = read_set(expr, _PLAN_ROOTS)
    return (
        tuple((root, None if keys is None else tuple(sorted(keys))) for root, keys in sorted(reads.items())),
        _KIND_REF.search(expr) is not None,
    )


_READS_NOTHING: dict[str, frozenset[str] | None] = {root: frozenset() for root in (*NAMESPACES, "kind")}


def _union_reads(
    all_reads: Iterable[Mapping[str, frozenset[str] | None]],
) -> dict[str, frozenset[str] | None]:
    wanted: dict[str, set[str] | None] = {root: set() for root in NAMESPACES}
    for reads in all_reads:
        for root, keys in reads.items():
            current = wanted[root]
            if keys is None:
                wanted[root] = None
            elif current is not None:
                current.update(keys)
    return {root: (None if keys is None else frozenset(keys)) for root, keys in wanted.items()}


def _triggers(reads: Mapping[str, frozenset[str] | None]) -> dict[str, frozenset[str]] | None:
    if any(reads[root] is None for root in (*PRESENCE_ROOTS, "effective")):
        return None
    return {
        "args": reads["args"] | reads["effective"],  # type: ignore[operator]
        "env": reads["env"],
        # Reading a key of the model's config also reads whether there is a config at all: without one the
        # rule cannot be verified, with one that lacks the key `has()` is simply false.
        "model": reads["model"] | ({"config"} if reads["model.config"] else frozenset()),  # type: ignore[operator]
        "model.config": reads["model.config"],
        "hardware": reads["hardware"],
    }  # type: ignore[return-value]


@dataclass
class _ReleasePlan:
    """What one release needs, computed once per (rule set, release, kind) and reused per profile.

    Rules that depend on the same profile inputs (see ``_inputs``) form a group. A group none of whose inputs
    the profile sets keeps the outcome its rules gave the release's empty profile (``baseline``); the others
    (the profile's "touched" groups) have their outcome memoised under the numbers of their inputs
    (``memo.number``, ``ABSENT_NUMBER`` for an input the profile does not give), which also say which of the
    group's rules run (those it triggers whose ``has(...)`` guards hold: see ``_group_outcome``).
    """

    rules: tuple[_PlannedRule, ...]
    defaults: dict[str, Any]
    wanted: dict[str, frozenset[str] | None] = field(default_factory=dict)
    baseline: tuple[tuple[int, Finding], ...] = ()
    reads: tuple[dict[str, frozenset[str] | None], ...] = ()
    required: tuple[frozenset[tuple[str, str]], ...] = ()
    read_items: tuple[tuple[tuple[str, frozenset[str] | None], ...], ...] = ()
    reads_kind: tuple[bool, ...] = ()
    all_defaults: dict[str, Any] = field(default_factory=dict)  # unpruned, for the plain evaluation
    values: dict[str, list[Any]] = field(default_factory=dict)  # the release's value sets
    vllm: dict[str, Any] = field(default_factory=dict)  # the release's `vllm` map
    kind: str = "serving"  # the profiles' kind
    # Each rule's group; each group's inputs, its rules' positions (in rule order) and ids (unique in a rule
    # set: a shared table is chosen by them), the memo key of a profile's input numbers, and its outcomes
    # memoised by that key: the findings of its rules, each with its offset among the group's rules.
    group_of: tuple[int, ...] = ()
    group_inputs: tuple[tuple[tuple[str, str | None], ...], ...] = ()
    group_positions: tuple[tuple[int, ...], ...] = ()
    ids: tuple[str, ...] = ()
    keys: tuple[Callable[[list[int]], Any], ...] = ()
    outcomes: tuple[dict[Any, tuple[tuple[int, Finding], ...]], ...] = ()
    # The rule set's tables of the groups whose rules are all release-independent (by their inputs): every
    # release plan of the rule set reuses those outcomes (see `link`).
    shared: dict[Any, dict[Any, Any]] | None = field(default=None, repr=False)
    # A slot per input: root -> key -> (slot, the groups a profile that sets it touches); the whole maps
    # some groups read, (root, slot), numbered per profile; the groups that read a whole map, and those of
    # them that always run (the others are guarded: they run only with their guard's key).
    slots: dict[str, dict[str, tuple[int, tuple[int, ...]]]] = field(default_factory=dict)
    whole: tuple[tuple[str, int], ...] = ()
    always_groups: frozenset[int] = frozenset()
    start_groups: tuple[int, ...] = ()
    config_slot: int = -1  # the slot of ("model", "config"), -1 if no rule reads it
    # Per rule: the slots of its triggers (None: always runs) and of its `has(...)` guards, apart from and
    # about the model config (without a config `has(model.config.k)` is "could not verify", never false).
    trigger_slots: tuple[tuple[int, ...] | None, ...] = ()
    guard_slots: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = ()
    # Per group with baseline findings: those that stand while the profile touches none of its inputs.
    untouched: tuple[tuple[int, tuple[tuple[int, Finding], ...]], ...] = ()
    wanted_cache: dict[tuple[int, ...], tuple[dict[str, frozenset[str] | None], dict[str, Any]]] = field(
        default_factory=dict
    )

    def __post_init__(self) -> None:
        self.baseline = tuple((i, p.baseline) for i, p in enumerate(self.rules) if p.baseline is not None)
        self.reads = tuple(p.rule.reads for p in self.rules)
        # What each rule's condition for this release reads (``_PlannedRule.when``; what its message reads
        # too, for rendering), without the roots it does not (most of them), and whether it can read `kind`.
        whens = [p.when or p.rule.when for p in self.rules]
        self.programs = tuple(p.rule.program if p.program is None else p.program for p in self.rules)
        self.read_items = tuple(
            tuple(
                (root, keys) for root in NAMESPACES if (keys := referenced_keys([when], root)) != frozenset()
            )
            for when in whens
        )
        self.reads_kind = tuple(_KIND_REF.search(when) is not None for when in whens)
        self.render_items = tuple(
            tuple((root, keys) for root, keys in reads.items() if keys != frozenset()) for reads in self.reads
        )
        self.render_kind = tuple(p.rule.reads_kind for p in self.rules)
        # Whether each message calls CEL's extensions: worked out while planning, not by the first profile
        # whose finding renders it.
        self.render_extensions = tuple(p.rule.calls_extensions for p in self.rules)
        self.required = self._guards()
        groups: dict[tuple[tuple[str, str | None], ...], int] = {}
        self.group_of = tuple(groups.setdefault(p.rule.inputs, len(groups)) for p in self.rules)
        self.group_inputs = tuple(groups)
        positions: list[list[int]] = [[] for _ in groups]
        for position, group in enumerate(self.group_of):
            positions[group].append(position)
        self.group_positions = tuple(tuple(p) for p in positions)
        self.ids = tuple(p.rule.id for p in self.rules)
        slot_of: dict[tuple[str, str | None], int] = {}
        slots: dict[str, dict[str, tuple[int, set[int]]]] = {root: {} for root in PRESENCE_ROOTS}
        always: set[int] = set()
        for group, inputs in enumerate(self.group_inputs):
            for root, key in inputs:
                slot = slot_of.setdefault((root, key), len(slot_of))
                if key is None:
                    always.add(group)
                else:
                    slots[root].setdefault(key, (slot, set()))[1].add(group)
        # A `has(...)` guard's key (and, for one on the model's config, the config itself) is not an input of
        # its own where the rule reads the whole map: it gets a slot too, touching no group.
        for required in self.required:
            guarded = sorted(required)
            if any(root == "model.config" for root, _ in guarded):
                guarded.append(("model", "config"))
            for root, key in guarded:
                if (root, key) not in slot_of:
                    slots[root][key] = (slot_of.setdefault((root, key), len(slot_of)), set())
        # A group all of whose rules are guarded by `has()` of one same key (not of the model's config) gives
        # nothing while the profile lacks that key, whichever other input it sets: it is touched only with it
        # (the key is one of its inputs, or it reads the key's whole map).
        guarded_by: dict[tuple[str, str], set[int]] = {}
        for group, members in enumerate(self.group_positions):
            common = frozenset.intersection(*(self.required[p] for p in members))
            common = sorted(item for item in common if item[0] != "model.config")
            if common:
                guarded_by.setdefault(common[0], set()).add(group)
        guarded = set().union(*guarded_by.values())
        self.slots = {
            root: {
                k: (slot, tuple(sorted(groups - guarded | guarded_by.get((root, k), set()))))
                for k, (slot, groups) in keys.items()
            }
            for root, keys in slots.items()
        }
        self.whole = tuple((root, slot) for (root, key), slot in slot_of.items() if key is None)
        self.always_groups = frozenset(always)
        self.start_groups = tuple(sorted(always - guarded))
        self.keys = tuple(
            itemgetter(*(slot_of[item] for item in inputs)) if inputs else _no_inputs
            for inputs in self.group_inputs
        )
        self.config_slot = slot_of.get(("model", "config"), -1)
        self.slot_count = len(slot_of)
        trigger_slots: list[tuple[int, ...] | None] = []
        guard_slots = []
        for planned, guards in zip(self.rules, self.required, strict=True):
            if planned.triggers is None:
                trigger_slots.append(None)
            else:
                trigger_slots.append(
                    tuple(slot_of[root, key] for root, keys in planned.triggers.items() for key in keys)
                )
            required = sorted(guards)
            guard_slots.append(
                (
                    tuple(slot_of[root, key] for root, key in required if root != "model.config"),
                    tuple(slot_of[root, key] for root, key in required if root == "model.config"),
                )
            )
        self.filter_specs = tuple(self._filters(planned, slot_of) for planned in self.rules)
        # A rule triggered by every keyed input of its group runs whenever the group is touched (``runs``
        # is asked only then): its triggers need no looking at.
        keyed = [
            frozenset(slot_of[item] for item in inputs if item[1] is not None) for inputs in self.group_inputs
        ]
        self.trigger_slots = tuple(
            None if slots_ is None or keyed[group] <= frozenset(slots_) else slots_
            for slots_, group in zip(trigger_slots, self.group_of, strict=True)
        )
        self.guard_slots = tuple(guard_slots)
        # A group the profile does not touch sets none of its inputs: a guard on an argument, environment
        # variable, model or hardware fact then fails; one on a key of the model's config does not (the
        # config is an input of that group: it is absent).
        untouched = []
        for group, members in enumerate(self.group_positions):
            standing = tuple(
                _entry(offset, self.rules[position].baseline)
                for offset, position in enumerate(members)
                if self.rules[position].baseline is not None and not self.guard_slots[position][0]
            )
            if standing and group not in always:
                untouched.append((group, standing))
        self.untouched = tuple(untouched)
        self.wanted_cache = {}
        self.render_cache: dict[tuple[int, ...], Any] = {}
        self._shares()
        self.link(self.shared)

    def _guards(self) -> tuple[frozenset[tuple[str, str]], ...]:
        """Each rule's ``has(...)`` guards (``required``) and, for this release, the keys whose absence makes
        its condition false whatever the profile: in ``has(x.k) ? A : B``, a conjunct of ``B`` that reads
        nothing of the profile (``vllm.minor >= 27`` and the like, the release's constants written in) and
        is false here. Such a rule runs only for a profile that sets ``x.k``, like one guarded by it."""
        found = []
        context: list[cel.Context] = []
        for planned in self.rules:
            rule = planned.rule
            required = set(rule.required)
            for case, condition in conjuncts(rule.when):
                if case is None or case[2] or (case[0], case[1]) in required:
                    continue
                part = specialise(condition, self.all_defaults, self.vllm)
                if len(part) > _FILTER_CHARS or _inputs({r: referenced_keys([part], r) for r in NAMESPACES}):
                    continue
                if not context:
                    empty = {"kind": self.kind, "vllm": {"version": self.vllm.get("version")}, "args": {}}
                    context.append(cel.Context(variables=build_context(empty, {}, None, self.values)))
                try:
                    false = compile_cel(part).execute(context[0]) is False
                except EVAL_ERRORS:
                    false = False
                if false:
                    required.add((case[0], case[1]))
            found.append(frozenset(required))
        return tuple(found)

    def _filters(
        self, planned: _PlannedRule, slot_of: Mapping[tuple[str, str | None], int]
    ) -> tuple[tuple[tuple[int, bool] | None, Callable[[list[int]], Any], Any, tuple[Any, ...]], ...]:
        """The conjuncts of a rule's condition (``conjuncts``, with the release's constants written in) that
        read fewer of the profile's inputs than the rule (``has()`` guards aside: see ``runs``), fewest
        first: one known false for a profile's values spares running the rule (and, often, building a
        context at all). Each with the case it applies in, its memo key, its program and its inputs."""
        inputs = planned.rule.inputs
        found = []
        for case, condition in conjuncts(planned.rule.when):
            if len(condition) == len(planned.rule.when) or _HAS.match(condition):
                continue
            part = specialise(condition, self.all_defaults, self.vllm)
            if len(part) > _FILTER_CHARS:
                continue
            part_inputs = _inputs({root: referenced_keys([part], root) for root in NAMESPACES})
            if len(part_inputs) >= len(inputs) or any(item not in slot_of for item in part_inputs):
                continue
            if case is not None and (case[0], case[1]) not in slot_of:
                continue
            program = LazyProgram(part)  # compiled when first run (an error then: not known false)
            key_of = itemgetter(*(slot_of[item] for item in part_inputs)) if part_inputs else _no_inputs
            where = None if case is None else (slot_of[case[0], case[1]], case[2])
            found.append((len(part_inputs), where, key_of, program, part_inputs))
        found.sort(key=lambda item: item[0])
        return tuple(item[1:] for item in found)

    def plan_data(self, expressions: Iterable[str]) -> tuple[Any, ...] | None:
        """What of this plan's own data the expressions read, frozen: the release's defaults (``effective``),
        its ``vllm`` map, its value sets (``values``) and the kind. With the expressions' text and the
        profile's inputs, that is all an outcome depends on (``derived`` is always the empty map: a release's
        derived values are written into the text). None if a value has no frozen form."""
        sources = {"effective": self.all_defaults, "vllm": self.vllm, "values": self.values}
        data: list[Any] = []
        try:
            for expr in expressions:
                reads, reads_kind = _plan_reads(expr)
                for root, keys in reads:
                    source = sources[root]
                    if keys is None:
                        data.append((root, None, freeze(source)))
                    else:
                        data.extend((root, key, freeze(source.get(key, ABSENT))) for key in keys)
                if reads_kind:
                    data.append(("kind", self.kind))
        except TypeError:
            return None
        return tuple(data)

    def _shares(self) -> None:
        """The key of the rule set's table each group and each filter uses (None: the plan's own table).

        A group's outcome for given inputs is a function of its rules' texts as this release runs them (the
        condition with the release's constants written in, the message template) and of the plan's data they
        read (``plan_data``): plans equal in both give equal outcomes, so they share one table, and an outcome
        one release computed serves every release that runs the group the same way. Entries hold each finding
        with its offset among the group's rules, never a plan's own positions. A filter (a conjunct of a
        condition) likewise by its text and what of the plan's data it reads."""
        shares = []
        for group, positions in enumerate(self.group_positions):
            texts = []
            expressions = []
            for position in positions:
                planned = self.rules[position]
                rule = planned.rule
                when = planned.when or rule.when
                texts.append((rule.id, rule.when, when, rule.template.source if rule.template else None))
                expressions.extend((*rule.expressions, when))
            data = self.plan_data(expressions)
            shares.append(None if data is None else ("group", self.group_inputs[group], tuple(texts), data))
        self.group_shares = tuple(shares)
        filter_shares = []
        for specs in self.filter_specs:
            found = []
            for _case, _key_of, program, part_inputs in specs:
                data = self.plan_data([program.source])
                found.append(None if data is None else ("conjunct", program.source, part_inputs, data))
            filter_shares.append(tuple(found))
        self.filter_shares = tuple(filter_shares)

    def link(self, shared: dict[Any, dict[Any, Any]] | None) -> None:
        """Start the memo tables: each group and filter uses the rule set's table for its texts and the plan's
        data they read (``_shares``), where the rule set gives one (``shared``)."""
        self.shared = shared

        def table(share: Any) -> dict[Any, Any]:
            return shared.setdefault(share, {}) if shared is not None and share is not None else {}

        self.filters = tuple(
            tuple(
                (case, key_of, program, table(share))
                for (case, key_of, program, _inputs), share in zip(specs, shares, strict=True)
            )
            for specs, shares in zip(self.filter_specs, self.filter_shares, strict=True)
        )
        self.outcomes = tuple(table(share) for share in self.group_shares)
        # Per group, its memo key and its table's ``get`` in one item: what ``findings`` asks per touched
        # group (a table starting over is cleared in place, so the bound method stays its own).
        self.lookups = tuple(
            (key_of, table.get) for key_of, table in zip(self.keys, self.outcomes, strict=True)
        )

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its memoised outcomes (``engine.store``): only what planning computed, whatever
        the process had validated before."""
        state = dict(self.__dict__)
        state["outcomes"] = tuple({} for _ in self.group_inputs)
        state["shared"] = None  # linked again by the rule set (CompiledRuleSet.__setstate__)
        state["wanted_cache"] = {}
        state["render_cache"] = {}
        state["filters"] = ()  # linked again with the tables (`link`)
        state["lookups"] = ()
        return state

    def inputs(
        self,
        doc: Mapping[str, Any],
        numbers: dict[str, int] | None = None,
        checks: ArgumentChecks | None = None,
    ) -> tuple[list[int], set[int], bool]:
        """The profile's input numbers by slot, the groups it touches and whether every number could be
        given (False: a value of a type with no memo key; its slot then reads -1, "present"). ``numbers``
        receives the number of each argument's value that is not a str, int or bool (by name), for the
        catalog checks to key their memo with (``checks.check_catalog``): freezing a config costs more than
        looking its outcomes up, and an int hashes and compares for less than its frozen form.

        ``checks``: the catalog's checks of the same arguments, made in this one pass over them (their
        findings, in the arguments' order, appended to its list); see ``checks.ArgumentChecks``."""
        values = _ABSENT_ONE * self.slot_count  # (repeating one item: cheaper than copying a list)
        touched = set(self.start_groups)
        known = True
        slots = self.slots
        by_key = slots["args"]
        args = doc.get("args") or {}
        if checks is not None:
            # The catalog's check of each argument in the same pass: a str, int or bool argument whose checks
            # require no other one is looked up in its memo table in place (``checks.scalar_outcome``'s key),
            # which also gives its value's number; any other checked by ``check_argument``.
            index, history, found_checks = checks
            memo_entries = index.memo_entries
            if numbers is None:
                numbers = {}
            for key, value in args.items():
                kind = type(value)
                entry = by_key.get(key)
                if kind is str or kind is int or kind is bool:
                    memo_entry = memo_entries.get(key)
                    if memo_entry is not None and not memo_entry[3]:
                        # Its catalog findings and its value's number in one lookup (``scalar_outcome``).
                        outcome = memo_entry[1].get((memo_entry[2], kind, value))
                        if outcome is None:
                            outcome = scalar_outcome(index, key, value, args)
                        checked, found = outcome
                        if entry is not None:
                            values[entry[0]] = found
                            touched.update(entry[1])
                    else:
                        if entry is not None:
                            found = _NUMBERS.get(value if kind is str else (kind, value))  # see memo.number
                            if found is None:
                                found = number((kind, value))
                            values[entry[0]] = found
                            touched.update(entry[1])
                        checked = check_argument(index, key, value, args, history, True, numbers)[0]
                else:
                    if entry is not None:
                        try:
                            frozen_value = freeze(value)
                        except TypeError:
                            found = -1
                            known = False
                        else:
                            found = _NUMBERS.get(frozen_value)
                            if found is None:
                                found = number(frozen_value)
                            numbers[key] = found
                        values[entry[0]] = found
                        touched.update(entry[1])
                    checked = check_argument(index, key, value, args, history, True, numbers)[0]
                if checked:
                    found_checks.extend(checked)
        else:
            for key, value in args.items():
                entry = by_key.get(key)
                if entry is not None:
                    # A str, int or bool is numbered here (most arguments: ``number_of`` without its call);
                    # another value frozen once, its number kept for the catalog checks (``numbers``).
                    kind = type(value)
                    if kind is str or kind is int or kind is bool:
                        found = _NUMBERS.get(value if kind is str else (kind, value))  # see memo.number
                        if found is None:
                            found = number((kind, value))
                    else:
                        try:
                            frozen_value = freeze(value)
                        except TypeError:
                            found = -1
                            known = False
                        else:
                            found = _NUMBERS.get(frozen_value)
                            if found is None:
                                found = number(frozen_value)
                            if numbers is not None:
                                numbers[key] = found
                    values[entry[0]] = found
                    touched.update(entry[1])
        # The other maps likewise (a str, int or bool looked up in place); most profiles set few of them.
        env = doc.get("env")
        by_key = slots["env"]
        if env and by_key:
            for key, value in env.items():
                entry = by_key.get(key)
                if entry is not None:
                    kind = type(value)
                    if kind is str:
                        found = _NUMBERS.get(value)  # see memo.number
                    elif kind is int or kind is bool:
                        found = _NUMBERS.get((kind, value))
                    else:
                        found = None
                    if found is None:
                        try:
                            found = number_of(value)
                        except TypeError:
                            found = -1
                            known = False
                    values[entry[0]] = found
                    touched.update(entry[1])
        model = doc.get("model") or {}
        by_key = slots["model"]
        if model and by_key:
            for key, value in model.items():
                entry = by_key.get(key)
                if entry is not None and value is not None:
                    kind = type(value)
                    if kind is str:
                        found = _NUMBERS.get(value)  # see memo.number
                    elif kind is int or kind is bool:
                        found = _NUMBERS.get((kind, value))
                    else:
                        found = None
                    if found is None:
                        try:
                            found = (
                                number(A_MAPPING)
                                if key == "config" and _is_mapping(value)
                                else number_of(value)
                            )
                        except TypeError:
                            found = -1
                            known = False
                    values[entry[0]] = found
                    touched.update(entry[1])
        config = model.get("config")
        by_key = slots["model.config"]
        if config is not None and by_key and _is_mapping(config):
            for key, value in config.items():
                entry = by_key.get(key)
                if entry is not None:
                    try:
                        values[entry[0]] = number_of(value)
                    except TypeError:
                        values[entry[0]] = -1
                        known = False
                    touched.update(entry[1])
        hardware = doc.get("hardware")
        by_key = slots["hardware"]
        if hardware and by_key:
            for key, value in hardware.items():
                entry = by_key.get(key)
                if entry is not None and value is not None:
                    try:
                        values[entry[0]] = number_of(value)
                    except TypeError:
                        values[entry[0]] = -1
                        known = False
                    touched.update(entry[1])
        if self.whole and not touched.isdisjoint(self.always_groups):  # numbered only for a group to read it
            for root, slot in self.whole:
                try:
                    values[slot] = _whole_number(doc, root)
                except TypeError:
                    values[slot] = -1
                    known = False
        return values, touched, known

    def settle(self, misses: list[tuple[int, Any]], values: list[int]) -> list[tuple[int, Any]]:
        """The groups missed (``misses``: (group, memo key)) that are not of one rule a conjunct of whose
        condition is already known false for these input numbers (``_proven_false`` with no context to
        build); those give no finding, memoised so. Most misses of a profile's first values are of that kind
        (a rule reading a dozen inputs, false by the one the profile sets)."""
        left = []
        for group, key in misses:
            positions = self.group_positions[group]
            if len(positions) == 1 and self.filters[positions[0]] and self.runs(positions[0], values):
                for case, key_of, _program, table in self.filters[positions[0]]:
                    if (case is None or (values[case[0]] != 0) is case[1]) and table.get(key_of(values)):
                        outcomes = self.outcomes[group]
                        if len(outcomes) >= LIMIT:
                            outcomes.clear()
                        outcomes[key] = ()
                        break
                else:
                    left.append((group, key))
            else:
                left.append((group, key))
        return left

    def runs(self, position: int, values: list[int]) -> bool | None:
        """Whether the rule at ``position`` runs for a profile of these input numbers: True; False if it
        keeps its empty-profile outcome (it reads nothing the profile sets); None if one of its `has(...)`
        guards fails (no finding). Asked only for a group the profile touches."""
        plain, config_keys = self.guard_slots[position]
        for slot in plain:
            if not values[slot]:
                return None
        if config_keys and values[self.config_slot]:
            for slot in config_keys:
                if not values[slot]:
                    return None
        triggers = self.trigger_slots[position]
        return triggers is None or any(values[slot] for slot in triggers)

    def wanted_for(self, run: Iterable[int], *, render: bool = False) -> dict[str, frozenset[str] | None]:
        """The keys the rules about to run read (their conditions; with ``render`` their messages too): only
        those are converted into CEL values (``kind`` too is left out when none of them can read it)."""
        run = tuple(run)
        wanted: dict[str, frozenset[str] | None] = dict(_READS_NOTHING)
        read_items = self.render_items if render else self.read_items
        for position in run:
            for root, keys in read_items[position]:
                current = wanted[root]
                if keys is None or current is None:
                    wanted[root] = None
                elif not keys <= current:
                    wanted[root] = current | keys
        reads_kind = self.render_kind if render else self.reads_kind
        if any(reads_kind[position] for position in run):
            wanted["kind"] = None
        return wanted

    def wanted_of(
        self, run: tuple[int, ...], *, render: bool = False
    ) -> tuple[dict[str, frozenset[str] | None], dict[str, Any]]:
        """What the rules at these positions read, and the release's defaults of the arguments among it."""
        cache = self.render_cache if render else self.wanted_cache
        found = cache.get(run)
        if found is None:
            wanted = self.wanted_for(run, render=render)
            effective = wanted["effective"]
            defaults = self.defaults if effective is None else {k: self.defaults.get(k) for k in effective}
            found = (wanted, defaults)
            if len(cache) >= LIMIT:
                cache.clear()
            cache[run] = found
        return found


_ABSENT_ONE = [ABSENT_NUMBER]


def _is_mapping(value: Any) -> bool:
    """``isinstance(value, Mapping)``, a dict or None told apart before asking the ABC (which costs more)."""
    return type(value) is dict or (value is not None and isinstance(value, Mapping))


def _whole_number(doc: Mapping[str, Any], root: str) -> int:
    """The number of one of the profile's maps as a whole (``ABSENT_NUMBER`` for no model config)."""
    if root == "model.config":
        config = (doc.get("model") or {}).get("config")
        return ABSENT_NUMBER if config is None else number(freeze(config))
    if root in ("model", "hardware"):
        return number(freeze({k: v for k, v in (doc.get(root) or {}).items() if v is not None}))
    return number(freeze(doc.get(root) or {}))


@dataclass
class CompiledRuleSet:
    version_id: int | None
    rules: tuple[CompiledRule, ...]
    derived: tuple[CompiledDerived, ...]
    defaults: tuple[tuple[Versions, dict[str, Any]], ...]
    _plans: dict[tuple[str, str, str | None], _ReleasePlan] = field(default_factory=dict, repr=False)
    lazy: bool = False  # programs compile when first executed (a rule set known to compile)
    # The memo tables its release plans share (``_ReleasePlan.link``): inputs -> table.
    _shared: dict[Any, dict[Any, Any]] = field(default_factory=dict, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_shared"] = {}
        return state

    @cached_property
    def places(self) -> dict[str, int]:
        """Each rule's place in the rule set's order, by id (``lint`` ranks vLLM's start-up value checks
        among the rules' findings on it)."""
        return {rule.id: i for i, rule in enumerate(self.rules)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for plan in self._plans.values():
            plan.link(self._shared)

    def _plan(self, version: str, kind: str, catalog: Catalog | None) -> _ReleasePlan:
        key = (version, kind, catalog.version if catalog else None)
        plan = self._plans.get(key)
        if plan is None:
            parsed = parse_version(version)
            definitions = self._derived_definitions(parsed)
            rules = tuple(
                self._for_release(r, definitions)
                for r in self.rules
                if kind in r.kinds and (parsed is None or r.specifier.contains(parsed, prereleases=True))
            )
            defaults: dict[str, Any] = {}
            for specifier, values in self.defaults:
                if parsed is not None and specifier.contains(parsed, prereleases=True):
                    defaults.update(values)
            if catalog is not None:
                defaults.update(catalog.defaults)
            wanted = _union_reads(r.reads for r in rules)
            # An argument a rule names that the profile does not set and whose default is unknown (resolved
            # at start-up, or no catalog) reads as null: "not set" is a known fact, not an unknown input.
            named = frozenset().union(*(r.named_effective for r in rules))
            all_defaults = {**dict.fromkeys(named), **defaults}
            defaults = all_defaults
            if wanted["effective"] is not None:
                defaults = {k: all_defaults.get(k) for k in wanted["effective"]}
            empty = {
                "kind": kind,
                "vllm": {"version": version},
                "model": {},
                "args": {},
                "env": {},
                "hardware": {},
            }
            values = catalog.values if catalog is not None else {}
            constants = _vllm_values(version)
            specialised = [_specialised(rule, all_defaults, constants) for rule in rules]
            # What the rules read as written and as they run (`effective.k` then reads `args.k`).
            read_too = _union_reads(
                [
                    *(r.reads for r in rules),
                    *({r: referenced_keys([w], r) for r in NAMESPACES} for w, _ in specialised),
                ]
            )
            baseline_variables = build_context(empty, defaults, read_too, values)
            baseline_context = cel.Context(variables=baseline_variables)
            planned = tuple(
                _PlannedRule(
                    rule,
                    _triggers(rule.reads),
                    # The condition as it runs per profile (compiled here, once).
                    _run(rule, baseline_context, frozenset(), baseline_variables, program),
                    when,
                    program,
                )
                for rule, (when, program) in zip(rules, specialised, strict=True)
            )
            plan = self._plans[key] = _ReleasePlan(
                planned,
                defaults,
                wanted,
                all_defaults=all_defaults,
                values=values,
                vllm=constants,
                kind=kind,
                shared=self._shared,
            )
            if not self.lazy:
                # Its rules' filters (conjuncts of their conditions) compiled with the plan, not by the first
                # profile that needs each (a few hundred texts for all releases, most shared: tens of ms in
                # all, where each first profile paid about a millisecond). A lazy rule set (the linter's)
                # keeps compiling only what a run executes.
                for specs in plan.filter_specs:
                    for _case, _key_of, program, _inputs in specs:
                        program.prepare()
        return plan

    def _derived_definitions(self, version: Version | None) -> dict[str, str]:
        definitions: dict[str, str] = {}
        for derived in self.derived:
            expr = derived.expr_for(version)
            if expr is not None:
                definitions[derived.name] = expand_derived(expr, definitions)
        return definitions

    @staticmethod
    def _for_release(rule: CompiledRule, definitions: Mapping[str, str]) -> CompiledRule:
        """The rule with the release's derived values expanded (itself if it reads none)."""
        if not rule.uses_derived:
            return rule
        when = expand_derived(rule.when, definitions)
        template = rule.template
        lazy = isinstance(rule.program, LazyProgram)
        if template is not None and any(_DERIVED_REF.search(e) for e in template.expressions):
            template = compile_template(rule.id, expand_derived(template.source, definitions), lazy)
        # Compiled if the plain evaluation runs it: per profile the release's specialised copy runs.
        program = LazyProgram(when)
        return replace(rule, when=when, program=program, template=template)

    def evaluate(
        self,
        doc: Mapping[str, Any],
        *,
        catalog: Catalog | None = None,
        waived: Iterable[str] = (),
        plain: bool = False,
        memo: bool = True,
    ) -> Verdict:
        """The rule findings of one profile document, errors first, then in rule order (see ``findings``)."""
        version, found = self.findings(doc, catalog=catalog, waived=waived, plain=plain, memo=memo)
        return self._verdict(version, found)

    def findings(
        self,
        doc: Mapping[str, Any],
        *,
        catalog: Catalog | None = None,
        waived: Iterable[str] = (),
        plain: bool = False,
        memo: bool = True,
        numbers: dict[str, int] | None = None,
        checks: ArgumentChecks | None = None,
    ) -> tuple[str, list[Ranked]]:
        """The profile's release and its rule findings, each ranked (``Ranked``: its severity's order, 0 for
        a rule of the catalog category and 2 for another, its rule's position in the rule set's order for
        the release; in no particular order: ``evaluate`` and ``lint.validate`` sort them).

        Only the rules that read something the profile sets run, on a context holding only what they read;
        the others' outcome is the one computed once on the release's empty profile, and a group of rules
        whose inputs (the values they read) recur gives the outcome it gave them before (``memo=False``:
        always run them). ``plain=True`` runs every rule on the whole document instead: the reference the
        optimised evaluation must equal. ``numbers``, ``checks`` (the catalog's checks of the arguments, made
        in the same pass; ignored by the plain evaluation): see ``_ReleasePlan.inputs``.
        """
        waived_ids = waived if type(waived) is frozenset else frozenset(waived)  # lint.validate's, as it is
        version = (doc.get("vllm") or {}).get("version") or ""
        if type(version) is not str:
            version = str(version)
        kind = doc.get("kind") or "serving"
        if type(kind) is not str:
            kind = str(kind)
        # A plan built before is looked up here (``_plan`` without its call: most profiles' case).
        plan = self._plans.get((version, kind, catalog.version if catalog else None))
        if plan is None:
            plan = self._plan(version, kind, catalog)
        if plain:
            return version, self._evaluate_plain(doc, plan, waived_ids)
        values, touched, known = plan.inputs(doc, numbers, checks)
        memo = memo and known
        found: list[Ranked] = []
        group_positions = plan.group_positions
        for group, standing in plan.untouched:
            if group not in touched:
                positions = group_positions[group]
                for offset, finding, severity, order in standing:
                    found.append((severity, order, positions[offset], finding))
        # A group's outcome is a function of the profile values its rules read: reuse it when they recur
        # (.get, not `in` then [ ]: another thread may start a full table over in between).
        if memo:
            misses: list[tuple[int, Any]] = []
            lookups = plan.lookups
            for group in touched:
                key_of, get = lookups[group]
                key = key_of(values)
                outcome = get(key)
                if outcome is None:
                    misses.append((group, key))
                elif outcome:
                    positions = group_positions[group]
                    for offset, finding, severity, order in outcome:  # mostly one: a loop, no call
                        found.append((severity, order, positions[offset], finding))
        else:
            misses = [(group, None) for group in touched]
        if misses and memo:
            misses = plan.settle(misses, values)
        if misses:
            self._run_groups(doc, plan, values, misses, found, memo)
        if waived_ids:
            found = [
                (
                    severity,
                    order,
                    position,
                    replace(finding, waived=True) if finding.rule in waived_ids else finding,
                )
                for severity, order, position, finding in found
            ]
        return version, found

    @staticmethod
    def _run_groups(
        doc: Mapping[str, Any],
        plan: _ReleasePlan,
        values: list[int],
        misses: list[tuple[int, Any]],
        found: list[Ranked],
        memo: bool,
    ) -> None:
        """The outcomes of the groups no memoised outcome gave (``misses``: (group, memo key or None)): the
        rules that run on one context holding what their conditions read (built when first needed: a rule
        one of whose conditions' top-level conjuncts is known false for these values does not run), the
        others' baseline unless a guard fails."""
        group_positions, rules, runs = plan.group_positions, plan.rules, plan.runs
        decided = [
            (group, key, [runs(position, values) for position in group_positions[group]])
            for group, key in misses
        ]
        running: list[tuple[int, ...]] = []

        def running_rules() -> tuple[int, ...]:
            # The rules that run (a context holds what they read), worked out when a first context is built.
            if not running:
                running.append(
                    tuple(
                        position
                        for group, _, verdicts in decided
                        for position, runs_here in zip(group_positions[group], verdicts, strict=True)
                        if runs_here
                    )
                )
            return running[0]

        context: list[Any] = []

        def cel_context() -> cel.Context:
            if not context:
                wanted, defaults = plan.wanted_of(running_rules())
                context.append(cel.Context(variables=build_context(doc, defaults, wanted, plan.values)))
            return context[0]

        rendering: list[dict[str, Any]] = []

        def render_on(position: int) -> dict[str, Any]:
            # A finding's message renders on a context of what the running rules read, messages included:
            # one per profile, however many rules it finds.
            if rules[position].rule.template is None:
                return _NO_CONTEXT
            if not rendering:
                wanted, defaults = plan.wanted_of(running_rules(), render=True)
                variables = build_context(doc, defaults, wanted, plan.values)
                rendering.append({"cel_context": cel.Context(variables=variables), "variables": variables})
            return rendering[0]

        programs, filters = plan.programs, plan.filters
        for group, key, verdicts in decided:
            positions = group_positions[group]
            outcome = []
            for offset, (position, runs_here) in enumerate(zip(positions, verdicts, strict=True)):
                if runs_here is None:
                    continue
                if runs_here is False:
                    finding = rules[position].baseline
                elif memo and filters[position] and _proven_false(filters[position], values, cel_context):
                    finding = None
                else:
                    # The condition for this release on the context of what the conditions read; a finding's
                    # message on one of what the rule reads (its message too).
                    rule = rules[position].rule
                    try:
                        fired = programs[position].execute(cel_context())
                    except KeyError as exc:
                        missing = str(exc.args[0]) if exc.args else "an input"
                        finding = rule.unverifiable(missing, waived=False, **render_on(position))
                    except EVAL_ERRORS as exc:
                        finding = rule.unverifiable(
                            f"a value of the right type ({exc})",
                            waived=False,
                            **render_on(position),
                        )
                    else:
                        finding = rule.finding(waived=False, **render_on(position)) if fired is True else None
                if finding is not None:
                    entry = _entry(offset, finding)
                    outcome.append(entry)
                    found.append((entry[2], entry[3], position, finding))
            if key is not None:
                table = plan.outcomes[group]
                if len(table) >= LIMIT:
                    table.clear()
                table[key] = tuple(outcome)

    @staticmethod
    def _evaluate_plain(
        doc: Mapping[str, Any], plan: _ReleasePlan, waived_ids: frozenset[str]
    ) -> list[Ranked]:
        variables = build_context(doc, plan.all_defaults, values=plan.values)
        cel_context = cel.Context(variables=variables)
        found: list[Ranked] = []
        for position, planned in enumerate(plan.rules):
            finding = _run(planned.rule, cel_context, waived_ids, variables)
            if finding is not None:
                found.append(_ranked(position, finding))
        return found

    def _verdict(self, version: str, found: list[Ranked]) -> Verdict:
        found.sort(key=_SEVERITY_THEN_POSITION)
        findings = [item[3] for item in found]
        return Verdict(vllm_version=version or None, ruleset=self.version_id, findings=tuple(findings))


def _run(
    rule: CompiledRule,
    cel_context: cel.Context,
    waived_ids: frozenset[str],
    variables: Mapping[str, Any],
    program: Any = None,
) -> Finding | None:
    """The rule's finding for one profile, if any. ``variables``: what ``cel_context`` was built from;
    ``program``: the rule's condition as a release plan runs it (``_specialised``), if not its own."""
    waived = rule.id in waived_ids
    try:
        fired = (rule.program if program is None else program).execute(cel_context)
    except KeyError as exc:
        missing = str(exc.args[0]) if exc.args else "an input"
        return rule.unverifiable(missing, waived=waived, cel_context=cel_context, variables=variables)
    except EVAL_ERRORS as exc:
        return rule.unverifiable(
            f"a value of the right type ({exc})", waived=waived, cel_context=cel_context, variables=variables
        )
    return (
        rule.finding(waived=waived, cel_context=cel_context, variables=variables) if fired is True else None
    )


def compile_message_template(raw: Mapping[str, Any], *, lazy: bool = False) -> MessageTemplate | None:
    """The rule's ``message_template`` compiled (None without one); RuleCompileError names rule and slot."""
    text = raw.get("message_template")
    if text in (None, ""):
        return None
    return compile_template(str(raw.get("id") or "<rule>"), str(text).strip(), lazy)


def _vllm_values(version: str) -> dict[str, Any]:
    """The ``vllm`` map of a release's rules."""
    parsed = parse_version(version)
    return {
        "version": version,
        "major": parsed.major if parsed else 0,
        "minor": parsed.minor if parsed else 0,
        "patch": parsed.micro if parsed else 0,
    }


def _specialised(
    rule: CompiledRule, effective: Mapping[str, Any], vllm: Mapping[str, Any]
) -> tuple[str, cel.Program | LazyProgram]:
    """The rule's condition for one release (``specialise``) and its program (the rule's own if nothing is
    written in)."""
    when = specialise(rule.when, effective, vllm)
    if when == rule.when:
        return rule.when, rule.program
    # Compiled when first run (a large condition takes a millisecond or two): it compiles if the rule's own
    # does, literals and parenthesised expressions standing where selections stood.
    return when, LazyProgram(when)


def build_context(
    doc: Mapping[str, Any],
    defaults: Mapping[str, Any],
    wanted: Mapping[str, frozenset[str] | None] | None = None,
    values: Mapping[str, list[Any]] | None = None,
) -> dict[str, Any]:
    """The variables a rule sees, pruned to the keys the rules read (``wanted``; None = everything).

    ``values`` are the release's value sets (``values.speculative_methods``: the catalog's lists).

    Unknown model and hardware facts stay absent, so reading them means "could not verify".
    """
    wanted = wanted or {}
    none = frozenset()
    # Each map costs a few microseconds to hand to CEL: leave out those no rule about to run reads (a root
    # ``wanted`` does not name is kept).
    context: dict[str, Any] = {}
    if wanted.get("kind", True) != none:
        context["kind"] = doc.get("kind") or "serving"
    keys = wanted.get("vllm", True)
    if keys != none:
        vllm = _vllm_values(str((doc.get("vllm") or {}).get("version") or ""))
        context["vllm"] = _prune(vllm, wanted.get("vllm"))
    if wanted.get("model", True) != none:
        model = {k: v for k, v in (doc.get("model") or {}).items() if v is not None}
        if _is_mapping(model.get("config")):
            model["config"] = _prune(model["config"], wanted.get("model.config"))
        context["model"] = _prune(model, wanted.get("model"))
    args = doc.get("args") or {}
    if wanted.get("args", True) != none:
        context["args"] = _prune(args, wanted.get("args"))
    if wanted.get("effective", True) != none:
        effective = dict(defaults)
        effective.update(_prune(args, wanted.get("effective")))
        context["effective"] = effective
    if wanted.get("env", True) != none:
        context["env"] = {str(k): str(v) for k, v in _prune(doc.get("env") or {}, wanted.get("env")).items()}
    if wanted.get("hardware", True) != none:
        hardware = _prune(doc.get("hardware") or {}, wanted.get("hardware"))
        context["hardware"] = {k: v for k, v in hardware.items() if v is not None}
    if wanted.get("derived", True) != none:
        context["derived"] = {}
    if wanted.get("values", True) != none:
        context["values"] = _prune(values or {}, wanted.get("values"))
    return context


def compile_ruleset(
    pack: Mapping[str, Any], *, version_id: int | None = None, lazy: bool = False
) -> CompiledRuleSet:
    """Compile every rule and derived value once; disabled rules are left out.

    ``lazy=True``: only for a pack known to compile (the linter compiles a pack in full the first time it
    meets it): each CEL program compiles when first executed, so a short run pays only for what it runs.
    """
    rules = []
    for raw in pack.get("rules") or []:
        check_rule(raw)
        if raw.get("enabled", True) is False:
            continue
        rules.append(
            CompiledRule(
                id=raw["id"],
                category=raw["category"],
                severity=raw["severity"],
                message=str(raw["message"]).strip(),
                program=LazyProgram(str(raw["when"]))
                if lazy
                else compile_expression(raw["id"], "when", raw["when"]),
                specifier=_specifier(raw["id"], "versions", raw.get("versions")),
                kinds=frozenset(raw.get("kinds") or KINDS),
                fields=tuple(raw.get("fields") or ()),
                solutions=tuple(raw.get("solutions") or ()),
                source=raw.get("source"),
                example_fix=raw.get("example_fix"),
                docs=raw.get("docs"),
                fix=raw.get("fix"),
                needs=tuple(raw.get("needs") or ()),
                when=str(raw["when"]),
                template=compile_message_template(raw, lazy=lazy),
            )
        )
    derived = []
    for index, raw in enumerate(pack.get("derived") or []):
        _check_derived(raw, index)
        derived.append(
            CompiledDerived(
                name=raw["name"],
                variants=tuple(
                    (
                        _specifier(raw["name"], f"variants[{i}].versions", v.get("versions")),
                        str(v["expr"])
                        if lazy
                        else compile_expression(raw["name"], f"variants[{i}].expr", v["expr"]).source,
                    )
                    for i, v in enumerate(raw["variants"])
                ),
            )
        )
    defaults = tuple(
        (_specifier("<pack>", "defaults.versions", block.get("versions")), dict(block["values"]))
        for block in pack.get("defaults") or []
    )
    return CompiledRuleSet(
        version_id=version_id, rules=tuple(rules), derived=tuple(derived), defaults=defaults, lazy=lazy
    )
