"""Dry runs over every stored profile: a draft rule set's impact, or an upgrade to another release.

Nothing is written: the stored verdicts are compared with what the engine says under the new conditions.
"""

from __future__ import annotations

from typing import Any

from ..models import RuleSet, VllmRelease
from .releases import CatalogHistory, catalog_for
from .rulesets import ruleset_compiled

LISTED = 200  # profiles listed per outcome; the counts are always complete
CHUNK = 2000


def _active(findings: list[dict]) -> set[tuple[str, str]]:
    return {
        (f["rule"], f["message"])
        for f in findings
        if f.get("severity") in ("error", "warning") and not f.get("waived")
    }


def preview(
    *, ruleset: RuleSet | None = None, release: VllmRelease | None = None, profiles=None
) -> dict[str, Any]:
    """Evaluate profiles under ``ruleset`` (default: current) and/or ``release`` (default: their own)."""
    from profiles.models import Profile
    from profiles.services import effective_release, profile_document

    from ..engine import lint as engine_lint
    from ..selectors import waived_rule_ids_by_profile
    from . import ruleset_current

    compiled = ruleset_compiled(ruleset or ruleset_current())
    history = CatalogHistory()
    queryset = (profiles if profiles is not None else Profile.objects.all()).select_related(
        "team", "vllm_release", "verdict"
    )
    outcome: dict[str, Any] = {
        "ruleset": compiled.version_id,
        "release": release.version if release else None,
        "total": 0,
        "unchanged": 0,
        "counts": {"would_become_invalid": 0, "would_become_valid": 0, "findings_change": 0},
        "would_become_invalid": [],
        "would_become_valid": [],
        "findings_change": [],
    }
    ids = list(queryset.order_by("pk").values_list("pk", flat=True))
    for start in range(0, len(ids), CHUNK):
        chunk = list(queryset.filter(pk__in=ids[start : start + CHUNK]).order_by("pk"))
        waivers = waived_rule_ids_by_profile([p.pk for p in chunk])
        for profile in chunk:
            target = release or effective_release(profile)
            doc = profile_document(profile, release=target)
            verdict = engine_lint.validate(
                doc,
                ruleset=compiled,
                catalog=catalog_for(target),
                history=history,
                waived=waivers.get(profile.pk, ()),
            )
            stored = getattr(profile, "verdict", None)
            before_state = stored.state if stored else "unverified"
            before = _active(stored.findings if stored else [])
            after = _active([f.as_dict() for f in verdict.findings])
            outcome["total"] += 1
            if before_state != "invalid" and verdict.state == "invalid":
                bucket = "would_become_invalid"
            elif before_state == "invalid" and verdict.state != "invalid":
                bucket = "would_become_valid"
            elif before != after:
                bucket = "findings_change"
            else:
                outcome["unchanged"] += 1
                continue
            outcome["counts"][bucket] += 1
            if len(outcome[bucket]) < LISTED:
                outcome[bucket].append(
                    {
                        "id": profile.pk,
                        "team": profile.team.slug,
                        "name": profile.name,
                        "from": before_state,
                        "to": verdict.state,
                        "appeared": sorted(m for _, m in after - before),
                        "disappeared": sorted(m for _, m in before - after),
                    }
                )
    return outcome
