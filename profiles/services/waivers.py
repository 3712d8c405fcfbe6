"""Waivers: exempt one profile from one rule, with a reason and an expiry date, approved by a second person.

An editor of the profile's team requests a waiver; a team admin or staff who is not the requester approves it
(``accounts.permissions.can_approve_waiver``), and only then does it waive the rule and re-check the profile.
The team's admins, staff, or the requester of a pending one may revoke it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from accounts import permissions
from accounts.audit import audit_record
from validation.errors import DomainError

from ..models import Profile, Recheck, Verdict, Waiver
from .rechecks import recheck_start


def user_can_request_waiver(user, profile) -> bool:
    return permissions.can_request_waiver(user, profile)


def user_can_approve(user, waiver: Waiver) -> bool:
    return waiver.pending and permissions.can_approve_waiver(
        user, team=waiver.profile.team_id, requested_by_id=waiver.requested_by_id
    )


def user_can_revoke(user, waiver: Waiver) -> bool:
    if waiver.revoked_at is not None:
        return False
    if waiver.pending and user.pk == waiver.requested_by_id:
        return True  # withdrawing one's own request
    return permissions.can_revoke_waiver(user, waiver.profile)


def _audit(actor, action: str, waiver: Waiver, before: dict | None) -> None:
    profile = waiver.profile
    audit_record(
        actor=actor,
        action=action,
        object_type="waiver",
        object_id=waiver.pk,
        object_repr=f"{waiver.rule_id} on {profile.team.slug}/{profile.name}",
        team=profile.team,
        before=before,
        after=_snapshot(waiver),
    )


def _snapshot(waiver: Waiver) -> dict:
    return {
        "profile": waiver.profile_id,
        "rule_id": waiver.rule_id,
        "reason": waiver.reason,
        "expires_at": waiver.expires_at,
        "requested_by": waiver.requested_by.get_username() if waiver.requested_by_id else None,
        "granted_by": waiver.granted_by.get_username() if waiver.granted_by_id else None,
        "revoked_at": waiver.revoked_at,
    }


def _lock_waivers_of(profile_id: int, precondition: Callable[[], None] | None) -> None:
    """Lock the profile's row (its waivers change as one resource), then run the caller's precondition
    (an ``If-Match`` check) under that lock, so that a check and the write that follows it are atomic."""
    Profile.objects.select_for_update().filter(pk=profile_id).values_list("pk", flat=True).first()
    if precondition is not None:
        precondition()


def _recheck_now(profile) -> Recheck:
    """A waiver changes one profile's outcome: re-check it right away, through the same code path."""
    return recheck_start(cause="waiver", verdicts=Verdict.objects.filter(profile=profile), inline=True)


@transaction.atomic
def waiver_request(
    *,
    actor,
    profile,
    rule_id: str,
    reason: str,
    expires_at: datetime,
    precondition: Callable[[], None] | None = None,
) -> Waiver:
    """A pending waiver: it waives nothing until someone else approves it (``waiver_approve``).
    ``precondition`` (here and below): run under the profile's row lock before anything is written."""
    _lock_waivers_of(profile.pk, precondition)
    permissions.require(
        permissions.can_request_waiver(actor, profile), "only the team's editors may request waivers"
    )
    if not reason.strip():
        raise DomainError("a waiver needs a reason", field="reason")
    if expires_at <= timezone.now():
        raise DomainError("the expiry must be in the future", field="expires_at")
    waiver = Waiver.objects.create(
        profile=profile, rule_id=rule_id, reason=reason.strip(), requested_by=actor, expires_at=expires_at
    )
    _audit(actor, "waiver.request", waiver, None)
    return waiver


@transaction.atomic
def waiver_approve(*, actor, waiver: Waiver, precondition: Callable[[], None] | None = None) -> Waiver:
    _lock_waivers_of(waiver.profile_id, precondition)
    waiver = Waiver.objects.select_for_update().select_related("profile").get(pk=waiver.pk)
    if not waiver.pending:
        raise DomainError("this waiver is not pending (approved or revoked already)", code="conflict")
    permissions.require(
        permissions.can_admin_team(actor, waiver.profile.team_id),
        "only the team's admins or staff may approve waivers",
    )
    permissions.require(
        actor.pk != waiver.requested_by_id, "a waiver needs a second person: its requester cannot approve it"
    )
    if waiver.expires_at <= timezone.now():
        raise DomainError("this waiver has expired before it was approved", field="expires_at")
    before = _snapshot(waiver)
    waiver.granted_by = actor
    waiver.granted_at = timezone.now()
    waiver.save(update_fields=["granted_by", "granted_at"])
    _audit(actor, "waiver.approve", waiver, before)
    _recheck_now(waiver.profile)
    return waiver


@transaction.atomic
def waiver_revoke(*, actor, waiver: Waiver, precondition: Callable[[], None] | None = None) -> Waiver:
    _lock_waivers_of(waiver.profile_id, precondition)
    waiver = Waiver.objects.select_for_update().select_related("profile").get(pk=waiver.pk)
    if waiver.revoked_at is not None:
        raise DomainError("this waiver is revoked already", code="conflict")
    permissions.require(user_can_revoke(actor, waiver), "only the team's admins or staff may revoke waivers")
    was_active = not waiver.pending
    before = _snapshot(waiver)
    waiver.revoked_at = timezone.now()
    waiver.expiry_applied = True
    waiver.save(update_fields=["revoked_at", "expiry_applied"])
    _audit(actor, "waiver.revoke", waiver, before)
    if was_active:
        _recheck_now(waiver.profile)
    return waiver
