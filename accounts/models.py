from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A user's named API key. Only the sha256 of the key is stored; the key is shown once, at creation.

    ``Authorization: Token KEY`` finds the row by ``digest`` (unique index): one query per request."""

    # Not stored: what a view asked to read with the token in that query (``selectors.token_by_digest``).
    prefetched: tuple = ()

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, help_text="The key's first characters, to recognise it.")
    digest = models.CharField(max_length=64, unique=True, editable=False)
    read_only = models.BooleanField(default=False, help_text="Reads only: GET, HEAD, OPTIONS.")
    expires_at = models.DateTimeField(null=True, blank=True, help_text="Empty: never expires.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "name"],
                condition=models.Q(revoked_at__isnull=True),
                name="unique_live_token_name_per_user",
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} / {self.name} ({self.prefix}…)"


class AuditEvent(models.Model):
    """Who changed what, when, from which address and through what, with before and after.

    Written only by ``accounts.audit.audit_record`` (called by the services); never changed or deleted by
    the product: the admin and the API only read it."""

    class Via(models.TextChoices):
        PAGE = "page", "page"
        API = "api", "API"
        ADMIN = "admin", "admin"
        WORKER = "worker", "worker"
        COMMAND = "command", "command"
        SYSTEM = "system", "system"

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(  # no index of its own: audit_actor_at (actor, at) leads with it
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
    )
    actor_name = models.CharField(max_length=150, blank=True, help_text="Kept when the user is deleted.")
    via = models.CharField(max_length=10, choices=Via.choices)
    address = models.GenericIPAddressField(null=True, blank=True)
    action = models.CharField(max_length=60, db_index=True)  # e.g. "profile.update"
    object_type = models.CharField(max_length=30)  # profile, ruleset, rule, waiver, fleet, release, team ...
    object_id = models.CharField(max_length=64, blank=True)
    object_repr = models.CharField(max_length=300, blank=True)
    # The team the object belongs to (profiles, waivers, teams, memberships), for the team admins' view.
    team_id = models.PositiveIntegerField(null=True, blank=True)
    team_slug = models.CharField(max_length=100, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["object_type", "object_id"], name="audit_object"),
            models.Index(fields=["team_id", "at"], name="audit_team_at"),
            models.Index(fields=["actor", "at"], name="audit_actor_at"),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name or '-'} {self.action} {self.object_repr}"
