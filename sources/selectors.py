"""Reads of Git sources and credentials."""

from __future__ import annotations

from profiles.selectors import teams_visible_to

from .models import GitCredential, GitSource


def git_sources_visible_to(user):
    return GitSource.objects.filter(team__in=teams_visible_to(user)).select_related(
        "team", "owner", "credential"
    )


def git_credentials_visible_to(user):
    """The team's members see a credential's name, host and fingerprint (to name it in a source); nobody
    reads its secret back."""
    return GitCredential.objects.filter(team__in=teams_visible_to(user)).select_related("team", "created_by")
