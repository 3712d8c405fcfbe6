"""vLLM releases and their argument catalogs: loading, importing, and the reports built on them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from packaging.version import InvalidVersion, Version

from accounts.audit import audit_record
from vllmcheck import CATALOG_DIR
from vllmcheck.engine.catalog import Catalog
from vllmcheck.engine.coverage import rule_coverage
from vllmcheck.engine.diff import diff_catalogs

from ..errors import DomainError
from ..models import FleetSettings, ReleaseCatalog, VllmRelease
from ..recheck_port import recheck_request
from ..selectors import catalog_for, release_get, ruleset_current
from . import shared_cache as cache

# The releases the product knows even without a catalog (issue: 0.20.0 to 0.33.0, patch releases included).
KNOWN_RELEASES = (
    "0.20.0 0.20.1 0.20.2 0.21.0 0.22.0 0.22.1 0.23.0 0.24.0 0.25.0 0.25.1 0.26.0 "
    "0.27.0 0.27.1 0.28.0 0.29.0 0.30.0 0.31.0 0.32.0 0.33.0"
).split()


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
    ReleaseCatalog.objects.update_or_create(release=release, defaults={"data": catalog})
    release.catalog_sha256 = digest
    release.argument_count = len(catalog.get("arguments") or ())
    release.source = catalog.get("source") or {}
    release.imported_at = timezone.now()
    release.save(update_fields=["catalog_sha256", "argument_count", "source", "imported_at"])
    return True


def catalog_digest(catalog: Mapping[str, Any]) -> str:
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


# ---- import, inspection, diff and rule coverage of releases


@dataclass(frozen=True)
class ReleaseImport:
    release: VllmRelease
    created: bool  # the release was not known before
    changed: bool  # its catalog was stored (new, or different from the one it had)
    digest: str
    previous_digest: str  # "" if it had no catalog
    recheck_scheduled: bool  # a re-check of the profiles on this release starts once the import commits


def release_import(*, version: str, catalog: dict[str, Any]) -> ReleaseImport:
    """Store an extracted catalog on its release (created if new).

    An identical catalog (same digest) writes nothing. A changed catalog of a release that existed before
    re-checks the profiles on it, after commit, as any release change does."""
    version = str(version).strip()
    if str(catalog.get("version") or "") != version:
        raise DomainError(
            f"the catalog is of vLLM {catalog.get('version')!r}, not {version!r}", field="vllm_version"
        )
    if not isinstance(catalog.get("arguments"), list) or not catalog["arguments"]:
        raise DomainError("the catalog lists no arguments", field="catalog")
    with transaction.atomic():
        existed = VllmRelease.objects.filter(version=version).exists()
        release = release_ensure(version=version)
        release = VllmRelease.objects.select_for_update().get(pk=release.pk)  # one import at a time
        previous = release.catalog_sha256
        changed = release_store_catalog(release=release, catalog=catalog)
        recheck = changed and existed
        if changed:
            audit_record(
                actor=None,
                action="release.import" if not existed else "release.update",
                object_type="release",
                object_id=release.pk,
                object_repr=version,
                before={"catalog_sha256": previous} if existed else None,
                after={"catalog_sha256": release.catalog_sha256},
            )
        if recheck:
            transaction.on_commit(lambda: _recheck_release(release.pk))
    return ReleaseImport(
        release=release,
        created=not existed,
        changed=changed,
        digest=release.catalog_sha256,
        previous_digest=previous,
        recheck_scheduled=recheck,
    )


def _recheck_release(release_pk: int) -> None:
    recheck_request(cause="release", release=VllmRelease.objects.get(pk=release_pk), actor=None)


def _catalog_data(release: VllmRelease) -> dict[str, Any]:
    data = ReleaseCatalog.objects.filter(release_id=release.pk).values_list("data", flat=True).first()
    if not release.catalog_sha256 or data is None:
        raise DomainError(
            f"vLLM {release.version} has no catalog; run `python manage.py import_vllm_release "
            f"{release.version}`",
            field="vllm_version",
            code="no_catalog",
        )
    return data


_LEADING_KEYS = ("flags", "name", "type", "default", "choices", "deprecated", "deprecation", "help")


def release_catalog_document(release: VllmRelease) -> dict[str, Any]:
    """The ``show_release`` document: ``{"version", "arguments": [{"flags", "name", "type", ...}]}``."""
    data = _catalog_data(release)
    arguments = []
    for raw in data.get("arguments") or []:
        entry = {key: raw.get(key) for key in _LEADING_KEYS}
        entry.update({key: raw[key] for key in sorted(raw) if key not in entry})
        arguments.append(entry)
    return {"version": release.version, "arguments": arguments}


def _release_catalog(version: str) -> Catalog:
    release = release_get(version)
    catalog = catalog_for(release)
    if catalog is None:
        _catalog_data(release)  # raises, naming the import command
    return catalog


def release_diff(*, old: str, new: str) -> dict[str, Any]:
    """What changed from release ``old`` to release ``new`` (engine.diff.diff_catalogs)."""
    return diff_catalogs(_release_catalog(old), _release_catalog(new))


def release_coverage(*, version: str, ruleset=None) -> dict[str, Any]:
    """Which raise-sites of the release's config code the current (or given) rule set checks."""
    catalog = _release_catalog(version)
    ruleset = ruleset or ruleset_current()
    rules = [
        {
            "id": r["rule_id"],
            "category": r["category"],
            "message": r["message"],
            "versions": r["versions"],
            "enabled": r["enabled"],
            "source": r["source"],
            "error_class": r["error_class"],
        }
        for r in ruleset.rules.values(
            "rule_id", "category", "message", "versions", "enabled", "source", "error_class"
        )
    ]
    return {"ruleset": ruleset.number, **rule_coverage(catalog, rules)}


COVERAGE_CACHE_SECONDS = 3600


def release_coverage_current(*, release: VllmRelease) -> dict[str, Any]:
    """:func:`release_coverage` of the current rule set, kept in the cache that web and workers share.

    A pure function of the catalog and the rule set, both immutable under this key (a published rule set
    never changes and a draft is never current), so the report is kept until either changes."""
    ruleset = ruleset_current()
    key = f"validation:coverage:{release.catalog_sha256}:{ruleset.pk}:{ruleset.updated_at.timestamp()}"
    coverage = cache.get(key)
    if coverage is None:
        coverage = release_coverage(version=release.version, ruleset=ruleset)
        cache.set(key, coverage, COVERAGE_CACHE_SECONDS)
    return coverage
