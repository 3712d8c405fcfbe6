"""Git repositories whose files are profiles: synced by beat, read-only in the dashboard ("edit in Git")."""

from __future__ import annotations

from django.conf import settings
from django.db import models


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
        max_length=500, help_text="What `git clone` takes: https://..., ssh://..., a path."
    )
    branch = models.CharField(max_length=200, default="main")
    paths = models.JSONField(
        default=list,
        help_text='Glob patterns of the files to read, e.g. ["deploy/**/*.yaml", "profiles/*.sh"].',
    )
    kind = models.CharField(
        max_length=12, default="serving", help_text="The kind of the profiles it creates."
    )
    credentials_env = models.CharField(
        max_length=100,
        blank=True,
        help_text="Name of the environment variable holding an https access token (never the token).",
    )
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
