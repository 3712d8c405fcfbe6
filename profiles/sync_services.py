"""Profiles kept by a machine from an outside source of truth (a Git repository), whatever their verdict.

A person's save is refused while vLLM would refuse the profile; a synced profile mirrors what is in Git, so an
invalid one is stored, marked invalid, and its owner alerted with the commit that did it. People cannot edit
it here (``profile_update`` refuses: "edit it in Git").
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from vllmcheck.engine.types import Verdict

from .models import Profile, Team, VerdictChange
from .services.alerts import alerts_create_for_change
from .services.profiles import (
    ProfileInput,
    _active_waivers,
    _apply_input,
    _model_sources_keep,
    _store,
    profile_snapshot,
)
from .services.verdicts import profile_check

REMOVED = "git-removed"  # the source type of a profile whose file (or container) left the repository


def profile_sync_save(
    *, owner, team: Team, data: ProfileInput, source: dict[str, Any], cause_detail: str
) -> tuple[Profile, Verdict, VerdictChange | None]:
    """Create or update the profile of ``source["key"]`` in ``team``; a no-op when nothing changed."""
    profile = (
        Profile.objects.filter(team=team, source__type__in=["git", REMOVED], source__key=source["key"])
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
    _model_sources_keep(profile)  # a synced profile is stored, valid or not
    with transaction.atomic():
        if not created:
            profile.revision += 1
        profile.source = source
        cause = "created" if created else "edit"
        change = _store(
            profile,
            actor=None,
            verdict=verdict,
            release=release,
            cause=cause,
            detail=cause_detail[:200],
            before=None if created else {**before, "revision": profile.revision - 1},
        )
        if change is not None and change.to_state == "invalid" and change.from_state != "invalid":
            alerts_create_for_change(change=change, recheck=None)
    return profile, verdict, change


def profile_sync_remove(*, profile: Profile, change_info: dict[str, str], cause_detail: str) -> VerdictChange:
    """The profile's file (or its container) was removed from the repository: it is no longer synced.

    It is kept with its verdict and history (people may edit or delete it here now), its source says which
    commit removed it, and its history says so. A file that comes back re-attaches to it.
    """
    with transaction.atomic():
        profile = Profile.objects.select_for_update(of=("self",)).select_related("verdict").get(pk=profile.pk)
        profile.source = {**profile.source, "type": REMOVED, "removed": change_info}
        profile.save(update_fields=["source", "updated_at"])
        verdict = getattr(profile, "verdict", None)
        state = verdict.state if verdict else profile.state
        return VerdictChange.objects.create(
            profile=profile,
            from_state=state,
            to_state=state,
            cause=VerdictChange.Cause.EDIT,
            cause_detail=cause_detail[:200],
            release=verdict.release if verdict else None,
            ruleset=verdict.ruleset if verdict else None,
            profile_revision=profile.revision,
        )
