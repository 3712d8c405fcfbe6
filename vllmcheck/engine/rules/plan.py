"""Planning a release: what one (rule set, release, kind) needs, computed once and reused per profile.

A release plan holds the rules of the release's range and kind (its derived values and constants written
in), each rule's outcome on the release's empty profile, the groups of rules that read the same profile
inputs, and the slots those inputs are numbered into (``memo.number``): a profile then runs only the groups
it touches, and a group's outcome is memoised under its inputs' numbers. Everything here is exact: the
plain evaluation (``CompiledRuleSet.evaluate(plain=True)``) is the reference it must equal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from operator import itemgetter
from typing import Any

import cel

from ..catalog import Catalog
from ..cel_reads import read_set
from ..checks import ArgumentChecks, check_argument, scalar_outcome
from ..memo import ABSENT, ABSENT_NUMBER, LIMIT, freeze, number, number_of
from ..messages import EVAL_ERRORS, LazyProgram, compile_cel
from ..types import SEVERITY_ORDER, Finding, parse_version
from .compile import (
    _KIND_REF,
    NAMESPACES,
    CompiledDerived,
    CompiledRule,
    _inputs,
    derived_definitions,
    for_release,
    referenced_keys,
)
from .conditions import _FILTER_CHARS, _HAS, conjuncts, specialise
from .context import _is_mapping, _vllm_values, build_context
from .load import Versions

# The parts of a profile whose keys can be present or absent; `effective` reads count as `args` reads.
PRESENCE_ROOTS = ("args", "env", "model", "model.config", "hardware")


A_MAPPING = ("<mapping>",)  # model.config is a mapping (its keys are inputs of their own)
_NONE_IS_ABSENT = frozenset({"model", "hardware"})  # an unknown model or hardware fact is None


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


# A rule's filter: the case it applies in (the slot of a key and whether the profile must set it, or None),
# the memo key of a conjunct of its condition (a function of the profile's input numbers), the conjunct's
# program, and whether it was false, memoised by that key.
_Filter = tuple[tuple[int, bool] | None, Callable[[list[int]], Any], Any, dict[Any, bool]]


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
        self._read_sets()
        self.required = self._guards()
        self._group()
        slot_of = self._slot_numbers()
        self._rule_slots(slot_of)
        self.untouched = self._untouched()
        self.wanted_cache = {}
        self.render_cache: dict[tuple[int, ...], Any] = {}
        self._shares()
        self.link(self.shared)

    def _read_sets(self) -> None:
        """What each rule's condition for this release reads (``_PlannedRule.when``; what its message reads
        too, for rendering), without the roots it does not (most of them), and whether it can read `kind`."""
        self.reads = tuple(p.rule.reads for p in self.rules)
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
        # Whether each message calls CEL's extensions (``CompiledRule.calls_extensions``, kept by the rule):
        # worked out while planning, not by the first profile whose finding renders it.
        for planned in self.rules:
            _ = planned.rule.calls_extensions

    def _group(self) -> None:
        """Rules that depend on the same inputs form a group: each rule's group, each group's inputs and its
        rules' positions (in rule order), and the rules' ids."""
        groups: dict[tuple[tuple[str, str | None], ...], int] = {}
        self.group_of = tuple(groups.setdefault(p.rule.inputs, len(groups)) for p in self.rules)
        self.group_inputs = tuple(groups)
        positions: list[list[int]] = [[] for _ in groups]
        for position, group in enumerate(self.group_of):
            positions[group].append(position)
        self.group_positions = tuple(tuple(p) for p in positions)
        self.ids = tuple(p.rule.id for p in self.rules)

    def _slot_numbers(self) -> dict[tuple[str, str | None], int]:
        """A slot per input (and per ``has()`` guard's key), the groups a profile that sets it touches, and
        the groups that read a whole map; returns the slot of each (root, key)."""
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
        guarded_by = self._guarded_groups()
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
        return slot_of

    def _guarded_groups(self) -> dict[tuple[str, str], set[int]]:
        """A group all of whose rules are guarded by `has()` of one same key (not of the model's config) gives
        nothing while the profile lacks that key, whichever other input it sets: it is touched only with it
        (the key is one of its inputs, or it reads the key's whole map). The groups by that key."""
        guarded_by: dict[tuple[str, str], set[int]] = {}
        for group, members in enumerate(self.group_positions):
            common = frozenset.intersection(*(self.required[p] for p in members))
            common = sorted(item for item in common if item[0] != "model.config")
            if common:
                guarded_by.setdefault(common[0], set()).add(group)
        return guarded_by

    def _rule_slots(self, slot_of: Mapping[tuple[str, str | None], int]) -> None:
        """Per rule: the slots of its triggers and of its `has(...)` guards, and its filters."""
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

    def _untouched(self) -> tuple[tuple[int, tuple[tuple[int, Finding, int, int], ...]], ...]:
        """Per group with baseline findings, those that stand while the profile touches none of its inputs.
        A group the profile does not touch sets none of its inputs: a guard on an argument, environment
        variable, model or hardware fact then fails; one on a key of the model's config does not (the config
        is an input of that group: it is absent)."""
        untouched = []
        for group, members in enumerate(self.group_positions):
            standing = tuple(
                _entry(offset, self.rules[position].baseline)
                for offset, position in enumerate(members)
                if self.rules[position].baseline is not None and not self.guard_slots[position][0]
            )
            if standing and group not in self.always_groups:
                untouched.append((group, standing))
        return tuple(untouched)

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
        args = doc.get("args") or {}
        if checks is not None:
            given = {} if numbers is None else numbers
            known = self._number_checked_args(args, values, touched, given, checks)
        else:
            known = self._number_args(args, values, touched, numbers)
        # The other maps likewise; most profiles set few of them.
        model = doc.get("model") or {}
        config = model.get("config")
        for root, mapping in (
            ("env", doc.get("env")),
            ("model", model),
            ("model.config", config if _is_mapping(config) else None),
            ("hardware", doc.get("hardware")),
        ):
            if mapping and self.slots[root]:
                known = self._number_map(root, mapping, values, touched) and known
        if self.whole and not touched.isdisjoint(self.always_groups):  # numbered only for a group to read it
            for root, slot in self.whole:
                try:
                    values[slot] = _whole_number(doc, root)
                except TypeError:
                    values[slot] = -1
                    known = False
        return values, touched, known

    def _number_args(
        self, args: Mapping[str, Any], values: list[int], touched: set[int], numbers: dict[str, int] | None
    ) -> bool:
        """Number the arguments the rules read into their slots (``memo.number_of``), adding the groups they
        touch; ``numbers`` (if given) receives the number of each that is not a str, int or bool. False if a
        value has no memo key."""
        by_key = self.slots["args"]
        known = True
        for key, value in args.items():
            entry = by_key.get(key)
            if entry is None:
                continue
            try:
                found = number_of(value)
            except TypeError:
                found = -1
                known = False
            else:
                kind = type(value)
                if numbers is not None and not (kind is str or kind is int or kind is bool):
                    numbers[key] = found
            values[entry[0]] = found
            touched.update(entry[1])
        return known

    def _number_checked_args(
        self,
        args: Mapping[str, Any],
        values: list[int],
        touched: set[int],
        numbers: dict[str, int],
        checks: ArgumentChecks,
    ) -> bool:
        """``_number_args`` with the catalog's check of each argument in the same pass: a str, int or bool
        argument whose checks require no other one is looked up in its memo table in place
        (``checks.scalar_outcome``'s key), which also gives its value's number; any other is checked by
        ``check_argument`` (after its number, which that reads, is in ``numbers``)."""
        index, history, found_checks = checks
        memo_entries = index.memo_entries
        by_key = self.slots["args"]
        known = True
        for key, value in args.items():
            kind = type(value)
            entry = by_key.get(key)
            scalar = kind is str or kind is int or kind is bool
            memo_entry = memo_entries.get(key) if scalar else None
            if memo_entry is not None and not memo_entry[3]:
                # Its catalog findings and its value's number in one lookup (``scalar_outcome``).
                outcome = memo_entry[1].get((memo_entry[2], kind, value))
                if outcome is None:
                    outcome = scalar_outcome(index, key, value, args)
                checked, found = outcome
            else:
                if entry is not None:
                    try:
                        found = number_of(value)
                    except TypeError:
                        found = -1
                        known = False
                    else:
                        if not scalar:
                            numbers[key] = found
                checked = check_argument(index, key, value, args, history, True, numbers)[0]
            if entry is not None:
                values[entry[0]] = found
                touched.update(entry[1])
            if checked:
                found_checks.extend(checked)
        return known

    def _number_map(
        self, root: str, mapping: Mapping[str, Any], values: list[int], touched: set[int]
    ) -> bool:
        """Number the profile's values of one more map (``env``, ``model``, ``model.config``, ``hardware``)
        that the rules read; an unknown model or hardware fact (None) is absent. False if a value has no
        memo key."""
        by_key = self.slots[root]
        skips_none = root in _NONE_IS_ABSENT
        known = True
        for key, value in mapping.items():
            entry = by_key.get(key)
            if entry is None or (value is None and skips_none):
                continue
            try:
                if root == "model" and key == "config" and _is_mapping(value):
                    found = number(A_MAPPING)  # its keys are inputs of their own
                else:
                    found = number_of(value)
            except TypeError:
                found = -1
                known = False
            values[entry[0]] = found
            touched.update(entry[1])
        return known

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


def _whole_number(doc: Mapping[str, Any], root: str) -> int:
    """The number of one of the profile's maps as a whole (``ABSENT_NUMBER`` for no model config)."""
    if root == "model.config":
        config = (doc.get("model") or {}).get("config")
        return ABSENT_NUMBER if config is None else number(freeze(config))
    if root in ("model", "hardware"):
        return number(freeze({k: v for k, v in (doc.get(root) or {}).items() if v is not None}))
    return number(freeze(doc.get(root) or {}))


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


def plan_release(
    rules: Iterable[CompiledRule],
    derived: Iterable[CompiledDerived],
    pack_defaults: Iterable[tuple[Versions, dict[str, Any]]],
    *,
    version: str,
    kind: str,
    catalog: Catalog | None,
    shared: dict[Any, dict[Any, Any]] | None,
    prepare: bool,
) -> _ReleasePlan:
    """The plan of one release and kind: the rules of its range and kind (its derived values written in),
    its defaults, and each rule's outcome on the release's empty profile. ``prepare``: compile the rules'
    filters now (a rule set not compiled lazily)."""
    parsed = parse_version(version)
    definitions = derived_definitions(derived, parsed)
    in_release = tuple(
        for_release(r, definitions)
        for r in rules
        if kind in r.kinds and (parsed is None or r.specifier.contains(parsed, prereleases=True))
    )
    wanted = _union_reads(r.reads for r in in_release)
    all_defaults = _release_defaults(in_release, pack_defaults, parsed, catalog)
    defaults = all_defaults
    if wanted["effective"] is not None:
        defaults = {k: all_defaults.get(k) for k in wanted["effective"]}
    values = catalog.values if catalog is not None else {}
    constants = _vllm_values(version)
    planned = _planned_rules(in_release, version, kind, (all_defaults, defaults), values, constants)
    plan = _ReleasePlan(
        planned,
        defaults,
        wanted,
        all_defaults=all_defaults,
        values=values,
        vllm=constants,
        kind=kind,
        shared=shared,
    )
    if prepare:
        # Its rules' filters (conjuncts of their conditions) compiled with the plan, not by the first
        # profile that needs each (a few hundred texts for all releases, most shared: tens of ms in
        # all, where each first profile paid about a millisecond). A lazy rule set (the linter's)
        # keeps compiling only what a run executes.
        for specs in plan.filter_specs:
            for _case, _key_of, program, _inputs_read in specs:
                program.prepare()
    return plan


def _release_defaults(
    rules: Iterable[CompiledRule],
    pack_defaults: Iterable[tuple[Versions, dict[str, Any]]],
    parsed: Any,
    catalog: Catalog | None,
) -> dict[str, Any]:
    """The release's defaults of ``effective``: the pack's for the release, then the catalog's. An argument a
    rule names that the profile does not set and whose default is unknown (resolved at start-up, or no
    catalog) reads as null: "not set" is a known fact, not an unknown input."""
    defaults: dict[str, Any] = {}
    for specifier, values in pack_defaults:
        if parsed is not None and specifier.contains(parsed, prereleases=True):
            defaults.update(values)
    if catalog is not None:
        defaults.update(catalog.defaults)
    named = frozenset().union(*(r.named_effective for r in rules))
    return {**dict.fromkeys(named), **defaults}


def _planned_rules(
    rules: tuple[CompiledRule, ...],
    version: str,
    kind: str,
    defaults: tuple[dict[str, Any], dict[str, Any]],
    values: Mapping[str, list[Any]],
    constants: Mapping[str, Any],
) -> tuple[_PlannedRule, ...]:
    """Each rule with its condition as the release runs it (``_specialised``, compiled here, once) and its
    outcome on the release's empty profile (its baseline). ``defaults``: all the release's, and those the
    rules read."""
    all_defaults, read_defaults = defaults
    empty = {"kind": kind, "vllm": {"version": version}, "model": {}, "args": {}, "env": {}, "hardware": {}}
    specialised = [_specialised(rule, all_defaults, constants) for rule in rules]
    # What the rules read as written and as they run (`effective.k` then reads `args.k`).
    read_too = _union_reads(
        [
            *(r.reads for r in rules),
            *({r: referenced_keys([w], r) for r in NAMESPACES} for w, _ in specialised),
        ]
    )
    baseline_variables = build_context(empty, read_defaults, read_too, values)
    baseline_context = cel.Context(variables=baseline_variables)
    return tuple(
        _PlannedRule(
            rule,
            _triggers(rule.reads),
            _run(rule, baseline_context, frozenset(), baseline_variables, program),
            when,
            program,
        )
        for rule, (when, program) in zip(rules, specialised, strict=True)
    )
