"""Read-side queries of profiles."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.db.models.expressions import BaseExpression
from django.db.models.functions import TruncWeek
from django.utils import timezone

from accounts import permissions
from validation.errors import DomainError

from .models import Alert, Profile, Recheck, Team, Verdict, VerdictChange, Waiver

# What lists never show: the verdict's findings are most of a verdict row's bytes.
LIST_DEFERRED = ("verdict__findings", "engine_args", "env", "hardware", "model_config", "description")
# What the list's rows show of other tables (a join less is a few ms less of planning for each page).
LIST_JOINS = ("team", "owner", "vllm_release")
# Up to this many matching profiles, a page is cut from the matches sorted (found through the filters'
# indexes) rather than by walking an ordering's index past the rows that do not match (see profiles_page).
SORT_MATCHES_UP_TO = 2000


def team_by_slug(slug: str) -> Team | None:
    """The team named ``slug`` (one indexed query), or None."""
    return Team.objects.filter(slug=slug).first()


def teams_visible_to(user) -> QuerySet[Team]:
    team_ids = permissions.visible_team_ids(user)
    return Team.objects.all() if team_ids is None else Team.objects.filter(pk__in=team_ids)


def _with_list_joins() -> QuerySet[Profile]:
    return Profile.objects.select_related(
        "team__default_node_type",
        "owner",
        "vllm_release",
        "verdict",
        "node_type",
        "model_source",
        "draft_source",
    )


def profiles_visible_to(user) -> QuerySet[Profile]:
    """Profiles of the user's teams (all of them for staff), with what lists show, in few queries."""
    queryset = _with_list_joins()
    team_ids = permissions.visible_team_ids(user)
    if team_ids is not None:
        owner = Q(owner=user) if getattr(user, "is_authenticated", False) and user.is_active else Q(pk__in=[])
        queryset = queryset.filter(Q(team_id__in=team_ids) | owner)
    return queryset


def profiles_listed_for(user, *, team_ids: list[int] | None = None) -> QuerySet[Profile]:
    """The same profiles as :func:`profiles_visible_to`, in terms the list page's indexes serve: the user's
    teams as a list of ids (as a subquery, PostgreSQL scanned every profile to test it), and the clause for
    profiles the user owns in other teams only when there is one (an ``OR`` keeps the planner from the
    (team, ...) indexes: one small indexed query tells). ``team_ids``: the user's teams, when the caller
    has read them already (the list page reads them for its team filter)."""
    visible_ids = permissions.visible_team_ids(user)
    if visible_ids is None:
        return profiles_visible_to(user)
    if team_ids is None:
        team_ids = (
            list(visible_ids.values_list("team_id", flat=True)) if isinstance(visible_ids, QuerySet) else []
        )
    visible = Q(team_id__in=team_ids)
    if (
        getattr(user, "is_authenticated", False)
        and user.is_active
        and Profile.objects.filter(owner=user).exclude(team_id__in=team_ids).exists()
    ):
        visible |= Q(owner=user)
    return _with_list_joins().filter(visible)


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
    current = _states_before(visible, start)
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


def _states_before(visible: QuerySet, start) -> dict[int, str]:
    """Each visible profile's state after its last change before ``start`` (profiles with none left out).

    PostgreSQL: one pass over those changes in the (profile, created_at) index, ``DISTINCT ON`` the profile.
    Elsewhere: the last change looked up per profile. (That lookup, evaluated twice per profile and sorted by
    the profiles' default ordering, took 193 ms of the 30-day chart over 100,000 profiles.)"""
    if connection.features.can_distinct_on_fields:
        rows = (
            VerdictChange.objects.filter(profile__in=visible, created_at__lt=start)
            .order_by("profile_id", "-created_at", "-id")
            .distinct("profile_id")
            .values_list("profile_id", "to_state")
        )
        return dict(rows)
    before = VerdictChange.objects.filter(profile=OuterRef("pk"), created_at__lt=start).order_by(
        "-created_at", "-id"
    )
    rows = (
        Profile.objects.filter(pk__in=visible)
        .order_by()
        .annotate(start_state=Subquery(before.values("to_state")[:1]))
        .values_list("pk", "start_state")
    )
    return {pk: state for pk, state in rows if state is not None}


def profiles_page(
    profiles: QuerySet[Profile], *, ordering, number: int, size: int, matches: int | None = None
) -> list[Profile]:
    """Page ``number`` (from 1) of ``size`` profiles in ``ordering``, without the columns lists never show.

    Ids first (narrow rows, the ordering's covering index), then the page's rows with their joins: deep
    pages neither join nor carry every skipped row. ``matches``, when the caller has counted the profiles,
    picks how the ids are found: many matches are met soon walking the ordering's index; a few
    (SORT_MATCHES_UP_TO) are found first through the filters' own indexes (a text search's trigrams, a
    team's) and sorted, where the walk can cross most of the table for them: the planner guesses a text
    search's selectivity, and over 100,000 profiles walked 48,450 rows of (team, name) for the first 50 of
    a search's 120 matches."""
    start = (number - 1) * size
    if matches == 0:
        page_ids = []
    elif matches is not None and matches <= SORT_MATCHES_UP_TO and connection.vendor == "postgresql":
        page_ids = _page_of_sorted_matches(profiles, ordering, start, size)
    else:
        page_ids = list(profiles.order_by(*ordering).values_list("id", flat=True)[start : start + size])
    rows = profiles.filter(pk__in=page_ids).order_by().select_related(None).select_related(*LIST_JOINS)
    by_id = {p.pk: p for p in rows.defer(*(f for f in LIST_DEFERRED if not f.startswith("verdict__")))}
    return [by_id[pk] for pk in page_ids if pk in by_id]


def _page_of_sorted_matches(profiles: QuerySet[Profile], ordering, start: int, size: int) -> list[int]:
    """The ids of one page: every match with its sort keys first (a materialised CTE, so the planner cannot
    turn it back into a walk of the ordering's index), then sorted as ``order_by(*ordering)`` sorts them."""
    columns = list(dict.fromkeys(["id", *(field.lstrip("-") for field in ordering)]))
    try:
        sql, params = profiles.order_by().values_list(*columns).query.sql_with_params()
    except EmptyResultSet:  # a filter no row can match (a user of no team)
        return []
    names = [f"c{i}" for i in range(len(columns))]
    order = ", ".join(
        f"{names[columns.index(field.lstrip('-'))]} {'DESC' if field.startswith('-') else 'ASC'}"
        for field in ordering
    )
    query = (
        f"WITH m ({', '.join(names)}) AS MATERIALIZED ({sql}) "  # nosec B608  # generated column names and ASC/DESC; values are %s parameters
        f"SELECT c0 FROM m ORDER BY {order} LIMIT %s OFFSET %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(query, [*params, size, start])
        return [row[0] for row in cursor.fetchall()]


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


# ---- waivers


def waived_rule_ids(profile) -> list[str]:
    return waived_rule_ids_by_profile([profile.pk]).get(profile.pk, [])


def waived_rule_ids_by_profile(profile_ids) -> dict[int, list[str]]:
    """Active waivers for many profiles in one query (re-check batches); ``profile_ids`` may be a subquery
    or an expression."""
    result: dict[int, list[str]] = {}
    ids = profile_ids if isinstance(profile_ids, (QuerySet, BaseExpression)) else list(profile_ids)
    rows = Waiver.objects.filter(
        profile_id__in=ids, granted_by__isnull=False, revoked_at__isnull=True, expires_at__gt=timezone.now()
    ).values_list("profile_id", "rule_id")
    for profile_id, rule_id in rows:
        result.setdefault(profile_id, []).append(rule_id)
    return result


# ---- re-checks

RECHECK_CHANGE_KINDS = {
    "invalid": "Newly invalid",
    "valid": "Newly valid",
    "findings": "Findings changed",
}


def recheck_changes(recheck, kind: str) -> QuerySet:
    """The profiles a re-check changed, one row (a VerdictChange) each, of one kind: ``invalid`` (became
    invalid), ``valid`` (stopped being invalid) or ``findings`` (same side of valid/invalid, other errors or
    warnings), oldest first so pages stay stable while the re-check runs."""
    rows = VerdictChange.objects.filter(recheck=recheck).select_related("profile__team")
    became_invalid = Q(to_state="invalid") & ~Q(from_state="invalid")
    became_valid = Q(from_state="invalid") & ~Q(to_state="invalid")
    if kind == "invalid":
        rows = rows.filter(became_invalid)
    elif kind == "valid":
        rows = rows.filter(became_valid)
    elif kind == "findings":
        rows = rows.exclude(became_invalid | became_valid)
    else:
        known = ", ".join(RECHECK_CHANGE_KINDS)
        raise DomainError(f"unknown kind of change {kind!r}: one of {known}", field="kind")
    return rows.order_by("id")


def recheck_change_counts(recheck) -> dict[str, int]:
    return {kind: recheck_changes(recheck, kind).count() for kind in RECHECK_CHANGE_KINDS}


# ---- re-check throughput, alerts, the rule editor's profiles


def recheck_throughput(limit: int = 20) -> list[dict[str, Any]]:
    """The last ``limit`` finished re-checks, oldest first: profiles checked, seconds taken (start to end)
    and profiles per second, for the re-check chart."""
    rows = (
        Recheck.objects.filter(state=Recheck.State.DONE, started_at__isnull=False, finished_at__isnull=False)
        .order_by("-finished_at")
        .values("pk", "cause", "total", "started_at", "finished_at")[:limit]
    )
    found = []
    for row in reversed(list(rows)):
        seconds = max((row["finished_at"] - row["started_at"]).total_seconds(), 0.001)
        found.append(
            {
                "id": row["pk"],
                "cause": row["cause"],
                "total": row["total"],
                "seconds": round(seconds, 2),
                "per_second": round(row["total"] / seconds, 1),
            }
        )
    return found


def alerts_per_week(user, weeks: int = 12) -> list[dict[str, Any]]:
    """The user's alerts counted per week (Monday first) over the last ``weeks`` weeks, empty weeks included,
    oldest first, for the alerts page's chart."""
    today = timezone.localdate()
    first = today - timedelta(days=today.weekday(), weeks=weeks - 1)
    counted = {
        row["week"].date() if hasattr(row["week"], "date") else row["week"]: row["n"]
        for row in Alert.objects.filter(recipient=user, created_at__date__gte=first)
        .annotate(week=TruncWeek("created_at"))
        .values("week")
        .annotate(n=Count("id"))
    }
    return [
        {"week": first + timedelta(weeks=i), "count": counted.get(first + timedelta(weeks=i), 0)}
        for i in range(weeks)
    ]


def profiles_to_try(limit: int = 500) -> list[tuple[int, str]]:
    """Stored profiles as (id, "team/name") for the rule editor's "try it" (the first ``limit``, by name)."""
    rows = Profile.objects.order_by("team__slug", "name").values_list("pk", "team__slug", "name")
    return [(pk, f"{team}/{name}") for pk, team, name in rows[:limit]]
