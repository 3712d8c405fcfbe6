"""Notification targets and their deliveries.

Deliveries follow the e-mail digests' exactly-once pattern (validation/services/alerts.py): a delivery row is
unique per target and event, so collecting an event twice creates nothing; sending claims it (``sending``) in
a short transaction before the HTTP post and marks it ``sent`` after it, so a retried or redelivered task
never posts it twice. A worker killed between the post and the mark leaves the claim, which the sweep
releases after ``NOTIFY_CLAIM_TIMEOUT_SECONDS``: the delivery is then posted again, with the same idempotency
key (``Idempotency-Key`` header, CloudEvents ``id``), so that a receiver drops the second copy. Slack and
Teams cannot drop it: for them a kill in that window (milliseconds) can show the message twice.

A failed post (no answer, a 5xx, 408 or 429) goes back to ``pending`` and is retried with back-off by Celery,
then by the sweep; a refused one (another 4xx, a redirect, a URL the security rule refuses) is ``failed``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import time
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts import permissions
from accounts.errors import DomainError
from sources import vault

from . import outbound
from .models import Delivery, NotificationTarget

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 6
TRANSITIONS = ("newly_invalid", "fixed", "waiver_expiring", "summary")
SEVERITIES = ("error", "warning")
SIGNATURE_HEADER = "X-Vllm-Profiles-Signature"
TIMESTAMP_HEADER = "X-Vllm-Profiles-Timestamp"
EVENT_TYPES = {
    "newly_invalid": "io.vllm-profiles.profile.invalid",
    "fixed": "io.vllm-profiles.profile.fixed",
    "waiver_expiring": "io.vllm-profiles.waiver.expiring",
    "summary": "io.vllm-profiles.team.summary",
    "test": "io.vllm-profiles.test",
}


def mask_url(url: str) -> str:
    """Scheme, host and the path's last four characters: enough to tell targets apart, no token."""
    parts = urlsplit(url)
    tail = (parts.path + (f"?{parts.query}" if parts.query else ""))[-4:]
    host = parts.netloc.rsplit("@", 1)[-1]
    return f"{parts.scheme}://{host[:250]}/…{tail}"


def _choices(name: str, values, allowed) -> list[str]:
    values = list(values or [])
    wrong = [v for v in values if v not in allowed]
    if wrong:
        raise DomainError(f"{name}: {', '.join(map(str, wrong))} not one of {', '.join(allowed)}", field=name)
    return values


def target_create(
    *, actor, team, name: str, kind: str, url: str, transitions=(), severities=(), kinds=(), labels=()
) -> tuple[NotificationTarget, str]:
    """A new target; returns it and, for a generic webhook, its signing secret (shown this once)."""
    permissions.require(
        permissions.can_manage_notification_targets(actor, team),
        f"only admins of team {team.slug!r} manage its targets",
    )
    if kind not in NotificationTarget.Kind.values:
        raise DomainError(f"kind: not one of {', '.join(NotificationTarget.Kind.values)}", field="kind")
    name = (name or "").strip()
    if not name:
        raise DomainError("name: required", field="name")
    if NotificationTarget.objects.filter(team=team, name=name).exists():
        raise DomainError(f"name: team {team.slug!r} already has a target {name!r}", field="name")
    try:
        outbound.check_url(url)
    except outbound.TargetRefused as exc:
        raise DomainError(str(exc), field="url") from exc  # our own sentence, never a library's text
    secret = secrets.token_urlsafe(32) if kind == NotificationTarget.Kind.WEBHOOK else ""
    target = NotificationTarget.objects.create(
        team=team,
        name=name,
        kind=kind,
        url_encrypted=vault.encrypt(url),
        url_masked=mask_url(url),
        secret_encrypted=vault.encrypt(secret) if secret else "",
        transitions=_choices("transitions", transitions, TRANSITIONS),
        severities=_choices("severities", severities, SEVERITIES),
        kinds=_choices("kinds", kinds, ("serving", "collection")),
        labels=[str(label) for label in labels or []],
        created_by=actor,
    )
    return target, secret


def target_delete(*, actor, target: NotificationTarget) -> None:
    permissions.require(
        permissions.can_manage_notification_targets(actor, target.team),
        f"only admins of team {target.team.slug!r} manage its targets",
    )
    target.delete()


def target_send_test(*, actor, target: NotificationTarget) -> Delivery:
    """A test message to the target, now (through the worker, like every delivery)."""
    permissions.require(
        permissions.can_manage_notification_targets(actor, target.team),
        f"only admins of team {target.team.slug!r} manage its targets",
    )
    delivery = Delivery.objects.create(
        target=target,
        event_key=f"test:{secrets.token_hex(8)}",
        event_type="test",
        data={"team": target.team.slug, "text": f"Test message for {target.name} of team {target.team.slug}"},
    )
    enqueue_delivery(delivery.pk)
    return delivery


def enqueue_delivery(delivery_id: int) -> None:
    def send():
        from .tasks import deliver_task  # lazily: the tasks import the services

        try:
            deliver_task.delay(delivery_id)
        except Exception:
            log.warning("could not enqueue delivery %s; the sweep will send it", delivery_id, exc_info=True)

    transaction.on_commit(send)


# ---- events


def _matches(target: NotificationTarget, transition: str, *, kind: str = "", findings=()) -> bool:
    if target.transitions and transition not in target.transitions:
        return False
    if target.kinds and kind and kind not in target.kinds:
        return False
    if target.severities and findings and not any(f.get("severity") in target.severities for f in findings):
        return False
    if target.labels and findings:
        names = {str(f.get("category", "")) for f in findings} | {str(f.get("rule", "")) for f in findings}
        if not names & set(target.labels):
            return False
    return True


def _change_event(change) -> tuple[str, dict] | None:
    invalid = "invalid"
    if change.to_state == invalid and change.from_state != invalid:
        transition = "newly_invalid"
    elif change.from_state == invalid and change.to_state != invalid:
        transition = "fixed"
    else:
        return None
    site = settings.SITE_URL.rstrip("/")
    profile = change.profile
    findings = change.appeared if transition == "newly_invalid" else change.disappeared
    return transition, {
        "schema": "vllm-profiles.notification/v1",
        "transition": transition,
        "team": profile.team.slug,
        "profile": {
            "id": profile.pk,
            "name": profile.name,
            "kind": profile.kind,
            "url": f"{site}/profiles/{profile.pk}/",
        },
        "from_state": change.from_state or None,
        "to_state": change.to_state,
        "cause": change.cause,
        "cause_detail": change.cause_detail,
        "release": change.release.version if change.release else None,
        "findings": [
            {k: f.get(k) for k in ("rule", "severity", "category", "message") if k in f}
            for f in findings
            if f.get("severity") in ("error", "warning")
        ][:50],
    }


def collect(*, since=None) -> int:
    """Create the deliveries of recent verdict changes (newly invalid, fixed) and of waivers about to expire,
    for every enabled target whose filters let them through. Idempotent (unique per target and event)."""
    from profiles.models import VerdictChange, Waiver

    now = timezone.now()
    since = since or now - timedelta(seconds=settings.NOTIFY_LOOKBACK_SECONDS)
    targets: dict[int, list[NotificationTarget]] = {}
    for target in NotificationTarget.objects.filter(enabled=True).select_related("team"):
        targets.setdefault(target.team_id, []).append(target)
    if not targets:
        return 0
    rows = []
    changes = (
        VerdictChange.objects.filter(created_at__gte=since, profile__team_id__in=targets)
        .select_related("profile__team", "release")
        .order_by("pk")
    )
    for change in changes.iterator(chunk_size=500):
        event = _change_event(change)
        if event is None:
            continue
        transition, data = event
        for target in targets[change.profile.team_id]:
            if target.created_at > change.created_at:
                continue
            if _matches(target, transition, kind=change.profile.kind, findings=data["findings"]):
                rows.append(
                    Delivery(target=target, event_key=f"change:{change.pk}", event_type=transition, data=data)
                )
    horizon = now + timedelta(days=settings.NOTIFY_WAIVER_EXPIRY_DAYS)
    waivers = Waiver.objects.filter(
        granted_by__isnull=False,
        revoked_at__isnull=True,
        expires_at__gt=now,
        expires_at__lte=horizon,
        profile__team_id__in=targets,
    ).select_related("profile__team")
    site = settings.SITE_URL.rstrip("/")
    for waiver in waivers:
        profile = waiver.profile
        data = {
            "schema": "vllm-profiles.notification/v1",
            "transition": "waiver_expiring",
            "team": profile.team.slug,
            "profile": {
                "id": profile.pk,
                "name": profile.name,
                "kind": profile.kind,
                "url": f"{site}/profiles/{profile.pk}/",
            },
            "rule_id": waiver.rule_id,
            "expires_at": waiver.expires_at.isoformat(),
        }
        for target in targets[profile.team_id]:
            if _matches(target, "waiver_expiring", kind=profile.kind, findings=[{"rule": waiver.rule_id}]):
                rows.append(
                    Delivery(
                        target=target,
                        event_key=f"waiver:{waiver.pk}:{waiver.expires_at:%Y%m%d%H%M}",
                        event_type="waiver_expiring",
                        data=data,
                    )
                )
    before = Delivery.objects.count()
    Delivery.objects.bulk_create(rows, ignore_conflicts=True)
    return Delivery.objects.count() - before  # what was new (about: other writers may run meanwhile)


# ---- sending


def _text(delivery: Delivery) -> str:
    data = delivery.data
    if delivery.event_type in ("test", "summary"):
        return data.get("text", "")
    profile = data.get("profile", {})
    name = " ".join(str(profile.get("name", "")).split())
    if delivery.event_type == "waiver_expiring":
        return (
            f"Waiver of {data.get('rule_id')} for {name} ({data.get('team')}) expires "
            f"{data.get('expires_at')}: {profile.get('url')}"
        )
    if delivery.event_type == "fixed":
        return f"{name} ({data.get('team')}) is no longer invalid ({data.get('cause')}): {profile.get('url')}"
    errors = [
        f"{f.get('rule')}: {f.get('message')}"
        for f in data.get("findings", [])
        if f.get("severity") == "error"
    ]
    lines = [f"{name} ({data.get('team')}) became invalid ({data.get('cause')}): {profile.get('url')}"]
    lines += [f"• {e}" for e in errors[:10]]
    return "\n".join(lines)


def cloudevent(delivery: Delivery) -> dict:
    """The generic webhook's body: a CloudEvents 1.0 envelope (structured mode) around ``data``
    (docs/notifications.md describes the schema)."""
    site = settings.SITE_URL.rstrip("/")
    profile = delivery.data.get("profile") or {}
    return {
        "specversion": "1.0",
        "id": str(delivery.event_id),
        "source": f"{site}/teams/{delivery.target.team.slug}/",
        "type": EVENT_TYPES[delivery.event_type],
        "subject": f"profiles/{profile['id']}" if profile.get("id") else None,
        "time": delivery.created_at.isoformat(),
        "datacontenttype": "application/json",
        "dataschema": f"{site}/docs/notifications/v1",
        "data": delivery.data,
    }


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """``sha256=<hex>``: HMAC-SHA256 of ``<timestamp>.<body>`` under the target's secret."""
    return "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def request_for(delivery: Delivery) -> tuple[bytes, dict[str, str]]:
    target = delivery.target
    headers = {"Idempotency-Key": str(delivery.event_id)}
    text = _text(delivery)
    if target.kind == NotificationTarget.Kind.SLACK:
        body = {"text": text}
    elif target.kind == NotificationTarget.Kind.TEAMS:
        body = {
            "type": "message",
            "attachments": [
                {
                    "contentType": "application/vnd.microsoft.card.adaptive",
                    "content": {
                        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
                        "type": "AdaptiveCard",
                        "version": "1.4",
                        "body": [{"type": "TextBlock", "text": text, "wrap": True}],
                    },
                }
            ],
        }
    else:
        body = cloudevent(delivery)
    raw = json.dumps(body, separators=(",", ":")).encode()
    if target.kind == NotificationTarget.Kind.WEBHOOK:
        headers["Content-Type"] = "application/cloudevents+json"
        timestamp = str(int(time.time()))
        headers[TIMESTAMP_HEADER] = timestamp
        headers[SIGNATURE_HEADER] = sign(vault.decrypt(target.secret_encrypted), timestamp, raw)
    else:
        headers["Content-Type"] = "application/json"
    return raw, headers


class DeliveryFailed(RuntimeError):
    """A post that may succeed later (the task retries it)."""


def _claim(delivery_id: int) -> Delivery | None:
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(skip_locked=True)
            .filter(pk=delivery_id, state=Delivery.State.PENDING)
            .first()
        )
        if delivery is None:
            return None
        delivery.state, delivery.claimed_at = Delivery.State.SENDING, timezone.now()
        delivery.save(update_fields=["state", "claimed_at"])
    return Delivery.objects.select_related("target__team").get(pk=delivery_id)


def _finish(delivery: Delivery, *, state: str, status: int | None = None, error: str = "") -> None:
    fields = {"state": state, "last_status": status, "last_error": error[:300], "claimed_at": None}
    if state == Delivery.State.SENT:
        fields["sent_at"] = timezone.now()
    else:
        fields["attempts"] = delivery.attempts + 1
    Delivery.objects.filter(pk=delivery.pk).update(**fields)


def deliver(delivery_id: int) -> str:
    """Post one delivery once. Returns its state; raises :class:`DeliveryFailed` for a retry later."""
    delivery = _claim(delivery_id)
    if delivery is None:
        return "not pending"
    if not delivery.target.enabled:
        _finish(delivery, state=Delivery.State.FAILED, error="the target is disabled")
        return Delivery.State.FAILED
    try:
        body, headers = request_for(delivery)
        answer = outbound.post(vault.decrypt(delivery.target.url_encrypted), body, headers)
    except outbound.TargetRefused as exc:
        _finish(delivery, state=Delivery.State.FAILED, error=str(exc))
        return Delivery.State.FAILED
    except vault.VaultError as exc:
        _finish(delivery, state=Delivery.State.FAILED, error=str(exc))
        return Delivery.State.FAILED
    except Exception as exc:  # no answer: refused, reset, timed out, TLS refused
        retry = delivery.attempts + 1 < MAX_ATTEMPTS
        _finish(
            delivery,
            state=Delivery.State.PENDING if retry else Delivery.State.FAILED,
            error=f"no answer ({type(exc).__name__})",
        )
        if retry:
            raise DeliveryFailed(delivery_id) from exc
        return Delivery.State.FAILED
    if 200 <= answer.status < 300:
        _finish(delivery, state=Delivery.State.SENT, status=answer.status)
        return Delivery.State.SENT
    if 300 <= answer.status < 400:
        _finish(delivery, state=Delivery.State.FAILED, status=answer.status, error="redirect not followed")
        return Delivery.State.FAILED
    transient = answer.status >= 500 or answer.status in (408, 429)
    if transient and delivery.attempts + 1 < MAX_ATTEMPTS:
        _finish(delivery, state=Delivery.State.PENDING, status=answer.status, error=f"HTTP {answer.status}")
        raise DeliveryFailed(delivery_id)
    _finish(delivery, state=Delivery.State.FAILED, status=answer.status, error=f"HTTP {answer.status}")
    return Delivery.State.FAILED


def release_stale_claims() -> int:
    cutoff = timezone.now() - timedelta(seconds=settings.NOTIFY_CLAIM_TIMEOUT_SECONDS)
    return Delivery.objects.filter(state=Delivery.State.SENDING, claimed_at__lt=cutoff).update(
        state=Delivery.State.PENDING, claimed_at=None
    )


def pending_ids(limit: int = 500) -> list[int]:
    return list(
        Delivery.objects.filter(state=Delivery.State.PENDING)
        .order_by("pk")
        .values_list("pk", flat=True)[:limit]
    )
