"""Write-side business logic of validation: releases, rule sets, verdicts.

Also the bridge between the database and the pure engine: compiled rule sets and parsed catalogs are cached
per process, keyed so that a change in the database is never served stale.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone
from packaging.version import InvalidVersion, Version

from .engine import lint as engine_lint
from .engine.catalog import Catalog
from .engine.rules import CompiledRuleSet, compile_ruleset, load_pack
from .engine.types import EngineError, Verdict
from .models import FleetSettings, Rule, RuleSet, VerdictChange, VllmRelease
from .models import Verdict as VerdictRecord

CATALOG_DIR = Path(__file__).resolve().parent / "catalogs"
BUILTIN_PACK = Path(__file__).resolve().parent / "rulepacks" / "builtin.yaml"
# The releases the product knows even without a catalog (issue: 0.20.0 to 0.33.0, patch releases included).
KNOWN_RELEASES = (
    "0.20.0 0.20.1 0.20.2 0.21.0 0.22.0 0.22.1 0.23.0 0.24.0 0.25.0 0.25.1 0.26.0 "
    "0.27.0 0.27.1 0.28.0 0.29.0 0.30.0 0.31.0 0.32.0 0.33.0"
).split()


class DomainError(Exception):
    """An error a user caused and can fix; the API turns it into a 400 naming ``field``."""

    def __init__(self, message: str, *, field: str | None = None, code: str = "invalid"):
        self.message = message
        self.field = field
        self.code = code
        super().__init__(message)


class UnknownRelease(DomainError):
    def __init__(self, version: str):
        known = ", ".join(r.version for r in VllmRelease.objects.order_by("major", "minor", "patch"))
        super().__init__(
            f"unknown vLLM release {version!r}; known releases: {known}", field="vllm_version", code="unknown"
        )


# --- releases -------------------------------------------------------------------------------------------


def release_get(version: str) -> VllmRelease:
    release = VllmRelease.objects.filter(version=str(version).strip()).first()
    if release is None:
        raise UnknownRelease(str(version))
    return release


def release_ensure(*, version: str) -> VllmRelease:
    try:
        parsed = Version(version)
    except InvalidVersion as exc:
        raise DomainError(f"not a vLLM version: {version!r}", field="vllm_version") from exc
    release, _ = VllmRelease.objects.get_or_create(
        version=version, defaults={"major": parsed.major, "minor": parsed.minor, "patch": parsed.micro}
    )
    return release


def release_store_catalog(*, release: VllmRelease, catalog: dict[str, Any]) -> bool:
    """Store a release's catalog; returns True if it changed (so callers can start a re-check)."""
    digest = catalog_digest(catalog)
    if release.catalog_sha256 == digest:
        return False
    release.catalog = catalog
    release.catalog_sha256 = digest
    release.source = catalog.get("source") or {}
    release.imported_at = timezone.now()
    release.save(update_fields=["catalog", "catalog_sha256", "source", "imported_at"])
    return True


def catalog_digest(catalog: Mapping[str, Any]) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(catalog, sort_keys=True).encode()).hexdigest()


def releases_load_builtin() -> list[VllmRelease]:
    """Create the known releases and load the shipped catalogs (idempotent; used by migrate)."""
    shipped = {p.stem: p for p in CATALOG_DIR.glob("*.json")}
    versions = sorted(set(KNOWN_RELEASES) | set(shipped), key=Version)
    releases = []
    for version in versions:
        release = release_ensure(version=version)
        if version in shipped:
            release_store_catalog(release=release, catalog=json.loads(shipped[version].read_text()))
        releases.append(release)
    if not FleetSettings.objects.exists():
        newest_known = max(KNOWN_RELEASES, key=Version)
        FleetSettings.objects.create(default_release=VllmRelease.objects.get(version=newest_known))
    return releases


def fleet_release() -> VllmRelease:
    fleet = FleetSettings.objects.select_related("default_release").first()
    if fleet is None:
        raise DomainError("no fleet default vLLM release is set; run `python manage.py migrate`")
    return fleet.default_release


_catalog_cache: dict[int, tuple[str, Catalog]] = {}
_cache_lock = threading.Lock()


def catalog_for(release: VllmRelease) -> Catalog | None:
    if not release.catalog_sha256:
        return None
    cached = _catalog_cache.get(release.pk)
    if cached and cached[0] == release.catalog_sha256:
        return cached[1]
    data = release.catalog
    if data is None:  # deferred field
        data = VllmRelease.objects.values_list("catalog", flat=True).get(pk=release.pk)
    catalog = Catalog.from_dict(data)
    with _cache_lock:
        _catalog_cache[release.pk] = (release.catalog_sha256, catalog)
    return catalog


class CatalogHistory(Mapping[str, Catalog]):
    """Every release's catalog, loaded on first use (only needed to explain an unknown argument)."""

    def __init__(self) -> None:
        self._data: dict[str, Catalog] | None = None

    def _load(self) -> dict[str, Catalog]:
        if self._data is None:
            releases = VllmRelease.objects.exclude(catalog_sha256="").defer("catalog")
            self._data = {r.version: c for r in releases if (c := catalog_for(r)) is not None}
        return self._data

    def __getitem__(self, key: str) -> Catalog:
        return self._load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


# --- rule sets ------------------------------------------------------------------------------------------

RULE_FIELDS = (
    "title category severity message when versions kinds fields needs solutions tips tags example_fix docs "
    "source error_class fix enabled"
).split()


def ruleset_current() -> RuleSet:
    ruleset = RuleSet.objects.filter(status=RuleSet.Status.PUBLISHED).order_by("-number").first()
    if ruleset is None:
        raise DomainError("no published rule set; run `python manage.py migrate`")
    return ruleset


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


@transaction.atomic
def ruleset_create_from_pack(
    *, pack: Mapping[str, Any], publish: bool = False, user=None, notes: str = ""
) -> RuleSet:
    """A new rule set holding the pack's rules; published at once if asked (migrate does this)."""
    data = load_pack(pack)
    compile_ruleset(data)  # refuse a pack whose CEL does not compile, naming the rule
    number = (RuleSet.objects.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    ruleset = RuleSet.objects.create(
        number=number,
        notes=notes or str(data.get("description") or data.get("pack") or ""),
        derived=data.get("derived") or [],
        defaults=data.get("defaults") or [],
        created_by=user,
    )
    Rule.objects.bulk_create(
        Rule(ruleset=ruleset, position=i, rule_id=raw["id"], **_rule_columns(raw))
        for i, raw in enumerate(data.get("rules") or [])
    )
    if publish:
        ruleset.status = RuleSet.Status.PUBLISHED
        ruleset.published_at = timezone.now()
        ruleset.published_by = user
        ruleset.save(update_fields=["status", "published_at", "published_by"])
    return ruleset


def _rule_columns(raw: Mapping[str, Any]) -> dict[str, Any]:
    columns: dict[str, Any] = {}
    for name in RULE_FIELDS:
        value = raw.get(name)
        if name == "enabled":
            columns[name] = value is not False
        elif name in ("kinds", "fields", "needs", "solutions", "tips", "tags"):
            columns[name] = list(value or [])
        elif name == "fix":
            columns[name] = value
        else:
            columns[name] = "" if value is None else str(value).strip() if name != "when" else str(value)
    return columns


def ruleset_load_builtin() -> RuleSet | None:
    """Load the shipped pack as the first published rule set (idempotent; used by migrate)."""
    if RuleSet.objects.exists():
        return None
    return ruleset_create_from_pack(pack=load_pack(BUILTIN_PACK), publish=True, notes="built-in rule pack")


_compiled_cache: dict[int, tuple[Any, CompiledRuleSet]] = {}


def ruleset_compiled(ruleset: RuleSet) -> CompiledRuleSet:
    """Compile once per rule set version (drafts: once per edit)."""
    key = ruleset.updated_at
    cached = _compiled_cache.get(ruleset.pk)
    if cached and cached[0] == key:
        return cached[1]
    compiled = compile_ruleset(ruleset_pack(ruleset), version_id=ruleset.number)
    with _cache_lock:
        _compiled_cache[ruleset.pk] = (key, compiled)
    return compiled


# --- validation -----------------------------------------------------------------------------------------


def document_validate(
    doc: Mapping[str, Any],
    *,
    release: VllmRelease,
    ruleset: RuleSet | None = None,
    waived: Iterable[str] = (),
) -> Verdict:
    ruleset = ruleset or ruleset_current()
    try:
        return engine_lint.validate(
            doc,
            ruleset=ruleset_compiled(ruleset),
            catalog=catalog_for(release),
            history=CatalogHistory(),
            waived=waived,
        )
    except EngineError as exc:
        raise DomainError(str(exc)) from exc


def verdict_record(
    *,
    profile,
    verdict: Verdict,
    release: VllmRelease,
    ruleset_number: int | None,
    cause: str,
    cause_detail: str = "",
    actor=None,
    recheck=None,
) -> VerdictChange | None:
    """Store a profile's current verdict; record a history entry if its state or findings changed."""
    ruleset = RuleSet.objects.filter(number=ruleset_number).first() if ruleset_number else None
    active = [f for f in verdict.findings if not f.waived and f.severity in ("error", "warning")]
    new_ids = sorted({f.rule for f in active})
    previous = VerdictRecord.objects.filter(profile=profile).first()
    old_state = previous.state if previous else ""
    old_findings = {(f["rule"], f["message"]): f for f in (previous.findings if previous else [])}
    new_findings = {(f.rule, f.message): f.as_dict() for f in active}
    values = {
        "state": verdict.state,
        "error_count": sum(1 for f in active if f.severity == "error"),
        "warning_count": sum(1 for f in active if f.severity == "warning"),
        "findings": [f.as_dict() for f in verdict.findings],
        "rule_ids": new_ids,
        "ruleset": ruleset,
        "release": release,
        "release_catalog_sha256": release.catalog_sha256,
        "profile_revision": profile.revision,
    }
    VerdictRecord.objects.update_or_create(profile=profile, defaults=values)
    old_active = {k: v for k, v in old_findings.items() if v.get("severity") in ("error", "warning")}
    old_active = {k: v for k, v in old_active.items() if not v.get("waived")}
    appeared = [v for k, v in new_findings.items() if k not in old_active]
    disappeared = [v for k, v in old_active.items() if k not in new_findings]
    if previous is not None and old_state == verdict.state and not appeared and not disappeared:
        return None
    return VerdictChange.objects.create(
        profile=profile,
        from_state=old_state,
        to_state=verdict.state,
        cause=cause,
        cause_detail=cause_detail,
        ruleset=ruleset,
        release=release,
        profile_revision=profile.revision,
        appeared=appeared,
        disappeared=disappeared,
        recheck=recheck,
        actor=actor,
    )


@transaction.atomic
def builtin_data_load() -> None:
    """Releases, shipped catalogs and the built-in rule pack; idempotent (run after every migrate)."""
    releases_load_builtin()
    ruleset_load_builtin()
