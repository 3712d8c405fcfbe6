"""Read-side queries of profiles."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from .models import Profile, Team, TeamMembership


def teams_visible_to(user) -> QuerySet[Team]:
    if user.is_staff or user.is_superuser:
        return Team.objects.all()
    return Team.objects.filter(memberships__user=user).distinct()


def profiles_visible_to(user) -> QuerySet[Profile]:
    """Profiles of the user's teams (all of them for staff), with what lists show, in few queries."""
    queryset = Profile.objects.select_related("team", "owner", "vllm_release", "verdict")
    if not (user.is_staff or user.is_superuser):
        member_of = TeamMembership.objects.filter(user=user).values("team_id")
        queryset = queryset.filter(Q(team_id__in=member_of) | Q(owner=user))
    return queryset
