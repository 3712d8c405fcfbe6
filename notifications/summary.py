"""A team's scheduled summary (weekly by default, NOTIFY_SUMMARY_CRONTAB): the state of its profiles, those
that the next vLLM release would make invalid, and its waivers about to expire; mailed to the team's watchers
and sent to its targets that take ``summary`` (or every transition)."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone

from profiles.models import Profile, Team, TeamMembership, Verdict, Waiver
from profiles.services.previews import preview
from validation.models import VllmRelease
from validation.selectors import fleet_release

from . import services
from .models import Delivery, NotificationTarget, TeamSummary

log = logging.getLogger(__name__)


def next_release() -> VllmRelease | None:
    """The newest imported release newer than the fleet's default, if any."""
    fleet = fleet_release()
    newer = VllmRelease.objects.exclude(catalog_sha256="").order_by("-major", "-minor", "-patch").first()
    if newer is None or (newer.major, newer.minor, newer.patch) <= (fleet.major, fleet.minor, fleet.patch):
        return None
    return newer


def team_summary(team: Team) -> dict:
    profiles = Profile.objects.filter(team=team)
    states = dict(
        Verdict.objects.filter(profile__team=team).values_list("state").annotate(n=Count("pk")).order_by()
    )
    release = next_release()
    breaking = []
    if release is not None and profiles.exists():
        outcome = preview(release=release, profiles=profiles)
        breaking = [{"id": p["id"], "name": p["name"]} for p in outcome["would_become_invalid"]]
    now = timezone.now()
    expiring = Waiver.objects.filter(
        profile__team=team,
        granted_by__isnull=False,
        revoked_at__isnull=True,
        expires_at__gt=now,
        expires_at__lte=now + timedelta(days=settings.NOTIFY_WAIVER_EXPIRY_DAYS),
    ).select_related("profile")
    return {
        "team": team.slug,
        "profiles": profiles.count(),
        "states": {state: states.get(state, 0) for state in Verdict.State.values},
        "next_release": release.version if release else None,
        "breaking_on_next_release": breaking,
        "waivers_expiring": [
            {"profile": w.profile.name, "rule_id": w.rule_id, "expires_at": w.expires_at.isoformat()}
            for w in expiring.order_by("expires_at")
        ],
    }


def summary_text(data: dict) -> str:
    site = settings.SITE_URL.rstrip("/")
    states = ", ".join(f"{n} {state}" for state, n in data["states"].items() if n) or "no verdicts yet"
    lines = [f"Team {data['team']}: {data['profiles']} profiles ({states}). {site}/teams/{data['team']}/"]
    if data["next_release"]:
        broken = data["breaking_on_next_release"]
        lines.append(
            f"vLLM {data['next_release']} would make {len(broken)} of them invalid" + (":" if broken else ".")
        )
        lines += [f"• {p['name']}" for p in broken[:20]]
    expiring = data["waivers_expiring"]
    lines.append(
        f"{len(expiring)} waiver(s) expire within {settings.NOTIFY_WAIVER_EXPIRY_DAYS} days"
        + (":" if expiring else ".")
    )
    lines += [f"• {w['rule_id']} for {w['profile']}, {w['expires_at'][:10]}" for w in expiring[:20]]
    return "\n".join(lines)


def period_now() -> str:
    year, week, _ = timezone.now().isocalendar()
    return f"{year}-W{week:02d}"


def send_team(team: Team, period: str) -> TeamSummary | None:
    """The team's summary for ``period``, once: None when it was already made."""
    data = team_summary(team)
    data["text"] = summary_text(data)
    try:
        with transaction.atomic():
            record = TeamSummary.objects.create(team=team, period=period, data=data)
    except IntegrityError:
        return None
    targets = NotificationTarget.objects.filter(team=team, enabled=True)
    rows = [
        Delivery(target=t, event_key=f"summary:{period}", event_type="summary", data=data)
        for t in targets
        if not t.transitions or "summary" in t.transitions
    ]
    Delivery.objects.bulk_create(rows, ignore_conflicts=True)
    made = Delivery.objects.filter(
        target__team=team, event_key=f"summary:{period}", state=Delivery.State.PENDING
    )
    for delivery_id in made.values_list("pk", flat=True):
        services.enqueue_delivery(delivery_id)
    emails = sorted(
        set(
            TeamMembership.objects.filter(team=team, watch=True, user__is_active=True)
            .exclude(user__email="")
            .values_list("user__email", flat=True)
        )
    )
    if emails:
        message = EmailMessage(
            subject=f"[vLLM Profiles] {team.slug}: summary of {period}",
            body=data["text"],
            from_email=settings.DEFAULT_FROM_EMAIL,
            bcc=emails,
            connection=get_connection(timeout=settings.EMAIL_TIMEOUT),
        )
        try:
            message.send()
        except Exception as exc:  # the summary is at most once: the next period's is the retry
            log.warning("summary of %s for %s not mailed: %s", team.slug, period, type(exc).__name__)
            record.mail_error = f"the mail server refused or did not answer ({type(exc).__name__})"
        else:
            record.mailed_to = len(emails)
        record.save(update_fields=["mailed_to", "mail_error"])
    return record


def send_all(period: str | None = None) -> int:
    period = period or period_now()
    return sum(send_team(team, period) is not None for team in Team.objects.order_by("slug"))
