"""Git repositories whose files are profiles: synced by beat, read-only in the dashboard ("edit in Git")."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class GitCredential(models.Model):
    """A token or SSH key a team's sources use, bound to one Git host; the secret is stored encrypted
    (``sources.vault``) and never shown again after it was given."""

    class Kind(models.TextChoices):
        TOKEN = "token", "https access token"
        SSH_KEY = "ssh_key", "SSH private key"

    team = models.ForeignKey("profiles.Team", on_delete=models.CASCADE, related_name="git_credentials")
    name = models.SlugField(max_length=100)
    host = models.CharField(
        max_length=260, help_text="The only host it is sent to: git.example.com, or git.example.com:8443."
    )
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.TOKEN)
    username = models.CharField(
        max_length=100, default="x-access-token", help_text="The user name sent with a token (https)."
    )
    secret_encrypted = models.TextField(editable=False)
    fingerprint = models.CharField(
        max_length=120, editable=False, help_text="sha256 of the token, or the SSH key's public fingerprint."
    )
    public_key = models.TextField(blank=True, editable=False, help_text="The SSH key's public half.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["team__slug", "name"]
        constraints = [
            models.UniqueConstraint(fields=["team", "name"], name="unique_git_credential_per_team")
        ]

    def __str__(self) -> str:
        return f"{self.team.slug}/{self.name} ({self.host})"


class GitSource(models.Model):
    team = models.ForeignKey("profiles.Team", on_delete=models.PROTECT, related_name="git_sources")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Owns the profiles the sync creates (and gets their alerts).",
    )
    name = models.SlugField(max_length=100)
    url = models.CharField(
        max_length=500, help_text="https://host/path.git, ssh://host/path or user@host:path (remote only)."
    )
    branch = models.CharField(max_length=200, default="main")
    paths = models.JSONField(
        default=list,
        help_text='Glob patterns of the files to read, e.g. ["deploy/**/*.yaml", "profiles/*.sh"].',
    )
    kind = models.CharField(
        max_length=12, default="serving", help_text="The kind of the profiles it creates."
    )
    credential = models.ForeignKey(
        GitCredential,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="sources",
        help_text="The team's Git credential, bound to this source's host.",
    )
    credentials_env = models.CharField(
        max_length=100,
        blank=True,
        help_text="Legacy: a variable holding a token; read only if on GIT_CREDENTIALS_ENV_ALLOWED.",
    )
    disabled_reason = models.TextField(
        blank=True, help_text="Why the source is not synced (empty: it is); the owner is told once."
    )
    owner_notified_at = models.DateTimeField(null=True, blank=True)
    last_commit = models.CharField(max_length=64, blank=True)
    last_synced_at = models.DateTimeField(null=True, blank=True)
    last_errors = models.JSONField(
        default=list, blank=True, help_text="Files that could not be read: path, error."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["team__slug", "name"]
        constraints = [models.UniqueConstraint(fields=["team", "name"], name="unique_git_source_per_team")]

    def __str__(self) -> str:
        return f"{self.team.slug}/{self.name}"
