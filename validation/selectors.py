"""Read-side queries of validation: releases and their catalogs, the fleet's release, rule sets.

Parsed catalogs and compiled rule sets are kept in this process's memory, keyed by the catalog's digest and
the rule set's last change, so a change in the database is never served stale.

The reference data every validation reads (the releases, the fleet's release, the current rule set) is kept
in memory too, behind a stamp read from the database in one query of a few index lookups
(:func:`reference`): a validation, an admission review or a save pins one reference for its read phase
(:func:`reference_pinned`), so it pays that one query instead of a query per release, fleet and rule set.
The stamp is derived from the rows themselves (the fleet's release id, the current published rule set's id
and last change, every release's id, version and catalog digest), so no writer has to remember to bump it:
whatever commits is seen by the next request, in every process. A time-to-live would be cheaper still but
would serve a superseded rule set or release for its whole length; Redis would add a second service to
consult and a window between the commit and the bump.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.db.models import Q, QuerySet
from packaging.specifiers import InvalidSpecifier, SpecifierSet

from vllmcheck.engine import lint as engine_lint
from vllmcheck.engine import store
from vllmcheck.engine.catalog import Catalog
from vllmcheck.engine.cel_paths import PathIssue, check_paths
from vllmcheck.engine.checks import HistoryIndex
from vllmcheck.engine.rules import CompiledRuleSet, compile_ruleset
from vllmcheck.engine.store import engine_fingerprint

from .errors import DomainError, UnknownRelease
from .models import RULE_FIELDS, FleetSettings, ReleaseCatalog, RuleSet, VllmRelease

_cache_lock = threading.Lock()


# ---- releases and catalogs


def releases_ordered() -> QuerySet[VllmRelease]:
    return VllmRelease.objects.order_by("-major", "-minor", "-patch")


def release_get(version: str) -> VllmRelease:
    pinned = _pinned.get()
    if pinned is not None:
        release = pinned.releases.get(str(version).strip())
    else:
        release = VllmRelease.objects.filter(version=str(version).strip()).first()
    if release is None:
        raise UnknownRelease(str(version))
    return release


def fleet_release() -> VllmRelease:
    pinned = _pinned.get()
    if pinned is not None:
        release = pinned.fleet
    else:
        fleet = FleetSettings.objects.select_related("default_release").first()
        release = fleet.default_release if fleet is not None else None
    if release is None:
        raise DomainError("no fleet default vLLM release is set; run `python manage.py migrate`")
    return release


# ---- the reference data of every validation, cached per process behind a stamp


@dataclass(frozen=True)
class Reference:
    """The releases (by version), the fleet's release and the current published rule set, as of ``stamp``.

    Shared by the threads of a process: read them, never change or save them."""

    stamp: tuple
    releases: Mapping[str, VllmRelease]
    fleet: VllmRelease | None
    ruleset: RuleSet | None

    def part(self, name: str) -> Any:
        """The value of a stamp part registered with :func:`reference_stamp_part`."""
        return self.stamp[_BASE_PARTS + list(_stamp_parts).index(name)]

    def history_key(self) -> frozenset[tuple[str, str]]:
        return frozenset((v, r.catalog_sha256) for v, r in self.releases.items() if r.catalog_sha256)


_reference: Reference | None = None
_pinned: ContextVar[Reference | None] = ContextVar("validation_reference", default=None)
_BASE_PARTS = 4
_stamp_parts: dict[str, Callable[[str], str]] = {}


def reference_stamp_part(name: str, sql: Callable[[str], str]) -> None:
    """Add a part to the stamp: ``sql(vendor)`` is a query of one value that changes whenever the data an
    app above validation caches per process changes (the hub's model configs); read it back with
    :meth:`Reference.part` or :func:`reference_part`. Registered once, at start-up (``AppConfig.ready``)."""
    _stamp_parts[name] = sql


def reference_part(name: str) -> Any:
    """The stamp part ``name`` of the pinned reference; None outside :func:`reference_pinned` (then the
    caller reads the database as it is)."""
    pinned = _pinned.get()
    return pinned.part(name) if pinned is not None else None


def _stamp_columns() -> tuple[str, ...]:
    fleet, ruleset, release = (m._meta.db_table for m in (FleetSettings, RuleSet, VllmRelease))
    row = "id || ':' || version || ':' || catalog_sha256"
    if connection.vendor == "postgresql":
        releases = f"SELECT md5(string_agg({row}, ',' ORDER BY id)) FROM {release}"  # nosec B608  # table names from model metadata; no value
    else:
        releases = f"SELECT group_concat({row}, ',') FROM (SELECT * FROM {release} ORDER BY id)"  # nosec B608  # table names from model metadata; no value
    current = f"FROM {ruleset} WHERE status = 'published' ORDER BY number DESC LIMIT 1"
    return (
        f"SELECT default_release_id FROM {fleet} ORDER BY id LIMIT 1",  # nosec B608  # table names from model metadata; no value
        f"SELECT id {current}",
        f"SELECT updated_at {current}",
        releases,
        *(sql(connection.vendor) for sql in _stamp_parts.values()),
    )


_stamp_built: dict[tuple[str, int], tuple[str, ...]] = {}


def reference_stamp_columns() -> tuple[str, ...]:
    """The stamp as scalar subqueries (no parameters), to be read in another statement that every request
    sends anyway (the API token's: ``accounts.selectors.token_by_digest``'s ``extra``), their values given
    to :func:`reference_pinned` as ``stamp``: one round trip fewer."""
    key = (connection.vendor, len(_stamp_parts))
    columns = _stamp_built.get(key)
    if columns is None:
        columns = _stamp_built[key] = _stamp_columns()
    return columns


@lru_cache(maxsize=8)
def _stamp_statement(columns: tuple[str, ...]) -> str:
    return "SELECT " + ", ".join(f"({column})" for column in columns)


def reference_stamp() -> tuple:
    """What the reference data is now, in one query: changes whenever any of it does."""
    with connection.cursor() as cursor:
        cursor.execute(_stamp_statement(reference_stamp_columns()))
        return tuple(cursor.fetchone())


def reference(stamp: tuple | None = None) -> Reference:
    """The reference data as the database has it now (the pinned one inside :func:`reference_pinned`).
    ``stamp``: the stamp as this request already read it (:func:`reference_stamp_columns`)."""
    global _reference
    pinned = _pinned.get()
    if pinned is not None:
        return pinned
    if stamp is None or len(stamp) != _BASE_PARTS + len(_stamp_parts):
        stamp = reference_stamp()
    current = _reference
    if current is None or current.stamp != stamp:
        # Loaded after the stamp was read: at worst newer than it, and then reloaded by the next request.
        releases = {r.version: r for r in VllmRelease.objects.all()}
        by_id = {r.pk: r for r in releases.values()}
        ruleset = RuleSet.objects.filter(pk=stamp[1]).first() if stamp[1] is not None else None
        current = Reference(stamp=stamp, releases=releases, fleet=by_id.get(stamp[0]), ruleset=ruleset)
        with _cache_lock:
            _reference = current
    return current


@contextmanager
def reference_pinned(stamp: tuple | None = None) -> Iterator[Reference]:
    """Within this block, :func:`release_get`, :func:`fleet_release`, :func:`ruleset_current` and the
    catalogs answer from one :func:`reference` (one query for all; none with a ``stamp`` this request has
    read already). For reads: a block that changes a release, the fleet or the rule set must not be pinned."""
    pinned = _pinned.get()
    if pinned is not None:
        yield pinned
        return
    token = _pinned.set(reference(stamp))
    try:
        yield _pinned.get()
    finally:
        _pinned.reset(token)


_catalog_cache: dict[int, tuple[str, Catalog]] = {}


def catalog_for(release: VllmRelease) -> Catalog | None:
    """The release's parsed catalog (None if it has none), parsed once per process and catalog digest."""
    if not release.catalog_sha256:
        return None
    cached = _catalog_cache.get(release.pk)
    if cached and cached[0] == release.catalog_sha256:
        return cached[1]
    store_key = f"{_STORE_PREFIX}:catalog:{release.catalog_sha256}:{engine_fingerprint()}"
    catalog = _store_get(store_key)
    if not isinstance(catalog, Catalog):
        data = ReleaseCatalog.objects.values_list("data", flat=True).get(release_id=release.pk)
        catalog = Catalog.from_dict(data)
        _store_set(store_key, catalog)
    with _cache_lock:
        _catalog_cache[release.pk] = (release.catalog_sha256, catalog)
    return catalog


_history_cache: dict[frozenset[tuple[str, str]], HistoryIndex] = {}


class CatalogHistory(Mapping[str, Catalog]):
    """Every release's catalog, loaded on first use (only needed to explain an unknown argument).

    The engine asks for :meth:`history_index`, built once per set of (release, catalog digest) and shared by
    every request of the process until a catalog changes."""

    def __init__(self) -> None:
        self._data: dict[str, Catalog] | None = None

    def _load(self) -> dict[str, Catalog]:
        if self._data is None:
            pinned = _pinned.get()
            if pinned is not None:
                releases = [r for r in pinned.releases.values() if r.catalog_sha256]
            else:
                releases = VllmRelease.objects.exclude(catalog_sha256="")
            self._data = {r.version: c for r in releases if (c := catalog_for(r)) is not None}
        return self._data

    def __getitem__(self, key: str) -> Catalog:
        return self._load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def history_index(self) -> HistoryIndex:
        pinned = _pinned.get()
        if pinned is not None:
            key = pinned.history_key()
        else:
            key = frozenset(
                VllmRelease.objects.exclude(catalog_sha256="").values_list("version", "catalog_sha256")
            )
        index = _history_cache.get(key)
        if index is None:
            index = HistoryIndex(self._load())
            with _cache_lock:
                _history_cache.clear()  # only the current set of catalogs is ever asked for again
                _history_cache[key] = index
        return index


# ---- rule sets


def rulesets_ordered() -> QuerySet[RuleSet]:
    return RuleSet.objects.order_by("-number")


def ruleset_current() -> RuleSet:
    pinned = _pinned.get()
    if pinned is not None:
        ruleset = pinned.ruleset
    else:
        ruleset = RuleSet.objects.filter(status=RuleSet.Status.PUBLISHED).order_by("-number").first()
    if ruleset is None:
        raise DomainError("no published rule set; run `python manage.py migrate`")
    return ruleset


def ruleset_numbered(number: int) -> RuleSet | None:
    """The rule set numbered ``number`` (the pinned current one without a query), None if there is none."""
    pinned = _pinned.get()
    if pinned is not None and pinned.ruleset is not None and pinned.ruleset.number == number:
        return pinned.ruleset
    return RuleSet.objects.filter(number=number).first()


def ruleset_pack(ruleset: RuleSet) -> dict[str, Any]:
    """The rule set as a pack dict (the engine's input and the YAML export)."""
    rules = []
    for rule in ruleset.rules.all().order_by("position", "id"):
        data: dict[str, Any] = {"id": rule.rule_id}
        for name in RULE_FIELDS:
            value = getattr(rule, name)
            if value not in (None, "", []) or name == "enabled":
                data[name] = value
        rules.append(data)
    return {
        "pack": f"ruleset-{ruleset.number}",
        "defaults": ruleset.defaults,
        "derived": ruleset.derived,
        "rules": rules,
    }


# rule set id -> (its version, compiled), least recently used first; at most COMPILED_KEPT of them (a web
# process: the current published one and a draft being edited, say; a worker: one). A compiled rule set
# with its release plans is tens of MB, and each publication compiles a new one: kept for ever, a worker
# would grow with every publication.
_compiled_cache: dict[int, tuple[Any, CompiledRuleSet]] = {}
COMPILED_KEPT = 2
# id of a compiled rule set -> (its key in Django's cache, how many release plans the cache holds of it)
_compiled_stored: dict[int, tuple[str, int]] = {}


def ruleset_compiled(ruleset: RuleSet) -> CompiledRuleSet:
    """Compile once per rule set version (drafts: once per edit).

    A process that has not compiled it yet loads it, with the release plans another process built, from
    Django's cache (``engine.store``: keyed by the pack's content, the engine and the catalogs), and
    compiles it only if no process has; :func:`ruleset_keep_compiled` puts it there."""
    key = ruleset.updated_at
    cached = _compiled_cache.get(ruleset.pk)
    if cached and cached[0] == key:
        if next(reversed(_compiled_cache), None) != ruleset.pk:  # now the most recently used
            with _cache_lock:
                if ruleset.pk in _compiled_cache:
                    _compiled_cache[ruleset.pk] = _compiled_cache.pop(ruleset.pk)
        return cached[1]
    # Room first: compiling (or loading) it beside COMPILED_KEPT others would hold one more at the peak.
    _compiled_evict(ruleset.pk, keep=COMPILED_KEPT - 1)
    pack = ruleset_pack(ruleset)
    # Imported records wait for a person to write their condition; until then they cannot run.
    pack["rules"] = [r for r in pack["rules"] if r.get("when")]
    store_key = _compiled_store_key(pack)
    compiled = _store_get(store_key)
    if isinstance(compiled, CompiledRuleSet) and compiled.version_id == ruleset.number:
        plans = len(compiled._plans)
    else:
        compiled = compile_ruleset(pack, version_id=ruleset.number)
        plans = -1
    _compiled_evict(ruleset.pk, keep=COMPILED_KEPT - 1)
    with _cache_lock:
        _compiled_cache[ruleset.pk] = (key, compiled)
        _compiled_stored[id(compiled)] = (store_key, plans)
    return compiled


def compiled_rulesets_kept(count: int) -> None:
    """How many compiled rule sets this process keeps (``COMPILED_KEPT``, at least one): a Celery worker,
    which runs one at a time, keeps one."""
    global COMPILED_KEPT
    COMPILED_KEPT = max(1, count)
    _compiled_evict(None, keep=COMPILED_KEPT)


def _compiled_evict(pk: int | None, *, keep: int) -> None:
    """Drop rule set ``pk``'s compiled version (an earlier edit of a draft) and the least recently used others
    beyond ``keep``."""
    with _cache_lock:
        dropped = [_compiled_cache.pop(pk, None)]
        while len(_compiled_cache) > keep:
            dropped.append(_compiled_cache.pop(next(iter(_compiled_cache))))
        for entry in dropped:
            if entry is not None:
                _compiled_stored.pop(id(entry[1]), None)


def ruleset_keep_compiled() -> None:
    """Put every rule set this process compiled or planned a new release of into Django's cache, for the
    next process (a web or worker process starting, `manage.py lint`). Never fails: a cache that is down
    only means the next process compiles again."""
    for _key, compiled in list(_compiled_cache.values()):
        store_key, plans = _compiled_stored.get(id(compiled), ("", 0))
        if store_key and len(compiled._plans) > plans:
            data = store.dumps(compiled)
            if data is not None and _store_set(store_key, data):
                _compiled_stored[id(compiled)] = (store_key, len(compiled._plans))


_STORE_PREFIX = "vllm-profiles:engine"
_STORE_TIMEOUT = 30 * 24 * 3600


def _compiled_store_key(pack: Mapping[str, Any]) -> str:
    digest = hashlib.sha256(json.dumps(pack, sort_keys=True, default=str).encode())
    digest.update(engine_fingerprint().encode())
    releases = VllmRelease.objects.exclude(catalog_sha256="").values_list("version", "catalog_sha256")
    digest.update(repr(sorted(releases)).encode())
    return f"{_STORE_PREFIX}:ruleset:{digest.hexdigest()}"


def _store_get(key: str) -> Any:
    try:
        value = cache.get(key)
        return store.loads(value) if isinstance(value, bytes) else value
    except Exception:  # a cache that is down, or holds what this code cannot read: compute instead
        return None


def _store_set(key: str, value: Any) -> bool:
    try:
        cache.set(key, value, _STORE_TIMEOUT)
    except Exception:  # never fail a validation for the cache
        return False
    return True


# ---- rules


def rule_catalogs(versions: str) -> dict[str, Catalog]:
    """``{version: parsed catalog}`` of the releases a rule's PEP 440 range covers (empty range: all), oldest
    first; releases without a catalog are left out. A range that does not parse covers nothing here (the
    rule's own check names it)."""
    try:
        specifier = SpecifierSet(versions or "")
    except InvalidSpecifier:
        return {}
    releases = VllmRelease.objects.exclude(catalog_sha256="").order_by("major", "minor", "patch")
    found = {}
    for release in releases:
        if specifier.contains(release.version, prereleases=True):
            catalog = catalog_for(release)
            if catalog is not None:
                found[release.version] = catalog
    return found


def rule_path_issues(when: str, versions: str) -> list[PathIssue]:
    """What is wrong with the ``args``/``effective``/``env`` paths a rule's condition reads, against the
    catalogs of the releases it applies to (errors and warnings, see ``engine.cel_paths``)."""
    return check_paths(when or "", rule_catalogs(versions))


def warm_up() -> None:
    """Load the reference data, parse the fleet's catalog, compile the current rule set and plan it for the
    fleet's release in this process: the web server calls it once per worker process, before its first
    request, which would otherwise pay seconds for them."""
    with reference_pinned() as current:
        if current.fleet is not None and current.ruleset is not None:
            doc = engine_lint.build_document(
                kind="serving", version=current.fleet.version, model_name="warm-up", args={}
            )
            ruleset_compiled(current.ruleset).evaluate(doc, catalog=catalog_for(current.fleet))
            ruleset_keep_compiled()
    connection.close()  # the request threads open their own connections


# What a collapsed row of the rule-set page shows (and the filters read); the rest loads when it is opened.
RULE_ROW_FIELDS = (
    "ruleset_id",
    "position",
    "rule_id",
    "title",
    "category",
    "severity",
    "message",
    "versions",
    "tags",
    "enabled",
)


def ruleset_rules(
    ruleset: RuleSet,
    *,
    q: str = "",
    category: str = "",
    severity: str = "",
    release: str = "",
    tag: str = "",
) -> list:
    """The rules of a rule set in order, narrowed by a search over id, title and message, a category, a
    severity, a tag, and a release (the rules whose version range covers it)."""
    rules = ruleset.rules.order_by("position", "id").only(*RULE_ROW_FIELDS)
    if q.strip():
        text = q.strip()
        rules = rules.filter(
            Q(rule_id__icontains=text) | Q(title__icontains=text) | Q(message__icontains=text)
        )
    if category:
        rules = rules.filter(category=category)
    if severity:
        rules = rules.filter(severity=severity)
    rules = list(rules)
    if tag:
        rules = [r for r in rules if tag in (r.tags or ())]
    if release:
        rules = [r for r in rules if _covers(r.versions, release)]
    return rules


def _covers(versions: str, release: str) -> bool:
    try:
        return SpecifierSet(versions or "").contains(release, prereleases=True)
    except InvalidSpecifier:
        return False


def ruleset_tags(ruleset: RuleSet) -> list[str]:
    return sorted({t for tags in ruleset.rules.values_list("tags", flat=True) for t in tags or ()})
