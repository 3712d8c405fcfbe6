"""Profiles kept by a machine from an outside source of truth (a Git repository), whatever their verdict.

A person's save is refused while vLLM would refuse the profile; a synced profile mirrors what is in Git, so an
invalid one is stored, marked invalid, and its owner alerted with the commit that did it. People cannot edit
it here (``profile_update`` refuses: "edit it in Git").
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from validation.engine.types import Verdict
from validation.models import VerdictChange
from validation.services.alerts import alerts_create_for_change

from .models import Profile, Team
from .services import ProfileInput, _active_waivers, _apply_input, _store, profile_check, profile_snapshot


def synced_source(profile: Profile) -> dict[str, Any] | None:
    """The Git origin of a synced profile, or None for a profile people edit here."""
    source = profile.source or {}
    return source if source.get("type") == "git" else None


def profile_sync_save(
    *, owner, team: Team, data: ProfileInput, source: dict[str, Any], cause_detail: str
) -> tuple[Profile, Verdict, VerdictChange | None]:
    """Create or update the profile of ``source["key"]`` in ``team``; a no-op when nothing changed."""
    profile = (
        Profile.objects.filter(team=team, source__type="git", source__key=source["key"])
        .select_related("vllm_release")
        .first()
    )
    created = profile is None
    if created:
        profile = Profile(team=team, owner=owner, revision=1)
    before = None if created else profile_snapshot(profile)
    _apply_input(profile, data)
    verdict, release = profile_check(profile, waived=_active_waivers(profile))
    if not created and profile_snapshot(profile) == before and profile.source == source:
        return profile, verdict, None
    with transaction.atomic():
        if not created:
            profile.revision += 1
        profile.source = source
        cause = "created" if created else "edit"
        change = _store(
            profile, actor=None, verdict=verdict, release=release, cause=cause, detail=cause_detail[:200]
        )
        if change is not None and change.to_state == "invalid" and change.from_state != "invalid":
            alerts_create_for_change(change=change, recheck=None)
    return profile, verdict, change
