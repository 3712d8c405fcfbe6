"""Re-checks: bring stored verdicts up to date with the current rule set and each profile's release.

The fan-out follows the dirty-flag pattern: a re-check marks the verdicts it must look at
(``Verdict.pending_recheck``); batch tasks take marked rows in id order, recompute them, and clear the mark in
the same transaction that stores the outcome. A batch that is redelivered, repeated or raced by a second
worker finds nothing left to do (rows are locked with SKIP LOCKED and the mark is gone), so nothing changes
twice and no alert is created twice. A periodic sweep revives re-checks whose messages were lost (broker
down, worker killed) and marks verdicts that lag behind the current rule set or release.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from ..errors import DomainError
from ..models import FleetSettings, Recheck, RuleSet, Verdict, VerdictChange, VllmRelease, Waiver
from ..selectors import fleet_release, ruleset_current, waived_rule_ids_by_profile
from .alerts import alerts_create_for_change
from .queue import enqueue
from .verdicts import profile_check, verdict_record

log = logging.getLogger(__name__)

# Ids per batch task. Measured on this 2-core machine: about 0.35 ms per unchanged profile and 1.5 ms per
# changed one, so a batch of 500 takes well under a second and a lost batch costs little to redo.
BATCH_SIZE = 500
# A re-check with no progress for this long is considered stalled; the sweep enqueues its work again.
STALL_AFTER = timedelta(seconds=getattr(settings, "RECHECK_STALL_SECONDS", 60))

CAUSE_DETAIL = {
    "ruleset": "rule set {ruleset}",
    "release": "vLLM release {release}",
    "sweep": "periodic re-check",
    "waiver": "waiver granted, revoked or expired",
    "manual": "started by hand",
}


def affected_verdicts(*, cause: str, release: VllmRelease | None = None):
    """The verdicts a re-check must look at."""
    verdicts = Verdict.objects.all()
    if cause == "release" and release is not None:
        fleet = FleetSettings.objects.values_list("default_release_id", flat=True).first()
        follows = Q(profile__vllm_release__isnull=True) if fleet == release.pk else Q(pk__in=[])
        verdicts = verdicts.filter(Q(profile__vllm_release=release) | follows)
    return verdicts


@transaction.atomic
def recheck_start(
    *,
    cause: str,
    ruleset: RuleSet | None = None,
    release: VllmRelease | None = None,
    actor=None,
    verdicts=None,
    inline: bool = False,
) -> Recheck:
    """Record a re-check, mark the verdicts it covers, and fan it out once the transaction commits.

    ``inline`` runs it in this process after commit instead (one profile's waiver, no worker needed).
    """
    if cause not in VerdictChange.Cause.values:
        raise DomainError(f"unknown re-check cause {cause!r}")
    detail = CAUSE_DETAIL.get(cause, cause).format(
        ruleset=ruleset.number if ruleset else "", release=release.version if release else ""
    )
    recheck = Recheck.objects.create(
        cause=cause, cause_detail=detail, ruleset=ruleset, release=release, created_by=actor
    )
    targets = verdicts if verdicts is not None else affected_verdicts(cause=cause, release=release)
    total = Verdict.objects.filter(pk__in=targets.values("pk")).update(pending_recheck=recheck)
    Recheck.objects.filter(pk=recheck.pk).update(total=total)
    recheck.total = total
    if total == 0:
        _finish(recheck.pk)
    elif inline:
        transaction.on_commit(lambda: recheck_run_inline(recheck.pk))
    else:
        enqueue("recheck_fan_out_task", recheck.pk)
    return recheck


def recheck_fan_out(recheck_id: int) -> int:
    """Enqueue one batch task per BATCH_SIZE marked verdicts (ids in order). Returns the number of batches."""
    now = timezone.now()
    updated = Recheck.objects.filter(pk=recheck_id, state__in=["pending", "running"]).update(
        state=Recheck.State.RUNNING, heartbeat_at=now
    )
    if not updated:
        return 0
    Recheck.objects.filter(pk=recheck_id, started_at__isnull=True).update(started_at=now)
    ids = list(
        Verdict.objects.filter(pending_recheck_id=recheck_id).order_by("pk").values_list("pk", flat=True)
    )
    batches = [ids[i : i + BATCH_SIZE] for i in range(0, len(ids), BATCH_SIZE)]
    for batch in batches:
        enqueue("recheck_batch_task", recheck_id, batch, after_commit=False)
    if not ids:
        _finish(recheck_id)
    return len(batches)


@dataclass
class BatchResult:
    checked: int = 0
    changed: int = 0
    newly_invalid: int = 0
    newly_valid: int = 0


def recheck_batch(recheck_id: int, profile_ids: Iterable[int]) -> BatchResult:
    """Recompute the still-marked verdicts among ``profile_ids``; idempotent."""
    result = BatchResult()
    recheck = Recheck.objects.filter(pk=recheck_id).first()
    if recheck is None:
        log.info("re-check %s no longer exists; skipping its batch", recheck_id)
        return result
    with transaction.atomic():
        rows = (
            Verdict.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(pending_recheck_id=recheck_id, profile_id__in=list(profile_ids))
            .select_related(
                "profile__team__default_node_type",
                "profile__owner",
                "profile__vllm_release",
                "profile__node_type",
                "profile__model_source",
                "profile__draft_source",
            )
            .order_by("pk")
        )
        unchanged: list[int] = []
        rows = list(rows)
        waivers = waived_rule_ids_by_profile([row.profile_id for row in rows])
        fleet, ruleset = fleet_release(), ruleset_current()
        for row in rows:
            profile = row.profile
            verdict, release = profile_check(
                profile, waived=waivers.get(profile.pk, ()), fleet=fleet, ruleset=ruleset
            )
            result.checked += 1
            if _same_outcome(row, verdict):
                unchanged.append(row.pk)
                continue
            change = verdict_record(
                profile=profile,
                verdict=verdict,
                release=release,
                ruleset_number=verdict.ruleset,
                cause=recheck.cause,
                cause_detail=recheck.cause_detail,
                recheck=recheck,
            )
            Verdict.objects.filter(pk=row.pk).update(pending_recheck=None)
            result.changed += 1
            if change is not None:
                if change.to_state == "invalid" and change.from_state != "invalid":
                    result.newly_invalid += 1
                    alerts_create_for_change(change=change, recheck=recheck)
                elif change.from_state == "invalid" and change.to_state != "invalid":
                    result.newly_valid += 1
        if unchanged:
            _mark_current(unchanged)
        Recheck.objects.filter(pk=recheck_id).update(
            done=F("done") + result.checked,
            newly_invalid=F("newly_invalid") + result.newly_invalid,
            newly_valid=F("newly_valid") + result.newly_valid,
            heartbeat_at=timezone.now(),
        )
    if not Verdict.objects.filter(pending_recheck_id=recheck_id).exists():
        _finish(recheck_id)
    return result


def _same_outcome(row: Verdict, verdict) -> bool:
    new = [f.as_dict() for f in verdict.findings]
    return row.state == verdict.state and row.findings == new


def _mark_current(verdict_ids: list[int]) -> None:
    """Unchanged outcome: only record what it was computed from (one UPDATE for the whole batch)."""
    ruleset = ruleset_current()
    fleet = FleetSettings.objects.select_related("default_release").first()
    rows = Verdict.objects.filter(pk__in=verdict_ids)
    pinned = rows.filter(profile__vllm_release__isnull=False)
    pinned.update(
        pending_recheck=None,
        ruleset=ruleset,
        computed_at=timezone.now(),
    )
    for release_id, sha in VllmRelease.objects.filter(
        pk__in=pinned.values("profile__vllm_release")
    ).values_list("pk", "catalog_sha256"):
        rows.filter(profile__vllm_release_id=release_id).update(
            release_id=release_id, release_catalog_sha256=sha
        )
    rows.filter(profile__vllm_release__isnull=True).update(
        pending_recheck=None,
        ruleset=ruleset,
        release=fleet.default_release,
        release_catalog_sha256=fleet.default_release.catalog_sha256,
        computed_at=timezone.now(),
    )


def _finish(recheck_id: int) -> bool:
    """Mark the re-check done once; the caller that flips it sends the digests."""
    finished = (
        Recheck.objects.filter(pk=recheck_id)
        .exclude(state=Recheck.State.DONE)
        .update(state=Recheck.State.DONE, finished_at=timezone.now(), done=F("total"))
    )
    if finished:
        enqueue("alerts_send_task", recheck_id)
    return bool(finished)


def lagging_verdicts():
    """Verdicts computed from an older rule set, another release, or a re-imported catalog."""
    ruleset = ruleset_current()
    fleet = FleetSettings.objects.values_list("default_release_id", flat=True).first()
    stale_release = Q(profile__vllm_release__isnull=False) & (
        ~Q(release_id=F("profile__vllm_release_id"))
        | ~Q(release_catalog_sha256=F("profile__vllm_release__catalog_sha256"))
    )
    stale_fleet = Q(profile__vllm_release__isnull=True) & (
        ~Q(release_id=fleet) | ~Q(release_catalog_sha256=F("release__catalog_sha256"))
    )
    return Verdict.objects.filter(pending_recheck__isnull=True).filter(
        ~Q(ruleset=ruleset) | Q(ruleset__isnull=True) | Q(release__isnull=True) | stale_release | stale_fleet
    )


def sweep() -> dict[str, int]:
    """Revive stalled re-checks, apply expired waivers, and re-check verdicts that lag behind."""
    revived = 0
    cutoff = timezone.now() - STALL_AFTER
    stalled = Recheck.objects.filter(state__in=["pending", "running"]).filter(
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, created_at__lt=cutoff)
    )
    for recheck_id in stalled.values_list("pk", flat=True):
        if Verdict.objects.filter(pending_recheck_id=recheck_id).exists():
            Recheck.objects.filter(pk=recheck_id).update(heartbeat_at=timezone.now())
            enqueue("recheck_fan_out_task", recheck_id)
            revived += 1
        else:
            _finish(recheck_id)
    expired = Waiver.objects.filter(
        expiry_applied=False, granted_by__isnull=False, expires_at__lte=timezone.now()
    )
    expired_profiles = list(expired.values_list("profile_id", flat=True).distinct())
    waiver_rechecks = 0
    if expired_profiles:
        with transaction.atomic():
            recheck_start(cause="waiver", verdicts=Verdict.objects.filter(profile_id__in=expired_profiles))
            expired.filter(profile_id__in=expired_profiles).update(expiry_applied=True)
            waiver_rechecks = 1
    lagging = 0
    if lagging_verdicts().exists():
        with transaction.atomic():
            lagging = recheck_start(cause="sweep", verdicts=lagging_verdicts()).total
    return {"revived": revived, "waiver_rechecks": waiver_rechecks, "lagging": lagging}


def recheck_run_inline(recheck_id: int) -> None:
    """Run a whole re-check in this process (``manage.py recheck --wait`` without a worker, tests)."""
    ids = list(
        Verdict.objects.filter(pending_recheck_id=recheck_id).order_by("pk").values_list("pk", flat=True)
    )
    Recheck.objects.filter(pk=recheck_id).update(state="running", started_at=timezone.now())
    for i in range(0, len(ids), BATCH_SIZE):
        recheck_batch(recheck_id, ids[i : i + BATCH_SIZE])
    _finish(recheck_id)
