"""The fleet's default vLLM release: profiles follow it unless they pin one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction

from accounts import permissions
from accounts.audit import audit_record

from ..models import FleetSettings, VllmRelease
from ..recheck_port import recheck_request


@transaction.atomic
def fleet_set_release(*, release: VllmRelease, actor, precondition: Callable[[], None] | None = None) -> Any:
    """Move the fleet to ``release`` and re-check the profiles that follow it (the re-check; None if nothing
    changed).
    ``precondition`` (an ``If-Match`` check) runs under the fleet's row lock, before anything is written."""
    permissions.require(permissions.can_manage_fleet(actor), "only staff may change the fleet's vLLM release")
    fleet = FleetSettings.objects.select_for_update().first()
    if precondition is not None:
        precondition()
    if fleet is None:
        fleet = FleetSettings(default_release=release)
    elif fleet.default_release_id == release.pk:
        return None
    before = {"vllm_version": fleet.default_release.version} if fleet.pk else None
    fleet.default_release = release
    fleet.updated_by = actor
    fleet.save()
    audit_record(
        actor=actor,
        action="fleet.update",
        object_type="fleet",
        object_id=fleet.pk,
        object_repr=f"fleet on vLLM {release.version}",
        before=before,
        after={"vllm_version": release.version},
    )
    return recheck_request(cause="release", release=release, actor=actor)
