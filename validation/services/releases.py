"""vLLM releases, their argument catalogs and the fleet's default release."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from django.utils import timezone
from packaging.version import InvalidVersion, Version

from ..engine.catalog import Catalog
from ..models import FleetSettings, VllmRelease
from .errors import DomainError, UnknownRelease

CATALOG_DIR = Path(__file__).resolve().parents[1] / "catalogs"
# The releases the product knows even without a catalog (issue: 0.20.0 to 0.33.0, patch releases included).
KNOWN_RELEASES = (
    "0.20.0 0.20.1 0.20.2 0.21.0 0.22.0 0.22.1 0.23.0 0.24.0 0.25.0 0.25.1 0.26.0 "
    "0.27.0 0.27.1 0.28.0 0.29.0 0.30.0 0.31.0 0.32.0 0.33.0"
).split()


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
