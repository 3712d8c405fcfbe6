"""Waivers: exempt one profile from one rule, with a reason, who granted it, and an expiry date."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from ..errors import DomainError
from ..models import Recheck, Verdict, Waiver
from .rechecks import recheck_start


def user_can_waive(user, profile) -> bool:
    """Staff, and the admins of the profile's team."""
    if user.is_staff or user.is_superuser:
        return True
    return user.memberships.filter(team_id=profile.team_id, role="admin").exists()


def _recheck_now(profile) -> Recheck:
    """A waiver changes one profile's outcome: re-check it right away, through the same code path."""
    return recheck_start(cause="waiver", verdicts=Verdict.objects.filter(profile=profile), inline=True)


@transaction.atomic
def waiver_grant(*, actor, profile, rule_id: str, reason: str, expires_at: datetime) -> Waiver:
    if not user_can_waive(actor, profile):
        raise DomainError("only the team's admins or staff may grant waivers", code="permission")
    if not reason.strip():
        raise DomainError("a waiver needs a reason", field="reason")
    if expires_at <= timezone.now():
        raise DomainError("the expiry must be in the future", field="expires_at")
    waiver = Waiver.objects.create(
        profile=profile, rule_id=rule_id, reason=reason.strip(), granted_by=actor, expires_at=expires_at
    )
    _recheck_now(profile)
    return waiver


@transaction.atomic
def waiver_revoke(*, actor, waiver: Waiver) -> Waiver:
    if not user_can_waive(actor, waiver.profile):
        raise DomainError("only the team's admins or staff may revoke waivers", code="permission")
    waiver.revoked_at = timezone.now()
    waiver.expiry_applied = True
    waiver.save(update_fields=["revoked_at", "expiry_applied"])
    _recheck_now(waiver.profile)
    return waiver
