from __future__ import annotations

from django.shortcuts import get_object_or_404

from accounts import permissions
from profiles.models import Team

from .models import Delivery, NotificationTarget

DELIVERIES_SHOWN = 20


def team_for(user, slug: str) -> Team:
    """The team, if the user may see it (else 404, as for any team the user does not see)."""
    team = get_object_or_404(Team, slug=slug)
    if not permissions.can_view_team(user, team):
        raise Team.DoesNotExist  # the API and pages answer 404
    return team


def targets_of(team: Team):
    return NotificationTarget.objects.filter(team=team).order_by("name")


def deliveries_of(team: Team, limit: int = DELIVERIES_SHOWN):
    return (
        Delivery.objects.filter(target__team=team)
        .select_related("target")
        .order_by("-created_at", "-id")[:limit]
    )
