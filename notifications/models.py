"""A team's notification targets (Slack, Microsoft Teams, generic webhooks) and the log of what was sent."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class NotificationTarget(models.Model):
    class Kind(models.TextChoices):
        SLACK = "slack", "Slack incoming webhook"
        TEAMS = "teams", "Microsoft Teams incoming webhook"
        WEBHOOK = "webhook", "generic webhook (signed CloudEvents JSON)"

    team = models.ForeignKey("profiles.Team", on_delete=models.CASCADE, related_name="notification_targets")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    # The URL is a secret itself (Slack's and Teams' carry their token): Fernet-encrypted under a key kept out
    # of the database (sources.vault), shown masked.
    url_encrypted = models.TextField()
    url_masked = models.CharField(max_length=300)
    # A generic webhook's HMAC-SHA256 key, encrypted the same way; shown once, when the target is created.
    secret_encrypted = models.TextField(blank=True)
    # Filters; an empty list lets everything through.
    transitions = models.JSONField(default=list, blank=True)
    severities = models.JSONField(default=list, blank=True)
    kinds = models.JSONField(default=list, blank=True)
    labels = models.JSONField(default=list, blank=True)
    enabled = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["team_id", "name"]
        constraints = [models.UniqueConstraint(fields=["team", "name"], name="notification_target_name")]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class Delivery(models.Model):
    """One event for one target. Unique per (target, event_key): collecting the same event twice creates
    nothing. ``event_id`` is the idempotency key the receiver sees (header ``Idempotency-Key`` and the
    CloudEvents ``id``): a delivery sent again after a worker died mid-send carries the same one."""

    class State(models.TextChoices):
        PENDING = "pending", "pending"
        SENDING = "sending", "sending"
        SENT = "sent", "sent"
        FAILED = "failed", "failed"

    target = models.ForeignKey(NotificationTarget, on_delete=models.CASCADE, related_name="deliveries")
    event_key = models.CharField(max_length=200)
    event_id = models.UUIDField(default=uuid.uuid4, editable=False)
    event_type = models.CharField(max_length=60)
    data = models.JSONField(default=dict)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["target", "event_key"], name="delivery_once")]
        indexes = [models.Index(fields=["state", "claimed_at"])]

    def __str__(self) -> str:
        return f"{self.event_type} to {self.target_id} ({self.state})"


class TeamSummary(models.Model):
    """One scheduled summary of one team for one period (``2026-W49``): the row is created before anything is
    sent, so a second run of the same period (a beat restart, a redelivered task) sends nothing again."""

    team = models.ForeignKey("profiles.Team", on_delete=models.CASCADE, related_name="+")
    period = models.CharField(max_length=20)
    data = models.JSONField(default=dict)
    mailed_to = models.PositiveIntegerField(default=0)
    mail_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["team", "period"], name="team_summary_once")]

    def __str__(self) -> str:
        return f"summary of {self.team_id} for {self.period}"
