"""Evaluating profile documents: a compiled rule set (``compile_ruleset``) and its findings for a profile.

Per profile only the groups of rules its inputs touch run (``plan``), on one context holding what they read;
``plain=True`` runs every rule on the whole document instead, the reference the optimised evaluation equals.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import cel

from ..catalog import Catalog
from ..checks import ArgumentChecks
from ..memo import LIMIT
from ..messages import EVAL_ERRORS
from ..types import Verdict
from .compile import CompiledDerived, CompiledRule, compile_derived, compile_rule, derived_definitions
from .context import build_context
from .load import Versions, _specifier, check_rule
from .plan import (
    _SEVERITY_THEN_POSITION,
    Ranked,
    _entry,
    _proven_false,
    _ranked,
    _ReleasePlan,
    _run,
    plan_release,
)

_NO_CONTEXT: dict[str, Any] = {"cel_context": None, "variables": None}  # a rule without a message template


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

    def plan(self, version: str, kind: str, catalog: Catalog | None) -> _ReleasePlan:
        """What the rule set needs for one release and kind (built once, then reused)."""
        return self._plan(version, kind, catalog)

    def derived_definitions(self, version) -> dict[str, str]:
        """Each derived value's expression for the release (a ``Version``), earlier values written in."""
        return derived_definitions(self.derived, version)

    def _plan(self, version: str, kind: str, catalog: Catalog | None) -> _ReleasePlan:
        key = (version, kind, catalog.version if catalog else None)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = plan_release(
                self.rules,
                self.derived,
                self.defaults,
                version=version,
                kind=kind,
                catalog=catalog,
                shared=self._shared,
                prepare=not self.lazy,
            )
        return plan

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
        if memo:
            misses = self._memoised(plan, values, touched, found)
            if misses:
                misses = plan.settle(misses, values)
        else:
            misses = [(group, None) for group in touched]
        if misses:
            _run_groups(doc, plan, values, misses, found, memo)
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
    def _memoised(
        plan: _ReleasePlan, values: list[int], touched: set[int], found: list[Ranked]
    ) -> list[tuple[int, Any]]:
        """The memoised outcomes of the touched groups (added to ``found``) and the groups without one
        (``misses``: (group, memo key)). A group's outcome is a function of the profile values its rules read:
        reused when they recur (.get, not `in` then [ ]: another thread may start a full table over in
        between)."""
        misses: list[tuple[int, Any]] = []
        group_positions = plan.group_positions
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
        return misses

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


def compile_ruleset(
    pack: Mapping[str, Any], *, version_id: int | None = None, lazy: bool = False
) -> CompiledRuleSet:
    """Compile every rule and derived value once; disabled rules are checked, then left out.

    ``lazy=True``: only for a pack known to compile (the linter compiles a pack in full the first time it
    meets it): each CEL program compiles when first executed, so a short run pays only for what it runs.
    """
    rules = []
    for raw in pack.get("rules") or []:
        check_rule(raw)
        if raw.get("enabled", True) is not False:
            rules.append(compile_rule(raw, lazy=lazy))
    derived = tuple(
        compile_derived(raw, index, lazy=lazy) for index, raw in enumerate(pack.get("derived") or [])
    )
    defaults = tuple(
        (_specifier("<pack>", "defaults.versions", block.get("versions")), dict(block["values"]))
        for block in pack.get("defaults") or []
    )
    return CompiledRuleSet(
        version_id=version_id, rules=tuple(rules), derived=derived, defaults=defaults, lazy=lazy
    )


class _Contexts:
    """The contexts the rules of the missed groups run and render on, each built when first needed: one
    holding what the running rules' conditions read; one what they and their messages read, for the findings
    (one per profile, however many rules it finds)."""

    __slots__ = ("doc", "plan", "decided", "_running", "_condition", "_render")

    def __init__(self, doc: Mapping[str, Any], plan: _ReleasePlan, decided: list[Any]):
        self.doc, self.plan, self.decided = doc, plan, decided
        self._running: tuple[int, ...] | None = None
        self._condition: cel.Context | None = None
        self._render: dict[str, Any] | None = None

    def running(self) -> tuple[int, ...]:
        """The rules that run (a context holds what they read), worked out when a first context is built."""
        if self._running is None:
            positions = self.plan.group_positions
            self._running = tuple(
                position
                for group, _, verdicts in self.decided
                for position, runs_here in zip(positions[group], verdicts, strict=True)
                if runs_here
            )
        return self._running

    def condition(self) -> cel.Context:
        if self._condition is None:
            wanted, defaults = self.plan.wanted_of(self.running())
            variables = build_context(self.doc, defaults, wanted, self.plan.values)
            self._condition = cel.Context(variables=variables)
        return self._condition

    def render_on(self, position: int) -> dict[str, Any]:
        if self.plan.rules[position].rule.template is None:
            return _NO_CONTEXT
        if self._render is None:
            wanted, defaults = self.plan.wanted_of(self.running(), render=True)
            variables = build_context(self.doc, defaults, wanted, self.plan.values)
            self._render = {"cel_context": cel.Context(variables=variables), "variables": variables}
        return self._render


def _run_groups(
    doc: Mapping[str, Any],
    plan: _ReleasePlan,
    values: list[int],
    misses: list[tuple[int, Any]],
    found: list[Ranked],
    memo: bool,
) -> None:
    """The outcomes of the groups no memoised outcome gave (``misses``: (group, memo key or None)), added to
    ``found`` and memoised: the rules that run on one context holding what their conditions read (built when
    first needed: a rule one of whose conditions' top-level conjuncts is known false for these values does
    not run), the others' baseline unless a guard fails. A finding's message renders on a context of what the
    rule reads, its message too (``_Contexts``)."""
    group_positions, rules, runs = plan.group_positions, plan.rules, plan.runs
    decided = [
        (group, key, [runs(position, values) for position in group_positions[group]]) for group, key in misses
    ]
    contexts = _Contexts(doc, plan, decided)
    condition, render_on = contexts.condition, contexts.render_on
    programs, filters = plan.programs, plan.filters
    for group, key, verdicts in decided:
        outcome = []
        for offset, (position, runs_here) in enumerate(zip(group_positions[group], verdicts, strict=True)):
            if runs_here is None:
                continue
            if runs_here is False:
                finding = rules[position].baseline
            elif memo and filters[position] and _proven_false(filters[position], values, condition):
                finding = None
            else:
                rule = rules[position].rule
                try:
                    fired = programs[position].execute(condition())
                except KeyError as exc:
                    missing = str(exc.args[0]) if exc.args else "an input"
                    finding = rule.unverifiable(missing, waived=False, **render_on(position))
                except EVAL_ERRORS as exc:
                    reason = f"a value of the right type ({exc})"
                    finding = rule.unverifiable(reason, waived=False, **render_on(position))
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
