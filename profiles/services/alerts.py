"""Alerts: a profile that became invalid is reported to its owner and its team's watchers, once.

Alert rows are created in the same transaction as the state change they report (unique per recipient and
change), so a repeated batch cannot create a second one. Sending claims a recipient's pending alerts
(``sending``) in one short transaction before the SMTP conversation and marks them ``sent`` after it, so a
retried or redelivered task never mails an alert twice; marking them sent waits out a database restart
rather than leave them claimed (a released claim would mail them again).

An SMTP failure puts them back to ``pending`` for a retry with backoff, the error kept for the alerts page. A
server that cannot be reached (refused or dropped connection, time-out, a 4xx answer) is an outage: the alerts
stay pending however long it lasts, and the sweep retries them. Only a server that refuses the message itself
(a 5xx answer: an unknown recipient, say) makes them ``failed``, after ``MAX_ATTEMPTS`` attempts.
"""

from __future__ import annotations

import logging
import smtplib
import time
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db import DatabaseError, connection, transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import timezone

from ..models import Alert, AlertPreference, Recheck, VerdictChange

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
# A claim older than this belongs to a worker that died mid-send; the sweep releases it.
CLAIM_TIMEOUT = timedelta(seconds=settings.ALERT_CLAIM_TIMEOUT_SECONDS)
# How long a sent digest waits for the database to mark its alerts sent (a restart, a failover), well within
# CLAIM_TIMEOUT; beyond it the claim is released and the digest may be mailed again.
MARK_SENT_PATIENCE = min(120.0, CLAIM_TIMEOUT.total_seconds() / 2)


def smtp_unavailable(exc: BaseException) -> bool:
    """Whether an SMTP failure says the server is unavailable (try again later, however long) rather than that
    it refuses this message (a 5xx answer, or every recipient refused)."""
    if isinstance(exc, smtplib.SMTPConnectError | smtplib.SMTPServerDisconnected):
        return True
    if isinstance(exc, smtplib.SMTPResponseException):
        return exc.smtp_code < 500
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return all(code < 500 for code, _ in exc.recipients.values())
    if isinstance(exc, smtplib.SMTPException):  # a subclass of OSError: misconfiguration, not an outage
        return False
    return isinstance(exc, OSError)  # refused, reset, unreachable, timed out


def alert_recipients(profile) -> list:
    """The profile's owner and its team's watchers (team memberships with ``watch``), without duplicates."""
    User = get_user_model()
    watcher_ids = User.objects.filter(memberships__team_id=profile.team_id, memberships__watch=True).values(
        "pk"
    )
    return list(
        User.objects.filter(Q(pk=profile.owner_id) | Q(pk__in=watcher_ids), is_active=True).order_by("pk")
    )


def alerts_create_for_change(*, change: VerdictChange, recheck: Recheck | None) -> list[Alert]:
    recipients = alert_recipients(change.profile)
    muted = set(
        AlertPreference.objects.filter(user__in=recipients, email_alerts=False).values_list(
            "user_id", flat=True
        )
    )
    alerts = [
        Alert(
            recipient=user,
            profile=change.profile,
            change=change,
            recheck=recheck,
            state=Alert.State.SUPPRESSED if user.pk in muted else Alert.State.PENDING,
        )
        for user in recipients
    ]
    return Alert.objects.bulk_create(alerts, ignore_conflicts=True)


def alerts_create_for_changes(*, changes: list[VerdictChange], recheck: Recheck | None) -> int:
    """:func:`alerts_create_for_change` for many changes (a re-check batch) in three queries."""
    if not changes:
        return 0
    User = get_user_model()
    profiles = [change.profile for change in changes]
    watchers: dict[int, set[int]] = {}
    for team_id, user_id in User.objects.filter(
        memberships__team_id__in={p.team_id for p in profiles}, memberships__watch=True, is_active=True
    ).values_list("memberships__team_id", "pk"):
        watchers.setdefault(team_id, set()).add(user_id)
    owners = {p.owner_id for p in profiles}
    active_owners = set(User.objects.filter(pk__in=owners, is_active=True).values_list("pk", flat=True))
    wanted = owners | {u for ids in watchers.values() for u in ids}
    muted = AlertPreference.objects.filter(user_id__in=wanted, email_alerts=False)
    muted = set(muted.values_list("user_id", flat=True))
    alerts = []
    for change in changes:
        profile = change.profile
        recipients = watchers.get(profile.team_id, set()) | ({profile.owner_id} & active_owners)
        alerts.extend(
            Alert(
                recipient_id=user_id,
                profile=profile,
                change=change,
                recheck=recheck,
                state=Alert.State.SUPPRESSED if user_id in muted else Alert.State.PENDING,
            )
            for user_id in sorted(recipients)
        )
    return len(Alert.objects.bulk_create(alerts, ignore_conflicts=True))


def _claim(recipient_id: int, recheck_id: int | None) -> list[int]:
    """Claim the recipient's pending alerts of a finished re-check (one digest per re-check: a task that runs
    early, a retry of another one, say, leaves a running re-check's alerts to the digest sent at its end)."""
    with transaction.atomic():
        alerts = Alert.objects.select_for_update(skip_locked=True, of=("self",)).filter(
            Q(recheck__isnull=True) | Q(recheck__state=Recheck.State.DONE),
            recipient_id=recipient_id,
            state=Alert.State.PENDING,
            recheck_id=recheck_id,
        )
        ids = list(alerts.values_list("pk", flat=True))
        Alert.objects.filter(pk__in=ids).update(state=Alert.State.SENDING, claimed_at=timezone.now())
    return ids


def pending_recipients(recheck_id: int) -> list[int]:
    alerts = Alert.objects.filter(state=Alert.State.PENDING, recheck_id=recheck_id)
    return sorted(set(alerts.values_list("recipient_id", flat=True)))


def pending_digests() -> list[tuple[int, int | None]]:
    """(recipient, re-check) pairs still to mail, for re-checks that have finished.

    A running re-check's alerts wait for its end, so that each recipient gets one digest per re-check.
    """
    alerts = Alert.objects.filter(state=Alert.State.PENDING).filter(
        Q(recheck__isnull=True) | Q(recheck__state=Recheck.State.DONE)
    )
    return sorted(set(alerts.values_list("recipient_id", "recheck_id")), key=lambda p: (p[0], p[1] or 0))


# What a digest reads of each alert (``build_digest``, the templates), and nothing else: a re-check that
# breaks a thousand profiles of one owner mails one digest of a thousand alerts, and each related row read
# whole (the rule set's derived values, tens of KB of JSON, decoded once per alert) cost a worker ~90 MB.
DIGEST_FIELDS = (
    "attempts",
    "profile__name",
    "profile__kind",
    "profile__team__slug",
    "change__appeared",
    "change__cause",
    "change__cause_detail",
    "change__release__version",
)


def alerts_send_digest(*, recipient_id: int, recheck_id: int | None = None) -> int:
    """Send one digest to one recipient for their pending alerts (of one re-check). Returns alerts sent.

    Raises the SMTP error after putting the alerts back to pending, so the task can retry with backoff.
    """
    ids = _claim(recipient_id, recheck_id)
    if not ids:
        return 0
    alerts = list(
        Alert.objects.filter(pk__in=ids)
        .select_related("profile__team", "change__release")
        .only(*DIGEST_FIELDS)
        .order_by("profile__team__slug", "profile__name")
    )
    recipient = get_user_model().objects.get(pk=recipient_id)
    message = build_digest(recipient, alerts)
    try:
        message.send()
    except Exception as exc:
        with transaction.atomic():
            rows = Alert.objects.filter(pk__in=ids)
            attempts = alerts[0].attempts + 1
            final = attempts >= MAX_ATTEMPTS and not smtp_unavailable(exc)
            rows.update(
                state=Alert.State.FAILED if final else Alert.State.PENDING,
                attempts=attempts,
                last_error=f"{type(exc).__name__}: {exc}"[:2000],
                claimed_at=None,
            )
        raise
    _mark_sent(ids)
    return len(ids)


def _mark_sent(ids: list[int]) -> None:
    """Mark mailed alerts sent, waiting out a database outage (reconnecting) for up to MARK_SENT_PATIENCE."""
    deadline, pause = time.monotonic() + MARK_SENT_PATIENCE, 0.2
    while True:
        try:
            Alert.objects.filter(pk__in=ids).update(
                state=Alert.State.SENT, sent_at=timezone.now(), last_error="", claimed_at=None
            )
            return
        except DatabaseError:
            if time.monotonic() > deadline or connection.in_atomic_block:
                log.exception("alerts %s were mailed but could not be marked sent", ids)
                raise
            log.warning("alerts %s were mailed; waiting for the database to mark them sent", ids)
            connection.close()  # a broken connection is replaced by the next query
            time.sleep(pause)
            pause = min(pause * 2, 5.0)


def build_digest(recipient, alerts: list[Alert]) -> EmailMultiAlternatives:
    site = settings.SITE_URL.rstrip("/")
    items = []
    for alert in alerts:
        change = alert.change
        errors = [f for f in change.appeared if f.get("severity") == "error"]
        release = change.release.version if change.release else ""
        items.append(
            {
                "profile": alert.profile,
                "url": f"{site}/profiles/{alert.profile_id}/",
                "release": change.release.version if change.release else "",
                "cause": change.get_cause_display(),
                "cause_detail": change.cause_detail,
                "errors": errors,
                "why": _why_invalid(errors, release),
            }
        )
    count = len(items)
    # A profile's name is a user's text: on one line in the subject (a line break there would make Django
    # refuse the whole message, and the digest would never go out).
    subject = (
        f"[vLLM Profiles] {' '.join(str(items[0]['profile']).split())} became invalid"
        if count == 1
        else f"[vLLM Profiles] {count} profiles became invalid"
    )
    context = {"recipient": recipient, "items": items, "site": site}
    message = EmailMultiAlternatives(
        subject=subject,
        body=render_to_string("email/alert_digest.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[recipient.email],
        connection=get_connection(timeout=settings.EMAIL_TIMEOUT),
    )
    message.attach_alternative(render_to_string("email/alert_digest.html", context), "text/html")
    return message


def _why_invalid(errors: list[dict], release: str) -> str:
    """Why the profile is invalid, in words that follow its errors' categories: only vLLM's own checks
    (``vllm`` and ``catalog`` rules) mean vLLM would refuse to start it; a ``policy`` rule is the
    organisation's, and vLLM itself may well start the profile."""
    refused = any(f.get("category") != "policy" for f in errors)
    policy = any(f.get("category") == "policy" for f in errors)
    vllm = f"vLLM {release}" if release else "vLLM"
    if refused and policy:
        return f"{vllm} would refuse to start it, and it breaks a policy rule of your organisation"
    if policy:
        return f"it breaks a policy rule of your organisation ({vllm} itself would start it)"
    return f"{vllm} would refuse to start it"


def release_stale_claims() -> int:
    """Put back alerts claimed by a worker that died before finishing its send."""
    cutoff = timezone.now() - CLAIM_TIMEOUT
    return Alert.objects.filter(state=Alert.State.SENDING, claimed_at__lt=cutoff).update(
        state=Alert.State.PENDING, claimed_at=None
    )


def alert_preference_set(*, user, email_alerts: bool) -> AlertPreference:
    preference, _ = AlertPreference.objects.update_or_create(
        user=user, defaults={"email_alerts": email_alerts}
    )
    return preference
