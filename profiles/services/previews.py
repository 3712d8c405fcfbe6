"""Dry runs over every stored profile: a draft rule set's impact, or an upgrade to another release.

Nothing is written: the stored verdicts are compared with what the engine says under the new conditions.

Fleets hold many copies of the same configuration (one per team, region or replica), so each distinct
profile document (kind, model, arguments, environment, hardware, target release, waivers) is evaluated once
and its outcome fanned out to every identical profile; rows are read as plain tuples in keyset-paginated
chunks, with the JSON columns as their canonical jsonb text so that equal documents compare equal unparsed.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.conf import settings
from django.db.models import Count, Max

from validation.models import RuleSet, VllmRelease
from validation.selectors import (
    CatalogHistory,
    catalog_for,
    fleet_release,
    ruleset_compiled,
    ruleset_current,
)
from validation.services import shared_cache as cache
from vllmcheck.engine import lint as engine_lint
from vllmcheck.engine.types import Finding

from ..models import Profile, VerdictCheck
from ..selectors import waived_rule_ids_by_profile
from .queue import enqueue
from .verdicts import ProfileRows, profile_document

LISTED = 200  # profiles listed per outcome; the counts are always complete
CACHE_SECONDS = 600
# A scheduled preview not ready after this long is scheduled again on the next look (a lost task).
COMPUTE_TIMEOUT = 600


def _active(findings: list[dict]) -> frozenset[tuple[str, str]]:
    return frozenset((f["rule"], f["message"]) for f in findings if Finding.active_in(f))


def _active_found(findings) -> frozenset[tuple[str, str]]:
    """The same as :func:`_active`, on the engine's Finding objects (no dict round trip)."""
    return frozenset((f.rule, f.message) for f in findings if f.is_active)


def _waivers(queryset) -> dict[int, tuple[str, ...]]:
    """Active waivers of the previewed profiles, in one query (they are few; ids would be many)."""
    waived = waived_rule_ids_by_profile(queryset.values("pk"))
    return {pk: tuple(sorted(ids)) for pk, ids in waived.items()}


def _fingerprint(ruleset: RuleSet, release: VllmRelease | None, fleet: VllmRelease, waivers) -> str:
    """Everything a preview of all profiles depends on, read cheaply: when none of it moved, the last
    outcome is still exact (a profile edit moves ``updated_at``, a re-check ``computed_at``)."""
    profiles = Profile.objects.aggregate(n=Count("pk"), last=Max("updated_at"), top=Max("pk"))
    verdicts = VerdictCheck.objects.aggregate(n=Count("pk"), last=Max("computed_at"))
    catalogs = sorted(VllmRelease.objects.values_list("pk", "catalog_sha256"))
    parts = (
        ruleset.pk,
        ruleset.updated_at.isoformat(),
        release.pk if release else None,
        fleet.pk,
        catalogs,
        sorted(profiles.items()),
        sorted(verdicts.items()),
        sorted(waivers.items()),
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def preview(
    *, ruleset: RuleSet | None = None, release: VllmRelease | None = None, profiles=None
) -> dict[str, Any]:
    """Evaluate profiles under ``ruleset`` (default: current) and/or ``release`` (default: their own).

    ``release`` previews moving the fleet to it: exactly the profiles a fleet change re-checks are evaluated
    on it (those that follow the fleet, and those pinned to it); a profile pinned to another release keeps
    its release, so it is counted and listed apart as ``not_affected``: the change leaves it alone.

    A preview of every profile is kept in the cache that web and workers share, under a fingerprint of its
    inputs, so the publish confirmation that follows an impact page, or a second look, does not evaluate the
    fleet again.
    """
    ruleset = ruleset or ruleset_current()
    fleet = fleet_release()
    queryset = profiles if profiles is not None else Profile.objects.all()
    waivers = _waivers(queryset)
    if profiles is not None:
        return _evaluate(ruleset, release, fleet, queryset, waivers)
    key = _preview_key(ruleset, release, fleet, waivers)
    outcome = cache.get(key)
    if outcome is None:
        outcome = _evaluate(ruleset, release, fleet, queryset, waivers)
        cache.set(key, outcome, CACHE_SECONDS)
    return outcome


def _preview_key(ruleset, release, fleet, waivers) -> str:
    return f"validation:preview:{_fingerprint(ruleset, release, fleet, waivers)}"


def preview_profiles() -> int:
    """How many profiles a full-fleet preview evaluates."""
    return Profile.objects.count()


def preview_or_schedule(*, ruleset: RuleSet | None = None, release: VllmRelease | None = None) -> dict | None:
    """The full-fleet preview for a page: computed here for a small fleet, else from the shared cache, else
    scheduled on a worker (once) and None, so the page can say "evaluating" and poll instead of blocking.
    """
    if preview_profiles() <= settings.PREVIEW_INLINE_PROFILES:
        return preview(ruleset=ruleset, release=release)
    ruleset = ruleset or ruleset_current()
    fleet = fleet_release()
    key = _preview_key(ruleset, release, fleet, _waivers(Profile.objects.all()))
    outcome = cache.get(key)
    if outcome is None and cache.add(f"{key}:scheduled", True, COMPUTE_TIMEOUT):
        enqueue("preview_task", ruleset.pk, release.pk if release else None)
    return outcome


def _evaluate(ruleset, release, fleet, queryset, waivers) -> dict[str, Any]:
    compiled = ruleset_compiled(ruleset)
    history = CatalogHistory()
    releases = {r.pk: r for r in VllmRelease.objects.all()}
    outcome: dict[str, Any] = {
        "ruleset": compiled.version_id,
        "release": release.version if release else None,
        "total": 0,  # every profile looked at, those not affected included
        # The profiles the change re-checks (what its re-check counts): those that follow the fleet and,
        # for a release, those pinned to it; the outcome counts and ``unchanged`` add up to it.
        "checked": 0,
        "follows_fleet": 0,
        "pinned_to_release": 0,
        "unchanged": 0,
        "counts": {
            "would_become_invalid": 0,
            "would_become_valid": 0,
            "findings_change": 0,
            "not_affected": 0,
        },
        "would_become_invalid": [],
        "would_become_valid": [],
        "findings_change": [],
        "not_affected": [],  # pinned to another release: a fleet change leaves them alone
    }
    evaluated: dict[tuple, tuple[str, frozenset]] = {}  # document -> (state, active findings)
    stored: dict[tuple, frozenset] = {}  # _before_key -> active findings
    compared: dict[tuple, tuple | None] = {}  # (document, stored) -> (bucket, appeared, disappeared)
    reader = ProfileRows(queryset)
    for rows in reader.chunks():
        _read_stored(reader, [r for r in rows if not _moved_apart(r, release)], stored)
        for row in rows:
            if _moved_apart(row, release):
                outcome["total"] += 1
                outcome["counts"]["not_affected"] += 1
                if len(outcome["not_affected"]) < LISTED:
                    pinned = releases[row.release_id].version
                    outcome["not_affected"].append(
                        {"id": row.pk, "team": row.team, "name": row.name, "pinned": pinned}
                    )
                continue
            target = release or releases.get(row.release_id) or fleet
            outcome["checked"] += 1
            outcome["follows_fleet" if row.release_id is None else "pinned_to_release"] += 1
            doc_key = reader.key(row, target, waivers.get(row.pk, ()))
            after = evaluated.get(doc_key)
            if after is None:
                verdict = engine_lint.validate(
                    profile_document(reader.profile(row), release=target),
                    ruleset=compiled,
                    catalog=catalog_for(target),
                    history=history,
                    waived=waivers.get(row.pk, ()),
                )
                after = (verdict.state, _active_found(verdict.findings))
                evaluated[doc_key] = after
            before_key = _before_key(row)
            before_state = before_key[0]
            result_key = (doc_key, before_key)
            if result_key not in compared:
                compared[result_key] = _compare(before_state, stored[before_key], *after)
            result = compared[result_key]
            outcome["total"] += 1
            if result is None:
                outcome["unchanged"] += 1
                continue
            bucket, appeared, disappeared = result
            outcome["counts"][bucket] += 1
            if len(outcome[bucket]) < LISTED:
                outcome[bucket].append(
                    {
                        "id": row.pk,
                        "team": row.team,
                        "name": row.name,
                        "from": before_state,
                        "to": after[0],
                        "appeared": list(appeared),
                        "disappeared": list(disappeared),
                    }
                )
    outcome["distinct_documents"] = len(evaluated)
    return outcome


def _moved_apart(row, release: VllmRelease | None) -> bool:
    """Pinned to another release than the previewed one: a fleet change leaves the profile alone."""
    return release is not None and row.release_id is not None and row.release_id != release.pk


def _before_key(row) -> tuple:
    """What a profile's stored verdict is compared by: its state and its findings' digest (the row's own
    key when the digest is unknown)."""
    state = row.state or "unverified"
    if row.findings_sha256 == "":
        return (state, "", row.pk)
    return (state, row.findings_sha256)


def _read_stored(reader: ProfileRows, rows, stored: dict[tuple, frozenset]) -> None:
    """The active findings of the stored verdicts not seen yet, read once per distinct digest (one query
    per chunk): the findings are tens of KB of JSON each, the digest says which are the same."""
    need: dict[tuple, int] = {}
    for row in rows:
        key = _before_key(row)
        if key in stored or key in need:
            continue
        if row.findings_sha256 is None:  # no stored verdict
            stored[key] = frozenset()
        else:
            need[key] = row.pk
    texts = reader.stored_findings(need.values())
    for key, pk in need.items():
        text = texts.get(pk)
        stored[key] = _active(json.loads(text) if text else [])


def _compare(before_state: str, before: frozenset, after_state: str, after: frozenset) -> tuple | None:
    """The outcome bucket of one profile, or None if nothing that matters changes."""
    if before_state != "invalid" and after_state == "invalid":
        bucket = "would_become_invalid"
    elif before_state == "invalid" and after_state != "invalid":
        bucket = "would_become_valid"
    elif before != after:
        bucket = "findings_change"
    else:
        return None
    return (
        bucket,
        tuple(sorted(m for _, m in after - before)),
        tuple(sorted(m for _, m in before - after)),
    )
