"""Read-side queries of profiles."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from accounts import permissions
from validation.models import Verdict, VerdictChange

from .models import Profile, Team

# What lists never show: the verdict's findings are most of a verdict row's bytes.
LIST_DEFERRED = ("verdict__findings", "engine_args", "env", "hardware", "model_config", "description")


def teams_visible_to(user) -> QuerySet[Team]:
    team_ids = permissions.visible_team_ids(user)
    return Team.objects.all() if team_ids is None else Team.objects.filter(pk__in=team_ids)


def profiles_visible_to(user) -> QuerySet[Profile]:
    """Profiles of the user's teams (all of them for staff), with what lists show, in few queries."""
    queryset = Profile.objects.select_related(
        "team__default_node_type",
        "owner",
        "vllm_release",
        "verdict",
        "node_type",
        "model_source",
        "draft_source",
    )
    team_ids = permissions.visible_team_ids(user)
    if team_ids is not None:
        owner = Q(owner=user) if getattr(user, "is_authenticated", False) and user.is_active else Q(pk__in=[])
        queryset = queryset.filter(Q(team_id__in=team_ids) | owner)
    return queryset


def profile_state_counts(profiles: QuerySet[Profile]) -> dict[str, int]:
    """Profiles per state: one GROUP BY over the profiles' own state column (no join with verdicts)."""
    counts = {state: 0 for state in Verdict.State.values}
    for row in profiles.order_by().values("state").annotate(n=Count("id")):
        counts[row["state"] or Verdict.State.UNVERIFIED] += row["n"]
    return counts


def profile_states_over_time(user, *, days: int = 30) -> list[dict[str, Any]]:
    """How many of the profiles the user may see were valid, warning, invalid or unverified at the end of
    each of the last ``days`` days (today included, oldest first), replayed from their history: each profile
    counts in the state of its last change up to then (profiles deleted since are not counted). Two queries:
    every profile's state when the period starts, and the changes within it."""
    today = timezone.localdate()
    first = today - timedelta(days=days - 1)
    start = timezone.make_aware(datetime.combine(first, time.min))
    visible = profiles_visible_to(user).order_by().values("pk")
    before = VerdictChange.objects.filter(profile=OuterRef("pk"), created_at__lt=start).order_by(
        "-created_at", "-id"
    )
    current: dict[int, str] = {
        pk: state
        for pk, state in Profile.objects.filter(pk__in=visible)
        .annotate(start_state=Subquery(before.values("to_state")[:1]))
        .filter(start_state__isnull=False)
        .values_list("pk", "start_state")
    }
    changes = (
        VerdictChange.objects.filter(profile__in=visible, created_at__gte=start)
        .order_by("created_at", "id")
        .values_list("profile_id", "to_state", "created_at")
    )
    states = Verdict.State.values
    counts = dict.fromkeys(states, 0)
    for state in current.values():
        counts[state if state in counts else Verdict.State.UNVERIFIED] += 1
    series = []
    pending = iter(changes)
    change = next(pending, None)
    for offset in range(days):
        day = first + timedelta(days=offset)
        end = timezone.make_aware(datetime.combine(day + timedelta(days=1), time.min))
        while change is not None and change[2] < end:
            pk, state, _ = change
            state = state if state in counts else Verdict.State.UNVERIFIED
            if pk in current:
                counts[current[pk]] -= 1
            current[pk] = state
            counts[state] += 1
            change = next(pending, None)
        series.append({"day": day, **counts, "total": sum(counts.values())})
    return series


def profiles_page(profiles: QuerySet[Profile], *, ordering, number: int, size: int) -> list[Profile]:
    """Page ``number`` (from 1) of ``size`` profiles in ``ordering``, without the columns lists never show.

    Ids first (narrow rows, the ordering's covering index), then the page's rows with their joins: deep
    pages neither join nor carry every skipped row."""
    start = (number - 1) * size
    page_ids = list(profiles.order_by(*ordering).values_list("id", flat=True)[start : start + size])
    by_id = {p.pk: p for p in profiles.filter(pk__in=page_ids).defer(*LIST_DEFERRED)}
    return [by_id[pk] for pk in page_ids if pk in by_id]


def teams_overview(user) -> QuerySet[Team]:
    """The teams the user sees, with their member and profile counts (for the teams page)."""
    return (
        teams_visible_to(user)
        .select_related("default_node_type")
        .annotate(
            member_count=Count("memberships", distinct=True), profile_count=Count("profiles", distinct=True)
        )
        .order_by("slug")
    )


def team_members(team: Team):
    return team.memberships.select_related("user").order_by("user__username")


def team_profiles(team: Team) -> QuerySet[Profile]:
    """The team's profiles, newest change first, with what the team page shows."""
    return (
        Profile.objects.filter(team=team)
        .select_related("owner", "vllm_release")
        .defer(*(f for f in LIST_DEFERRED if not f.startswith("verdict__")))
        .order_by("-updated_at", "-id")
    )


def git_synced_profiles(*, team, source_id: int):
    """The profiles a Git source keeps in sync (not those whose file has left the repository)."""
    return Profile.objects.filter(team=team, source__type="git", source__git_source=source_id).order_by("pk")
