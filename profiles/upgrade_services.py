"""The upgrade path of a profile, and of the fleet: what breaks from a profile's release to a target.

The comparison is :mod:`vllmcheck.engine.upgrade` (pure, over the catalogs); here: which releases lie between,
the profile's arguments and release, and the errors a user sees (an unknown or older target release)."""

from __future__ import annotations

from typing import Any

from packaging.version import InvalidVersion, Version

from validation.errors import DomainError
from validation.selectors import catalog_for, fleet_release, releases_ordered
from vllmcheck.engine.upgrade import fleet_table, releases_between, revision_command, upgrade_path

from .models import Profile


def _catalogs(start: str, target: str) -> list:
    releases = {r.version: r for r in releases_ordered() if r.catalog_sha256}
    if target not in releases:
        raise DomainError(f"to: no catalog for vLLM release {target!r}", field="to")
    try:
        if Version(target) <= Version(start):
            raise DomainError(f"to: {target} is not newer than the profile's release {start}", field="to")
    except InvalidVersion as exc:
        raise DomainError(f"to: not a vLLM version: {target!r}", field="to") from exc
    versions = releases_between(list(releases), start, target)
    if start not in versions:
        raise DomainError(f"the profile's release {start} has no catalog", field="vllm_version")
    return [catalog_for(releases[v]) for v in versions]


def catalog_versions() -> list[str]:
    """The releases with a catalog, oldest first."""
    return sorted((r.version for r in releases_ordered() if r.catalog_sha256), key=Version)


def newest_release() -> str:
    return catalog_versions()[-1]


def profile_release_version(profile: Profile) -> str:
    return (profile.vllm_release or fleet_release()).version


def profile_upgrade_path(profile: Profile, *, target: str) -> dict[str, Any]:
    """What breaks for ``profile`` from its release to ``target``, release by release, with a revision."""
    catalogs = _catalogs(profile_release_version(profile), target)
    path = upgrade_path(profile.engine_args or {}, catalogs)
    path["profile"] = profile.pk
    path["revision"]["command"] = revision_command(profile.model_name, path["revision"]["args"], catalogs[-1])
    return path


def fleet_upgrade_table(profiles, *, target: str) -> dict[str, Any]:
    """Profiles x releases up to ``target``: each cell ok, deprecated, changed or refused."""
    if target not in catalog_versions():
        raise DomainError(f"to: no catalog for vLLM release {target!r}", field="to")
    entries = []
    for profile in profiles:
        start = profile_release_version(profile)
        if Version(start) >= Version(target):
            continue
        entries.append(
            (f"{profile.team.slug}/{profile.name}", profile.engine_args or {}, _catalogs(start, target))
        )
    rows = fleet_table(entries)
    versions = sorted({v for row in rows for v in row["cells"]}, key=Version)
    return {"to": target, "releases": versions, "rows": rows}
