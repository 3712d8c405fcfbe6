"""Compiling a rule pack's CEL once per rule set: each condition and message template (within CEL's cost
budget), each derived value, and what every rule reads.

A release's derived values are written into its rules' text when a release is planned
(``derived_definitions``, ``for_release``): a rule then runs on the same context as any other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import cel
from cel.stdlib import STDLIB_FUNCTIONS, add_stdlib_to_context
from packaging.version import Version

from ..cel_reads import read_set
from ..messages import LazyProgram, MessageTemplate, compile_cel, compile_template
from ..missing import PLACEHOLDER, absent, describe, note, template_in_words, words
from ..types import KINDS, Finding, RuleCompileError, new_finding
from .conditions import required_keys
from .load import Versions, _check_derived, _specifier

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
DERIVED_REF = _DERIVED_REF  # ``derived.NAME`` in a condition: the rule editor's trial reads it too
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
    ) -> tuple[str, tuple[dict[str, str], ...] | None]:
        """The message with the profile's values filled in, and the facts it could not be filled without
        (None when it is filled in; ``missing.describe``'s items).

        A slot that cannot be evaluated for this profile (an unknown model fact, say) reads
        ``missing.PLACEHOLDER``, never a raw ``{self.x}`` placeholder; the finding then says
        ``message_rendered: false`` and names the facts in words.
        """
        if self.template is None:
            return self.message, None
        if cel_context is None:
            return template_in_words(self.message), ()
        if variables is not None and self.calls_extensions:
            # CEL's strings and lists extensions (join, substring, sort ...), as Kubernetes offers them to
            # messageExpression: registered only for the templates that call them
            cel_context = cel.Context(variables=dict(variables))
            add_stdlib_to_context(cel_context)
        text, failed = self.template.render_partial(cel_context, variables)
        if not failed:
            return text, None
        paths = [p for e in failed for p in (absent(e.slot.paths, variables) or e.slot.paths)]
        if not re.search(r"[A-Za-z]{2}", text.replace(PLACEHOLDER, "")):
            text = f"vLLM's check {self.id}"  # the whole message is a value vLLM computes
        return text, describe(paths, variables)

    def finding(
        self,
        *,
        waived: bool,
        cel_context: cel.Context | None = None,
        variables: Mapping[str, Any] | None = None,
    ) -> Finding:
        message, missing = self.render(cel_context, variables)
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
            message_rendered=missing is None,
            message_note=note(missing or ()),
            missing=missing or (),
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
        message, unfilled = self.render(cel_context, variables)
        first = _need_paths(needed, self.reads)
        facts = describe([*first, *(f["fact"] for f in unfilled or ())], variables)
        without = words(facts[:1]) if first else needed
        return new_finding(
            rule=self.id,
            severity="info",
            category=self.category,
            message=f"could not verify: {message} (without {without})",
            fields=self.fields,
            source=self.source,
            docs=self.docs,
            waived=waived,
            message_source=self.message,
            message_rendered=unfilled is None,
            message_note=note(facts),
            missing=facts,
        )


def _need_paths(needed: str, reads: Mapping[str, frozenset[str] | None]) -> list[str]:
    """A rule's need (``model.config``, ``gpus_per_node``, a key it reads) as a document path, from what the
    rule reads (not from the profile: the same finding whatever the engine pruned); none for a reason that is
    not a fact (a value of the wrong type)."""
    if " " in needed:
        return []
    if "." in needed or needed in ("model", "hardware", "env", "args"):
        return [needed]
    for root in ("hardware", "model", "model.config", "args", "effective", "env"):
        if needed in (reads.get(root) or ()):
            return [f"{'args' if root == 'effective' else root}.{needed}"]
    return (
        [f"model.{needed}"] if needed in ("config", "architecture", "files", "tokens") else [f"args.{needed}"]
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


def compile_message_template(raw: Mapping[str, Any], *, lazy: bool = False) -> MessageTemplate | None:
    """The rule's ``message_template`` compiled (None without one); RuleCompileError names rule and slot."""
    text = raw.get("message_template")
    if text in (None, ""):
        return None
    return compile_template(str(raw.get("id") or "<rule>"), str(text).strip(), lazy)


def compile_rule(raw: Mapping[str, Any], *, lazy: bool = False) -> CompiledRule:
    """One rule of a pack, already checked (``check_rule``), compiled; ``lazy``: its programs compile when
    first executed (a pack known to compile)."""
    return CompiledRule(
        id=raw["id"],
        category=raw["category"],
        severity=raw["severity"],
        message=str(raw["message"]).strip(),
        program=LazyProgram(str(raw["when"])) if lazy else compile_expression(raw["id"], "when", raw["when"]),
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


def compile_derived(raw: Any, index: int, *, lazy: bool = False) -> CompiledDerived:
    """The pack's ``derived[index]``, checked; each variant compiles (checked unless ``lazy``)."""
    _check_derived(raw, index)
    return CompiledDerived(
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


def derived_definitions(derived: Iterable[CompiledDerived], version: Version | None) -> dict[str, str]:
    """Each derived value's expression for the release, the earlier values it reads written in."""
    definitions: dict[str, str] = {}
    for value in derived:
        expr = value.expr_for(version)
        if expr is not None:
            definitions[value.name] = expand_derived(expr, definitions)
    return definitions


def for_release(rule: CompiledRule, definitions: Mapping[str, str]) -> CompiledRule:
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
