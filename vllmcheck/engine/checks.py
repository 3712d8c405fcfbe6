"""Catalog checks: what a release's argument catalog alone says about a profile.

Unknown arguments (with a did-you-mean over that release's option strings), arguments removed or renamed
since an earlier release (naming the release and the replacement), deprecated arguments (vLLM's own text),
wrong types, values outside the choices or bounds, and keys inside JSON-valued arguments checked against
their config class's fields (recursively: ``compilation_config.pass_config``).

Everything a check needs is indexed once: per catalog (:func:`catalog_index`, kept on the catalog itself)
and per set of catalogs (:class:`HistoryIndex`; callers that keep one pass it as ``history``).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from packaging.version import Version

from .catalog import Catalog, argspec_from_dict
from .memo import LIMIT, number_of
from .sentences import first_sentence, flatten, summarise
from .types import ArgSpec, Finding, new_finding, parse_version

RULE_UNKNOWN = "catalog-unknown-argument"
RULE_REMOVED = "catalog-removed-argument"
RULE_DEPRECATED = "catalog-deprecated-argument"
RULE_INVALID = "catalog-invalid-value"
RULE_UNKNOWN_KEY = "catalog-unknown-config-key"
RULE_INVALID_KEY = "catalog-invalid-config-value"


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _finding(rule: str, severity: str, message: str, fields: Iterable[str], **extra: Any) -> Finding:
    return new_finding(
        rule=rule, severity=severity, category="catalog", message=message, fields=tuple(fields), **extra
    )


# ---------------------------------------------------------------------------------------------------------
# Did-you-mean: the nearest option string by edit distance (optimal string alignment: insertions, deletions,
# substitutions and adjacent transpositions each cost 1), within a budget that grows with the length.


def max_typo_distance(text: str) -> int:
    """How many edits a typo of ``text`` may have and still get a suggestion."""
    n = len(text.lstrip("-"))
    return 1 if n <= 4 else 2 if n <= 10 else 3


def osa_distance(a: str, b: str, limit: int | None = None) -> int:
    """Optimal-string-alignment distance; with ``limit``, any value above it is reported as ``limit + 1``."""
    if limit is not None and abs(len(a) - len(b)) > limit:
        return limit + 1
    if a == b:
        return 0
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        ca = a[i - 1]
        row_min = i
        for j in range(1, len(b) + 1):
            cb = b[j - 1]
            cost = 0 if ca == cb else 1
            value = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb and value > prev2[j - 2] + 1:
                value = prev2[j - 2] + 1
            cur[j] = value
            if value < row_min:
                row_min = value
        # Every entry of the next row is >= min(this row's minimum, the previous row's minimum + 1)
        # (a transposition reaches back two rows at a cost of 1): past the limit, it stays past it.
        if limit is not None and row_min > limit and (i == len(a) or min(prev) >= limit):
            return limit + 1
        prev2, prev = prev, cur
    return prev[len(b)] if limit is None else min(prev[len(b)], limit + 1)


_Q = 3
_PAD = "\x00" * (_Q - 1)


def _qgrams(text: str) -> list[tuple[str, int]]:
    """Padded q-grams of ``text``, numbered by occurrence: a set intersection then counts a multiset."""
    padded = f"{_PAD}{text}{_PAD}"
    seen: dict[str, int] = {}
    grams = []
    for i in range(len(padded) - _Q + 1):
        gram = padded[i : i + _Q]
        seen[gram] = seen.get(gram, 0) + 1
        grams.append((gram, seen[gram]))
    return grams


_NOT_FOUND = object()
_UNKNOWN_ARG = ("<unknown argument>",)  # tags the memo key of an argument the release does not know
# (spec signature, frozen value) -> findings, shared by every catalog (``CatalogIndex.shared_signature``)
_SHARED_OUTCOMES: dict[tuple[Any, ...], tuple[Finding, ...]] = {}
# A number per shared signature, the key's first item in ``_SHARED_OUTCOMES`` (``next`` on a count is atomic,
# so two threads never give two signatures one number).
_SIGNATURE_NUMBERS: dict[tuple[Any, ...], int] = {}
_NUMBERS = itertools.count()


class NearestIndex:
    """Exact nearest-string search over a fixed vocabulary.

    The q-gram lemma prefilters: strings within ``k`` edits share at least ``max(len) + q - 1 - k (q + 1)``
    padded q-grams (an insertion, deletion or substitution breaks at most q of them, a transposition q + 1),
    so every candidate the brute force could pick survives the filter; survivors are then measured exactly.
    ``nearest`` therefore returns what :meth:`nearest_brute_force` returns, only faster.
    """

    def __init__(self, words: Iterable[str]):
        self.words: tuple[str, ...] = tuple(sorted(set(words)))
        # Each word's q-grams, computed when a query of about its length first needs them (a catalog has
        # some 700 option strings; a typo's candidates are those within a few characters of its length).
        self.grams: list[frozenset[tuple[str, int]] | None] = [None] * len(self.words)
        self.by_length: dict[int, list[int]] = {}
        for i, word in enumerate(self.words):
            self.by_length.setdefault(len(word), []).append(i)
        self._found: dict[tuple[str, int], str | None] = {}  # (query, budget) -> nearest: typos recur

    @staticmethod
    def _rank(word: str, query: str, distance: int) -> tuple[int, int, int, str]:
        # Fewest edits; then a long option over a short alias; then the closest length; then alphabetical.
        return (
            distance,
            0 if word.startswith("--") or not query.startswith("--") else 1,
            abs(len(word) - len(query)),
            word,
        )

    def nearest(self, query: str, max_distance: int | None = None) -> str | None:
        k = max_typo_distance(query) if max_distance is None else max_distance
        if query in self.words:
            return query
        found = self._found.get((query, k), _NOT_FOUND)
        if found is _NOT_FOUND:
            found = self._nearest(query, k)
            if len(self._found) >= LIMIT:
                self._found.clear()
            self._found[query, k] = found
        return found  # type: ignore[return-value]

    def _nearest(self, query: str, k: int) -> str | None:
        n = len(query)
        query_grams = frozenset(_qgrams(query))
        candidates = []
        for length in range(max(0, n - k), n + k + 1):  # more than k apart in length: more than k edits
            need = max(n, length) + _Q - 1 - k * (_Q + 1)
            for i in self.by_length.get(length, ()):
                if need <= 0:
                    candidates.append(i)
                    continue
                grams = self.grams[i]
                if grams is None:
                    grams = self.grams[i] = frozenset(_qgrams(self.words[i]))
                if len(query_grams & grams) >= need:
                    candidates.append(i)
        best: tuple[int, int, int, str] | None = None
        for i in candidates:
            word = self.words[i]
            distance = osa_distance(query, word, k)
            if distance <= k:
                rank = self._rank(word, query, distance)
                if best is None or rank < best:
                    best = rank
        return best[3] if best else None

    def nearest_brute_force(
        self, query: str, max_distance: int | None = None, *, full: bool = False
    ) -> str | None:
        """The reference: every word measured, no q-gram filter (for tests and benchmarks). ``full`` measures
        every distance in full rather than stopping once it exceeds the budget."""
        k = max_typo_distance(query) if max_distance is None else max_distance
        limit = None if full else k
        ranked = [self._rank(w, query, d) for w in self.words if (d := osa_distance(query, w, limit)) <= k]
        return min(ranked)[3] if ranked else None


# ---------------------------------------------------------------------------------------------------------
# Per-catalog index, built once and kept on the (frozen) catalog instance.


class CatalogIndex:
    """What the checks of one catalog look up, built once per catalog; the did-you-mean indexes are built
    when a first unknown name needs them (most profiles have none)."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        # config class -> field -> spec (flags = (field,))
        self.config_fields: dict[str, dict[str, ArgSpec]] = {
            class_name: {
                name: _field_spec(name, data) for name, data in ((info or {}).get("fields") or {}).items()
            }
            for class_name, info in (catalog.config_classes or {}).items()
        }
        # a field name -> [(json arg, class)] that has it
        self.nested_fields: dict[str, list[tuple[str, str]]] = {}
        for arg in catalog.arguments:
            if arg.type == "json" and arg.config_class:
                for field_name in self.config_fields.get(arg.config_class, {}):
                    self.nested_fields.setdefault(field_name, []).append((arg.name, arg.config_class))
        # argument -> the other arguments whose truth its value checks depend on (``requires``)
        requires: dict[str, set[str]] = {}
        for (argument, _key), check in catalog.checks_by_target.items():
            if check.get("requires"):
                requires.setdefault(argument, set()).add(check["requires"])
        self.requires = {argument: tuple(sorted(names)) for argument, names in requires.items()}
        # (argument, frozen value, truth of its ``requires``) -> the findings of a known argument
        self.outcomes: dict[tuple[Any, ...], Any] = {}  # also (index, finding) of unknown arguments
        self._signatures: dict[str, tuple[Any, ...] | None] = {}
        self.memo_entries: dict[str, tuple[ArgSpec, dict[Any, Any], Any, tuple[str, ...] | None]] = {}
        self._index_memo_entries()

    def _index_memo_entries(self) -> None:
        """Each known argument's spec and where its findings are memoised: the table, the key's first item,
        and the arguments whose truth is part of the key. An argument with a shared signature uses the shared
        table under the signature's number (hashing an int, not the signature's twelve fields, per profile).
        Computed once per catalog, not by the first profile that sets the argument (a signature quotes the
        spec's choices and bounds: several microseconds an argument)."""
        entries = {}
        for name, spec in self.catalog.by_name.items():
            signature = self.shared_signature(name, spec)
            if signature is not None:
                number = _SIGNATURE_NUMBERS.get(signature)
                if number is None:
                    number = _SIGNATURE_NUMBERS.setdefault(signature, next(_NUMBERS))
                entries[name] = (spec, _SHARED_OUTCOMES, number, None)
            else:
                entries[name] = (spec, self.outcomes, name, self.requires.get(name))
        self.memo_entries = entries
        self._field_names: dict[str, NearestIndex] = {}
        self._value_texts: dict[tuple[str, str | None], tuple[frozenset[str], frozenset[str]]] = {}

    def __getstate__(self) -> dict[str, Any]:
        # The memo entries name this process' shared table and signature numbers, and the memoised outcomes
        # hold its value numbers (``scalar_outcome``): never carried to another.
        return {**self.__dict__, "memo_entries": {}, "outcomes": {}}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._index_memo_entries()

    def shared_signature(self, name: str, spec: ArgSpec) -> tuple[Any, ...] | None:
        """What decides a known argument's findings, when only its spec does (None otherwise): not deprecated
        (the message names the release), not a JSON config (its fields are the release's), no value set
        checked at start-up and no other argument its checks require. Equal signatures in two releases
        give equal findings for equal values (``value_problem`` reads exactly these fields)."""
        if name in self._signatures:
            return self._signatures[name]
        signature = None
        if not (
            spec.deprecated
            or (spec.type == "json" and spec.config_class)
            or (name, None) in self.catalog.checks_by_target
            or name in self.requires
        ):
            signature = (
                name,
                spec.long_flag,
                spec.type,
                spec.item_type,
                spec.default is None,
                repr(spec.choices),
                repr(spec.bounds),
                spec.nullable,
                repr(spec.special_values),
                spec.config_class,
                spec.json_or_str,
                spec.human_readable_int,
                repr(spec.str_check),
                repr(spec.dict_check),
            )
        self._signatures[name] = signature
        return signature

    @cached_property
    def options(self) -> NearestIndex:
        """Every option string: long flags, short and hidden aliases, negative flags."""
        return NearestIndex(self.catalog.by_flag)

    def value_texts(self, argument: str, key: str | None) -> tuple[frozenset[str], frozenset[str]]:
        """What the value check of ``argument`` (or of ``key`` inside its JSON config) accepts, as texts: its
        names (with the ones it also takes) and its members' values. Worked out when a first value is
        checked, not for each (a value set may list hundreds of names)."""
        found = self._value_texts.get((argument, key))
        if found is None:
            check = self.catalog.checks_by_target[argument, key]
            entry = self.catalog.value_sets[check["set"]]
            members = entry.get("members") or {}
            accepted = set(check.get("also") or ())
            if not members or check.get("case"):  # an enum vLLM looks up by name (upper-cased), or a list
                accepted |= {str(v) for v in entry.get("values") or ()}
            found = (frozenset(accepted), frozenset(str(v) for v in members.values()))
            self._value_texts[argument, key] = found
        return found

    def field_names(self, class_name: str) -> NearestIndex:
        """A config class's field names, for did-you-mean."""
        index = self._field_names.get(class_name)
        if index is None:
            fields = _fields_of((self.catalog.config_classes or {}).get(class_name))
            index = self._field_names[class_name] = NearestIndex(fields)
        return index


def _fields_of(info: Mapping[str, Any] | None) -> dict[str, Any]:
    return (info or {}).get("fields") or {}


def _field_spec(name: str, data: Mapping[str, Any]) -> ArgSpec:
    values = {k: v for k, v in data.items() if k not in ("line", "flags", "name")}
    return argspec_from_dict({**values, "name": name, "flags": [name]})


def catalog_index(catalog: Catalog) -> CatalogIndex:
    cached = catalog.__dict__.get("_checks_index")
    if cached is not None:
        return cached
    index = CatalogIndex(catalog)
    catalog.__dict__["_checks_index"] = index  # frozen dataclass: the same trick cached_property uses
    return index


def did_you_mean(flag: str, catalog: Catalog) -> str | None:
    """The release's option string nearest to ``flag`` (see :func:`max_typo_distance`), or None."""
    return catalog_index(catalog).options.nearest(flag)


# ---------------------------------------------------------------------------------------------------------
# History: which releases have which argument, indexed once per set of catalogs.


@dataclass(frozen=True)
class Removal:
    name: str
    last_with: str  # the last release (before the target) that had the argument
    removed_in: str  # the first release after it without the argument
    spec: ArgSpec  # the argument as the last release with it had it
    replacement: str | None  # an option string of the target release that replaces it, if known


_NO_VERSION = Version("0")


def _version(text: str) -> Version:
    """Sort key of a release: an unparsable one sorts first."""
    return parse_version(text) or _NO_VERSION


class HistoryIndex(Mapping[str, Catalog]):
    """Catalogs of several releases, with argument name -> releases that have it, computed once."""

    def __init__(self, catalogs: Mapping[str, Catalog]):
        self.catalogs: dict[str, Catalog] = dict(catalogs)
        self.versions: tuple[str, ...] = tuple(sorted(self.catalogs, key=_version))
        self.present: dict[str, tuple[str, ...]] = {}
        having: dict[str, list[str]] = {}
        for version in self.versions:
            for name in self.catalogs[version].by_name:
                having.setdefault(name, []).append(version)
        self.present = {name: tuple(vs) for name, vs in having.items()}
        self._removals: dict[tuple[str, str], Removal | None] = {}
        self._renames: dict[tuple[str, str], dict[str, str]] = {}

    # Mapping protocol: a HistoryIndex can stand wherever a {version: Catalog} mapping is expected.
    def __getitem__(self, key: str) -> Catalog:
        return self.catalogs[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.versions)

    def __len__(self) -> int:
        return len(self.versions)

    def removal(self, name: str, catalog: Catalog) -> Removal | None:
        """How ``name``, unknown to ``catalog``, left vLLM: None if no earlier release had it."""
        key = (name, catalog.version)
        if key not in self._removals:
            self._removals[key] = self._find_removal(name, catalog)
        return self._removals[key]

    def _find_removal(self, name: str, catalog: Catalog) -> Removal | None:
        target = _version(catalog.version)
        earlier = [v for v in self.present.get(name, ()) if _version(v) < target]
        if not earlier:
            return None
        last_with = earlier[-1]
        after = [v for v in self.versions if _version(last_with) < _version(v) < target]
        removed_in = next((v for v in after if name not in self.catalogs[v].by_name), catalog.version)
        spec = self.catalogs[last_with].by_name[name]
        replacement = self._replacement(spec, last_with, removed_in, catalog)
        return Removal(name, last_with, removed_in, spec, replacement)

    def _replacement(self, spec: ArgSpec, last_with: str, removed_in: str, target: Catalog) -> str | None:
        # imported here: only a removed argument needs the release diff (the linter starts faster without)
        from .diff import mentioned_names, mentioned_options, replacement_text

        own = {*spec.flags, *spec.hidden_aliases, *spec.negative_flags}
        texts = [spec.deprecation or ""]
        # An earlier release may have carried the deprecation text the last one dropped.
        for version in reversed(self.present.get(spec.name, ())):
            older = self.catalogs[version].by_name[spec.name]
            if older.deprecation and older.deprecation != spec.deprecation:
                texts.append(older.deprecation)
                break
        texts.append(replacement_text(spec.help))
        for text in texts:
            for mention in mentioned_options(text):
                root = mention.split(".", 1)[0]
                if mention not in own and root not in own and root in target.by_flag:
                    return mention
            for mention in mentioned_names(text):
                root = mention.split(".", 1)[0]
                if root != spec.name and root in target.by_name:
                    rest = mention[len(root) :]
                    return target.by_name[root].long_flag + rest
        renamed = self.renames(last_with, removed_in).get(spec.name)
        if renamed and renamed in target.by_name:
            return target.by_name[renamed].long_flag
        return None

    def renames(self, old: str, new: str) -> dict[str, str]:
        """Old argument name -> new name, for arguments renamed between two releases of the history."""
        key = (old, new)
        if key not in self._renames:
            if old in self.catalogs and new in self.catalogs:
                from .diff import renamed_arguments

                self._renames[key] = renamed_arguments(self.catalogs[old], self.catalogs[new])
            else:
                self._renames[key] = {}
        return self._renames[key]

    def added_later(self, name: str, catalog: Catalog) -> str | None:
        """The first release after ``catalog``'s that has ``name`` (an argument too new for the target)."""
        target = _version(catalog.version)
        return next((v for v in self.present.get(name, ()) if _version(v) > target), None)


_history_cache: dict[tuple[tuple[str, int], ...], HistoryIndex] = {}


def history_index(history: Mapping[str, Catalog] | None) -> HistoryIndex | None:
    """A HistoryIndex for ``history``: itself, the one its owner keeps (``history.history_index()``), or one
    built once per set of catalog objects."""
    if history is None:
        return None
    if isinstance(history, HistoryIndex):
        return history
    provider = getattr(history, "history_index", None)
    if callable(provider):
        return provider()
    key = tuple(sorted((v, id(c)) for v, c in history.items()))
    index = _history_cache.get(key)
    if index is None:
        if len(_history_cache) > 16:
            _history_cache.clear()
        index = _history_cache[key] = HistoryIndex(history)
    return index


# ---------------------------------------------------------------------------------------------------------
# The checks.


def check_catalog(
    args: Mapping[str, Any],
    catalog: Catalog,
    *,
    history: Mapping[str, Catalog] | None = None,
    memo: bool = True,
    numbers: Mapping[str, int] | None = None,
) -> list[Finding]:
    """Findings for every argument the release does not know, or whose value it would refuse.

    ``history`` maps versions to catalogs of other releases (or is a :class:`HistoryIndex`), to name the
    release that removed an argument and what replaced it. A known argument's findings are reused when its
    value recurs (``memo=False``: always computed). ``numbers``: ``memo.number(memo.freeze(value))`` of some
    of ``args``' values by name, already worked out (by the rules' ``_ReleasePlan.inputs`` for the same
    profile). The rules' pass over a profile's arguments also checks them (``check_argument``) when the
    engine validates with reused outcomes (``lint.validate``).
    """
    index = catalog_index(catalog)
    findings: list[Finding] = []
    for name, value in args.items():
        found, _reusable = check_argument(index, name, value, args, history, memo, numbers or _NO_NUMBERS)
        if found:
            findings.extend(found)
    return findings


def check_argument(
    index: CatalogIndex,
    name: str,
    value: Any,
    args: Mapping[str, Any],
    history: Mapping[str, Catalog] | None,
    memo: bool,
    numbers: Mapping[str, int],
) -> tuple[tuple[Finding, ...], bool]:
    """The catalog findings of one argument of ``args``, and whether they depend on its name and value alone
    (a known argument none of whose value checks requires another: a caller may then reuse them for the
    same name and value on this catalog). Memoised, unless ``memo`` is false, as ``check_catalog`` says."""
    entry = index.memo_entries.get(name) if memo else None
    if entry is not None:
        # A known argument's findings depend on its value and on the truth of the arguments its value
        # checks require: reused when they recur. An argument whose findings only its spec decides (see
        # `CatalogIndex.shared_signature`) shares them with every release whose spec of it checks the
        # same way. (A str, int or bool is keyed by its type and itself, its frozen form written out, and
        # kept with its number: ``scalar_outcome``.)
        spec, table, prefix, requires = entry
        kind = type(value)
        if not requires and (kind is str or kind is int or kind is bool):
            return scalar_outcome(index, name, value, args)[0], True
        try:
            if requires:
                key: tuple[Any, ...] | None = (
                    prefix,
                    _number(name, value, numbers),
                    tuple([not args.get(r) for r in requires]),
                )
            else:
                key = (prefix, _number(name, value, numbers))
        except TypeError:
            key = None  # no memo key: computed afresh (no table holds None)
        known = table.get(key)
        if known is None:
            known = tuple(_argument_findings(spec, name, value, index, args))
            if key is not None:
                if len(table) >= LIMIT:
                    table.clear()
                table[key] = known
        return known, not requires
    catalog = index.catalog
    spec = catalog.by_name.get(name)
    if spec is not None:  # computed afresh (memo=False)
        return tuple(_argument_findings(spec, name, value, index, args)), True
    # An unknown argument's finding depends on its name and value (a rename's fix carries it) and on the
    # release history it is explained against: reused when they recur.
    hist = history_index(history)
    outcomes: dict[tuple[Any, ...], Any] = index.outcomes if memo else {}
    # (A HistoryIndex is a Mapping, compared by content: the key holds its id, the entry the index itself,
    # checked on use, so an id reused by a later index never matches.)
    try:
        unknown_key: tuple[Any, ...] | None = (_UNKNOWN_ARG, name, _number(name, value, numbers), id(hist))
    except TypeError:
        unknown_key = None
    known_unknown = outcomes.get(unknown_key) if unknown_key is not None else None
    if known_unknown is not None and known_unknown[0] is hist:
        return (known_unknown[1],), False
    finding = _unknown(name, value, index, hist)
    if unknown_key is not None:
        if len(outcomes) >= LIMIT:
            outcomes.clear()
        outcomes[unknown_key] = (hist, finding)
    return (finding,), False


# The catalog checks of one profile's arguments, made in the rules' pass over them
# (``rules.plan._ReleasePlan.inputs``) rather than in a pass of their own: the catalog's index, the release
# history and the list that receives the findings in the arguments' order (as ``check_catalog`` gives them).
ArgumentChecks = tuple[CatalogIndex, Mapping[str, Catalog] | None, list[Finding]]


def scalar_outcome(
    index: CatalogIndex, name: str, value: str | int | bool, args: Mapping[str, Any]
) -> tuple[tuple[Finding, ...], int]:
    """The findings of a known argument with a str, int or bool value none of whose checks requires another
    argument, and the value's number (``memo.number``): both kept in its memo table under (its table's
    prefix, type, value), so that the engine's pass over a profile's arguments gets the number the rules key
    their outcomes with from the same lookup (``rules.plan._ReleasePlan.inputs``)."""
    spec, table, prefix, _requires = index.memo_entries[name]
    key = (prefix, type(value), value)
    outcome = table.get(key)
    if outcome is None:
        outcome = (tuple(_argument_findings(spec, name, value, index, args)), number_of(value))
        if len(table) >= LIMIT:
            table.clear()
        table[key] = outcome
    return outcome


_NO_NUMBERS: Mapping[str, int] = {}


def _number(name: str, value: Any, numbers: Mapping[str, int]) -> int:
    """The number of an argument's value (``memo.number``): given, else worked out (TypeError: no memo key).
    A value's number never stands for another value, so a key holding it is as exact as its frozen form."""
    found = numbers.get(name)
    return found if found is not None else number_of(value)


def _argument_findings(
    spec: ArgSpec, name: str, value: Any, index: CatalogIndex, args: Mapping[str, Any]
) -> list[Finding]:
    catalog = index.catalog
    findings: list[Finding] = []
    if spec.deprecated:
        findings.append(_deprecated(spec, [name], catalog.version))
    problem = value_problem(spec, value)
    if problem is None and not spec.choices:
        problem = value_set_problem(catalog, args, name, None, value, spec.long_flag)
    if problem:
        findings.append(_finding(RULE_INVALID, "error", problem, [name]))
    elif spec.type == "json" and spec.config_class:
        parsed = _as_json_object(value)
        if parsed is not None:
            findings.extend(_config_findings(spec, parsed, spec.config_class, spec.long_flag, index, args))
    return findings


def value_set_problem(
    catalog: Catalog, args: Mapping[str, Any], argument: str, key: str | None, value: Any, where: str
) -> str | None:
    """vLLM's own message when ``value`` of ``argument`` (or of ``key`` inside its JSON config) is not in
    the value set vLLM checks it against at start-up (``catalog.value_checks``), else None."""
    check = catalog.checks_by_target.get((argument, key))
    if check is None or value is None or value == "" or isinstance(value, bool | dict | list | tuple):
        return None
    if check.get("requires") and not args.get(check["requires"]):
        return None
    accepted, member_values = catalog_index(catalog).value_texts(argument, key)
    text = str(value)
    probe = text.upper() if check.get("case") == "upper" else text
    if probe in accepted or (not isinstance(value, float) and text in member_values):
        return None
    entry = catalog.value_sets[check["set"]]
    members = entry.get("members") or {}
    message = check.get("message")
    if message:
        return message.replace("{value!r}", repr(value)).replace("{value}", text)
    ordered = [members.get(name) for name in entry.get("values") or ()]  # definition order
    numbers = [v for v in ordered if isinstance(v, int) and not isinstance(v, bool)]
    if numbers and len(numbers) == len(ordered):  # an IntEnum field: pydantic's enum error
        listed = ", ".join(str(n) for n in numbers[:-1]) + f" or {numbers[-1]}" if len(numbers) > 1 else ""
        return f"{where}: Input should be {listed or numbers[0]}"
    return f"{where}: invalid choice: {value!r} (choose from {_choices_text(entry.get('values') or ())})"


def _deprecated(spec: ArgSpec, fields: list[str], version: str, where: str | None = None) -> Finding:
    where = where or spec.long_flag
    message, detail = deprecation_words(spec, where, version)
    return _finding(
        RULE_DEPRECATED,
        "warning",
        message,
        fields,
        solutions=(f"Stop using {where} before the release that removes it.",),
        message_detail=detail,
    )


# An item of an option list that vLLM's help marks deprecated: - "mori": ... (deprecated; use "x")
_DEPRECATED_ITEM = re.compile(r'- ("[^"]+"):[^"]*?\(deprecated[;,:]?\s*([^)]*)\)')


def deprecation_words(spec: ArgSpec, where: str, version: str) -> tuple[str, str | None]:
    """(the deprecation's first full sentence, vLLM's whole text or None): the catalog's deprecation text
    may be a piece of the argument's help cut at an abbreviation (``(e.g.``); the help completes it."""
    text = spec.deprecation
    if not text:
        return f"{where} is deprecated in vLLM {version}", None
    full = flatten(spec.help or "")
    start = full.find(text[:60])
    if start >= 0 and len(full) - start > len(text):
        text = full[start:]
    items = _DEPRECATED_ITEM.findall(text)
    if items and not re.search(r"\bis deprecated\b|\[deprecated\]", text, re.IGNORECASE):
        listed = ", ".join(f"{value} ({why})" if why else value for value, why in items)
        return f"Some values of {where} are deprecated in vLLM {version}: {listed}.", full or text
    if len(text) <= SHORT_TEXT and first_sentence(text) is not None:
        return text, None  # a sentence or two: the message as vLLM wrote it
    summary, whole = summarise(text)
    return summary, (full if whole and start >= 0 else whole)


SHORT_TEXT = 240  # characters of a deprecation text shown whole


def _unknown(name: str, value: Any, index: CatalogIndex, history: Mapping[str, Catalog] | None) -> Finding:
    catalog = index.catalog
    flag = _flag(name)
    hist = history_index(history)
    removal = hist.removal(name, catalog) if hist is not None else None
    if removal is not None:
        nested = None
        if not removal.replacement and name in index.nested_fields:
            # e.g. --num-speculative-tokens (gone in 0.8.3) is now --speculative-config.num_speculative_tokens
            nested = f"{catalog.by_name[index.nested_fields[name][0][0]].long_flag}.{name}"
        return _removed(flag, name, value, removal, catalog, nested=nested)
    known = _known_removal(name, catalog)
    if known is not None:
        return _removed(flag, name, value, known, catalog)
    message = f"unrecognized argument {flag} for vLLM {catalog.version}"
    solutions: list[str] = []
    fix = None
    newer = hist.added_later(name, catalog) if hist is not None else None
    if newer:
        message += f" (it was added in vLLM {newer})"
        solutions.append(f"Target vLLM {newer} or later, or remove {flag}.")
    suggestion = None if newer else did_you_mean(flag, catalog)
    if suggestion:
        message += f"; did you mean {suggestion}?"
        solutions.append(f"Use {suggestion}.")
        fix = _rename_fix(name, value, catalog.by_flag[suggestion], suggestion)
    elif not newer and name in index.nested_fields:
        arg_name, _cls = index.nested_fields[name][0]
        where = f"{catalog.by_name[arg_name].long_flag}.{name}"
        message += f"; {name} is a field of {catalog.by_name[arg_name].long_flag}: did you mean {where}?"
        solutions.append(f"Use {where}.")
    return _finding(RULE_UNKNOWN, "error", message, [name], solutions=tuple(solutions), fix=fix)


def _rename_fix(name: str, value: Any, spec: ArgSpec, option: str) -> dict[str, Any] | None:
    """``{"unset": [typo], "set": {name: value}}`` when the value fits the suggested argument as given."""
    if option in spec.negative_flags:
        if value is True:
            return {"unset": [name], "set": {spec.name: False}}
        return None
    if value_problem(spec, value) is not None:
        return None
    return {"unset": [name], "set": {spec.name: value}}


def _known_removal(name: str, catalog: Catalog) -> Removal | None:
    """The upgrade path's record of an argument removed before ``catalog``'s release (``REPLACEMENTS``), for a
    history that does not reach back to it."""
    from .upgrade import REPLACEMENTS  # only a removed argument needs it

    known = REPLACEMENTS.get(name)
    if known is None or known.removed_in is None or _version(known.removed_in) > _version(catalog.version):
        return None
    return Removal(name, "", known.removed_in, ArgSpec(name, (_flag(name),)), None)


def _removed(
    flag: str, name: str, value: Any, removal: Removal, catalog: Catalog, *, nested: str | None = None
) -> Finding:
    """The release an argument went in and what replaces it: the upgrade path's ``REPLACEMENTS`` first
    (with its rewrite of the value as the fix), else what the catalogs and vLLM's texts say."""
    from .upgrade import REPLACEMENTS, replacement_fix

    last = f" (last present in {removal.last_with})" if removal.last_with else ""
    message = (
        f"{flag} was removed in vLLM {removal.removed_in}{last}; "
        f"vLLM {catalog.version} refuses it as an unrecognized argument"
    )
    solutions: list[str] = []
    fix: dict[str, Any] = {"unset": [name]}
    known = REPLACEMENTS.get(name)
    if known is not None:
        message += f"; what replaces it: {known.note}" + (f" (use {nested})" if nested else "")
        fix = replacement_fix(name, value, catalog)
        changes = ", ".join(catalog.by_name[k].long_flag for k in fix.get("set") or ())
        solutions.append(f"Remove {flag}" + (f" and set {changes} instead" if changes else "") + ".")
    elif removal.replacement:
        message += f"; use {removal.replacement} instead"
        solutions.append(f"Use {removal.replacement} instead.")
        target = catalog.by_flag.get(removal.replacement)
        usable = target is not None and removal.replacement not in target.negative_flags
        if usable and value_problem(target, value) is None:
            fix = {"unset": [name], "set": {target.name: value}}
    elif nested:
        message += f"; use {nested} instead"
        solutions.append(f"Use {nested} instead.")
    if removal.spec.deprecation:
        solutions.append(f"vLLM {removal.last_with} said: {removal.spec.deprecation}")
    if removal.last_with:
        solutions.append(f"Remove {flag}, or pin the profile to vLLM {removal.last_with}.")
    elif known is None:
        solutions.append(f"Remove {flag}.")
    return _finding(RULE_REMOVED, "error", message, [name], solutions=tuple(solutions), fix=fix)


# ---- values

_TRUE_WORDS = {"1", "true", "t", "yes", "y", "on"}
_FALSE_WORDS = {"0", "false", "f", "no", "n", "off"}
_HUMAN_INT = re.compile(r"^\s*-?\d+(\.\d+)?\s*[kKmMgGtT]?\s*$")
_NUMBER = re.compile(r"^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$")


def _is_int(value: Any, spec: ArgSpec, lax: bool) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, str) and spec.human_readable_int and _HUMAN_INT.match(value):
        return True
    if lax:
        if isinstance(value, float):
            return value.is_integer()
        if isinstance(value, str):
            return bool(re.match(r"^\s*[-+]?\d+\s*$", value))
    return False


def _is_type(value: Any, kind: str, spec: ArgSpec, lax: bool) -> bool:
    """Whether ``value`` is of the catalog type ``kind``; ``lax`` follows pydantic's lax coercion (config
    keys), strict follows what ``vllm serve``'s argparse types produce (top-level arguments)."""
    if kind == "int":
        return _is_int(value, spec, lax)
    if kind == "float":
        if isinstance(value, bool):
            return False
        return isinstance(value, int | float) or (
            lax and isinstance(value, str) and bool(_NUMBER.match(value))
        )
    if kind == "bool":
        if isinstance(value, bool):
            return True
        if lax and isinstance(value, int):
            return value in (0, 1)
        return lax and isinstance(value, str) and value.strip().lower() in _TRUE_WORDS | _FALSE_WORDS
    if kind == "str":
        # The catalog types unions such as ``int | str`` as str: refuse only what no union of scalars takes.
        return not isinstance(value, dict | list | tuple) and (lax or not isinstance(value, bool))
    if kind == "list":
        return isinstance(value, list | tuple)
    return True  # json: checked by the caller


def _as_json_object(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            parsed = json.loads(value)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None
    return None


def _choices_text(choices: Iterable[Any]) -> str:
    return ", ".join(repr(c) for c in choices)


def value_problem(spec: ArgSpec, value: Any, *, lax: bool = False, where: str | None = None) -> str | None:
    """Why vLLM would refuse this value for this argument (or config field, ``lax``), or None."""
    flag = where or spec.long_flag
    if value is None:
        if spec.nullable or spec.type in ("json", "str") or spec.default is None:
            return None
        if spec.choices and None in spec.choices:
            return None
        return f"{flag} needs a value"
    if isinstance(value, str) and value in spec.special_values:
        return None
    if str(value) in spec.special_values and not isinstance(value, bool):
        return None
    kind = spec.type
    if kind == "json":
        if spec.config_class:
            if isinstance(value, dict):
                return None
            if isinstance(value, str) and spec.json_or_str:
                return str_check_problem(spec, value, flag)
            if isinstance(value, str):
                if _as_json_object(value) is not None:
                    return None
                return f"argument {flag}: invalid JSON object: {value!r}"
            return f"argument {flag}: expected a JSON object, got {value!r}"
        if spec.dict_check:
            return dict_check_problem(spec.dict_check, value, flag)
        if isinstance(value, str) and spec.str_refused:
            # the parser keeps a non-JSON string; the config's pydantic validation refuses it
            return f"{spec.name}.{spec.str_refused}: Input should be a valid dictionary"
        return None  # free-form JSON (dicts, lists, strings): vLLM takes it as given
    if not _is_type(value, kind, spec, lax) or (
        spec.str_check is not None and spec.str_check.get("strict") and not isinstance(value, str)
    ):
        return f"argument {flag}: invalid {kind} value: {value!r}"
    if spec.str_check is not None and isinstance(value, str):
        return str_check_problem(spec, value, flag)
    items = list(value) if kind == "list" else [value]
    if kind == "list" and spec.item_type and spec.item_type != "str":
        for item in items:
            if item is not None and not _is_type(item, spec.item_type, spec, lax):
                return f"argument {flag}: invalid {spec.item_type} value: {item!r}"
    if spec.choices:
        allowed, allowed_text, bool_choices = spec.allowed_choices
        for item in items:
            if item is None and (spec.nullable or None in spec.choices):
                continue
            if item in allowed and isinstance(item, bool) == bool_choices:
                continue
            if not isinstance(item, bool) and str(item) in allowed_text:
                continue
            return f"argument {flag}: invalid choice: {item!r} (choose from {_choices_text(allowed)})"
    if spec.bounds and kind in ("int", "float"):
        try:
            number = float(value) if not isinstance(value, int | float) else value
        except (TypeError, ValueError):
            return None  # a human-readable int such as '32k': the parser gives the number
        for op, limit in spec.bounds.items():
            ok = {"gt": number > limit, "ge": number >= limit, "lt": number < limit, "le": number <= limit}
            if not ok.get(op, True):
                words = {"gt": "greater than", "ge": "at least", "lt": "less than", "le": "at most"}[op]
                return f"{flag} must be {words} {limit}, got {value}"
    return None


_PYDANTIC_PREFIXES = {"ValueError": "Value error, ", "AssertionError": "Assertion failed, "}


def str_check_problem(spec: ArgSpec, value: str, flag: str) -> str | None:
    """vLLM's validator's message when it refuses the name ``value`` (``spec.str_check``), else None."""
    check = spec.str_check
    if not check:
        return None
    refused = (check.get("refused") or {}).get(value)
    if refused is not None:
        return f"argument {flag}: {_PYDANTIC_PREFIXES.get(check.get('class') or '', '')}{refused}"
    if value in (check.get("values") or ()) or not check.get("message"):
        return None
    return _validator_problem(check, flag, value=value)


def _validator_problem(refusal: Mapping[str, str], flag: str, key: str = "", value: Any = None) -> str:
    text = (
        refusal["message"]
        .replace("{key}", key)
        .replace("{value!r}", repr(value))
        .replace("{value}", str(value))
    )
    # pydantic reports a validator's ValueError as "Value error, <message>"; any other class escapes it as is
    return f"argument {flag}: {_PYDANTIC_PREFIXES.get(refusal.get('class') or '', '')}{text}"


def dict_check_problem(check: Mapping[str, Any], value: Any, flag: str) -> str | None:
    """vLLM's validator's message when it refuses this JSON value of an object field (``dict_check``)."""
    if not isinstance(value, dict):
        refusal = (check.get("types") or {}).get(type(value).__name__)
        return _validator_problem(refusal, flag, value=value) if refusal else None
    items = check.get("items") or {}
    for key, item in value.items():
        if isinstance(item, str):
            refusal = (items.get("refused") or {}).get(item)
            if refusal is None and item not in (items.get("values") or (item,)):
                refusal = items.get("message")
        else:
            refusal = (items.get("types") or {}).get(type(item).__name__)
        if refusal:
            return _validator_problem(refusal, flag, str(key), item)
    return None


def _config_findings(
    arg: ArgSpec,
    value: Mapping[str, Any],
    config_class: str,
    where: str,
    index: CatalogIndex,
    args: Mapping[str, Any],
    depth: int = 0,
) -> list[Finding]:
    fields = index.config_fields.get(config_class)
    if not fields or depth > 8:
        return []
    findings: list[Finding] = []
    version = index.catalog.version
    for key, item in value.items():
        path = f"{where}.{key}"
        spec = fields.get(str(key))
        if spec is None:
            close = index.field_names(config_class).nearest(str(key))
            hint = f"; did you mean {close!r}?" if close else ""
            findings.append(
                _finding(
                    RULE_UNKNOWN_KEY,
                    "error",
                    f"{where}: {config_class} has no field {key!r} in vLLM {version}{hint}",
                    [arg.name],
                    solutions=(f"Use {where}.{close}.",) if close else (),
                )
            )
            continue
        if spec.deprecated:
            findings.append(_deprecated(spec, [arg.name], version, where=path))
        problem = value_problem(spec, item, lax=True, where=path)
        if problem is None and depth == 0 and not spec.choices:
            problem = value_set_problem(index.catalog, args, arg.name, str(key), item, path)
        if problem:
            findings.append(_finding(RULE_INVALID_KEY, "error", problem, [arg.name]))
        elif spec.type == "json" and spec.config_class and isinstance(item, dict):
            findings.extend(_config_findings(arg, item, spec.config_class, path, index, args, depth + 1))
        elif spec.dict_check and isinstance(item, dict):
            # the object items its validator lets through are built as a config class (0.34.0's QuantSpec)
            item_class = (spec.dict_check.get("items") or {}).get("config_class")
            for name, target in item.items() if item_class else ():
                if isinstance(target, dict):
                    where_item = f"{path}.{name}"
                    findings.extend(
                        _config_findings(arg, target, item_class, where_item, index, args, depth + 1)
                    )
    return findings


# JSON arguments that EngineArgs keeps as plain dicts (``dict[str, Any] | None``): vLLM builds their config
# class while building its configuration (``create_speculative_config``), so a bad key or value inside them is
# refused there, not by argparse (the other config classes' JSON is parsed into the class by argparse).
CONFIG_STAGE_JSON = frozenset({"speculative_config", "watermark_config"})


def startup_check(finding: Finding, catalog: Catalog, args: Mapping[str, Any]) -> str | None:
    """Which of vLLM's start-up value checks a catalog finding reports, if it reports one: ``argument`` (its
    value is not in the set vLLM checks it against while building its configuration, or a string where its
    config field takes a dictionary) or ``argument.key`` (the same for a key of its JSON value), or
    ``argument`` for any other problem inside the JSON of an argument vLLM keeps as a dict until it builds its
    configuration (``CONFIG_STAGE_JSON``: an unknown key, a value out of bounds). None for
    the checks of the command line itself (unknown arguments, types, argparse's choices, bounds), which
    argparse makes before any configuration is built. vLLM makes a start-up check where its configuration
    reaches it: between the rules' checks, not before them (``startup_order``)."""
    if (
        finding.category != "catalog"
        or finding.rule not in (RULE_INVALID, RULE_INVALID_KEY, RULE_UNKNOWN_KEY)
        or not finding.fields
    ):
        return None
    name = finding.fields[0]
    spec = catalog.by_name.get(name)
    if spec is None:
        return None
    value = args.get(name)
    if finding.rule == RULE_INVALID:
        if (
            spec.str_refused
            and finding.message == f"{spec.name}.{spec.str_refused}: Input should be a valid dictionary"
        ):
            return name
        if (
            not spec.choices
            and value_set_problem(catalog, args, name, None, value, spec.long_flag) == finding.message
        ):
            return name
        return None
    if finding.rule == RULE_UNKNOWN_KEY:
        return name if name in CONFIG_STAGE_JSON else None
    if isinstance(value, str):
        value = _as_json_object(value)
    if not isinstance(value, dict):
        return None
    for key, item in value.items():
        if (name, str(key)) in catalog.checks_by_target:
            path = f"{spec.long_flag}.{key}"
            if value_set_problem(catalog, args, name, str(key), item, path) == finding.message:
                return f"{name}.{key}"
    return name if name in CONFIG_STAGE_JSON else None
