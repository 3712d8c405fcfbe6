"""Release matrices: on which vLLM release a profile, or the whole fleet, would be valid, warn, or be invalid.

- A profile's matrix evaluates its document on every release that has a catalog, under the current rule
  set, and keeps the first error or warning of each (vLLM stops at the first error).
- The fleet's matrix counts, per release, the profiles that would be valid, warning or invalid if they ran
  it. It is computed by a worker for a large fleet and kept in the shared cache under a fingerprint of its
  inputs, as full-fleet previews are, so the releases page answers "which release can we move to" at once.
Nothing is written.
"""

from __future__ import annotations

import hashlib
from typing import Any

from validation.models import VllmRelease
from validation.selectors import (
    CatalogHistory,
    catalog_for,
    fleet_release,
    releases_ordered,
    ruleset_compiled,
    ruleset_current,
)
from validation.services import shared_cache as cache
from vllmcheck.engine import lint as engine_lint

from ..models import Profile
from ..selectors import waived_rule_ids
from .previews import CACHE_SECONDS, COMPUTE_TIMEOUT, _fingerprint, _waivers
from .queue import enqueue
from .verdicts import ProfileRows, document_validate, profile_document

STATES = ("valid", "warning", "invalid")


def _releases() -> list[VllmRelease]:
    """Releases with a catalog, oldest first (the order of the matrix and the chart)."""
    return list(reversed(list(releases_ordered().exclude(catalog_sha256=""))))


def _first(findings) -> dict[str, str] | None:
    """The first active error, else the first active warning (findings come sorted by severity)."""
    found = next((f for f in findings if f.is_active and f.severity in ("error", "warning")), None)
    return (
        None if found is None else {"rule": found.rule, "severity": found.severity, "message": found.message}
    )


def profile_release_matrix(profile) -> list[dict[str, Any]]:
    """For each release with a catalog (oldest first): the profile's state there, its error and warning
    counts, the first finding, and whether it is the release the profile runs today. Cached per profile
    revision, rule set and catalog digests."""
    ruleset = ruleset_current()
    releases = _releases()
    waived = tuple(sorted(waived_rule_ids(profile)))
    current = (profile.vllm_release or fleet_release()).pk
    parts = (
        profile.pk,
        profile.updated_at.isoformat() if profile.updated_at else None,
        ruleset.pk,
        ruleset.updated_at.isoformat(),
        [(r.pk, r.catalog_sha256) for r in releases],
        waived,
        profile.model_source_id,
        profile.draft_source_id,
    )
    key = "validation:profile-matrix:" + hashlib.sha256(repr(parts).encode()).hexdigest()
    rows = cache.get(key)
    if rows is None:
        rows = []
        for release in releases:
            verdict = document_validate(
                profile_document(profile, release=release), release=release, ruleset=ruleset, waived=waived
            )
            active = [f for f in verdict.findings if f.is_active]
            rows.append(
                {
                    "release": release.version,
                    "state": verdict.state,
                    "errors": sum(1 for f in active if f.severity == "error"),
                    "warnings": sum(1 for f in active if f.severity == "warning"),
                    "first": _first(verdict.findings),
                }
            )
        cache.set(key, rows, CACHE_SECONDS)
    versions = {r.pk: r.version for r in releases}
    return [{**row, "current": row["release"] == versions.get(current)} for row in rows]


def _matrix_key(ruleset, fleet, waivers) -> str:
    return f"validation:fleet-matrix:{_fingerprint(ruleset, None, fleet, waivers)}"


def fleet_release_matrix() -> dict[str, Any]:
    """Per release (oldest first): how many stored profiles would be valid, warning or invalid on it.

    Each distinct document (fields, waivers, model configs, node type) is evaluated once per release and
    counted for every profile that shares it."""
    ruleset, fleet = ruleset_current(), fleet_release()
    queryset = Profile.objects.all()
    waivers = _waivers(queryset)
    key = _matrix_key(ruleset, fleet, waivers)
    cached = cache.get(key)
    if cached is not None:
        return cached
    compiled = ruleset_compiled(ruleset)
    history = CatalogHistory()
    releases = _releases()
    documents: dict[tuple, list] = {}  # document key -> [count, unsaved profile, waived]
    total = 0
    reader = ProfileRows(queryset)
    for rows in reader.chunks():
        for row in rows:
            total += 1
            waived = waivers.get(row.pk, ())
            doc_key = reader.document_key(row, waived)
            if doc_key in documents:
                documents[doc_key][0] += 1
                continue
            documents[doc_key] = [1, reader.profile(row), waived]
    matrix = []
    for release in releases:
        counts = dict.fromkeys(STATES, 0)
        catalog = catalog_for(release)
        for count, unsaved, waived in documents.values():
            verdict = engine_lint.validate(
                profile_document(unsaved, release=release),
                ruleset=compiled,
                catalog=catalog,
                history=history,
                waived=waived,
            )
            counts[verdict.state if verdict.state in counts else "warning"] += count
        matrix.append({"release": release.version, "fleet": release.pk == fleet.pk, **counts})
    outcome = {
        "ruleset": compiled.version_id,
        "total": total,
        "distinct_documents": len(documents),
        "releases": matrix,
    }
    cache.set(key, outcome, CACHE_SECONDS)
    return outcome


def fleet_release_matrix_or_schedule() -> dict[str, Any] | None:
    """The fleet's matrix for the releases page: from the shared cache, else scheduled on a worker (once)
    and None, so the page says "computing" and polls. Never computed in the web request: the first
    evaluation on each release costs seconds in a fresh process, whatever the fleet's size."""
    key = _matrix_key(ruleset_current(), fleet_release(), _waivers(Profile.objects.all()))
    outcome = cache.get(key)
    if outcome is None and cache.add(f"{key}:scheduled", True, COMPUTE_TIMEOUT):
        enqueue("fleet_matrix_task")
    return outcome
