"""Reads of Git sources."""

from __future__ import annotations

from profiles.selectors import teams_visible_to

from .models import GitSource


def git_sources_visible_to(user):
    return GitSource.objects.filter(team__in=teams_visible_to(user)).select_related("team", "owner")
