"""Read-side queries of validation."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from .models import RuleSet, VllmRelease, Waiver


def waived_rule_ids(profile) -> list[str]:
    return waived_rule_ids_by_profile([profile.pk]).get(profile.pk, [])


def releases_ordered() -> QuerySet[VllmRelease]:
    return VllmRelease.objects.order_by("-major", "-minor", "-patch")


def rulesets_ordered() -> QuerySet[RuleSet]:
    return RuleSet.objects.order_by("-number")


def waived_rule_ids_by_profile(profile_ids) -> dict[int, list[str]]:
    """Active waivers for many profiles in one query (re-check batches)."""
    result: dict[int, list[str]] = {}
    rows = Waiver.objects.filter(
        profile_id__in=list(profile_ids), revoked_at__isnull=True, expires_at__gt=timezone.now()
    ).values_list("profile_id", "rule_id")
    for profile_id, rule_id in rows:
        result.setdefault(profile_id, []).append(rule_id)
    return result
