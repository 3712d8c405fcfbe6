"""Reads of accounts: a user's tokens, the audit log as each user may see it."""

from __future__ import annotations

from django.db.models import QuerySet

from . import permissions
from .models import ApiToken, AuditEvent


def tokens_of(user) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("revoked_at", "-created_at")


def audit_events_visible_to(user) -> QuerySet[AuditEvent]:
    """Staff: every entry. A team admin: the entries of the teams they administer. Anyone else: none."""
    events = AuditEvent.objects.all()
    if permissions.is_staff(user):
        return events
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return events.none()
    admin_of = user.memberships.filter(role__in=permissions.ADMIN_ROLES).values("team_id")
    return events.filter(team_id__in=admin_of)
