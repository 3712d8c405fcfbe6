"""Re-checks: bring stored verdicts up to date with the current rule set and each profile's release.

The fan-out follows the dirty-flag pattern: a re-check marks the verdicts it must look at
(``VerdictCheck.pending_recheck``, a narrow row beside each verdict); batch tasks take marked rows in id
order, recompute them, and clear the mark in the same transaction that stores the outcome. A verdict that
does not change is not written: its narrow row records the rule set and release it was confirmed against. A
batch that is redelivered, repeated or raced by a second worker finds nothing left to do (rows are locked
with SKIP LOCKED and the mark is gone), so nothing changes twice and no alert is created twice. A periodic
sweep revives re-checks whose messages were lost (broker down, worker killed) and marks verdicts that lag
behind the current rule set or release.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from itertools import islice

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q, TextField, Value
from django.db.models.functions import MD5, Cast, Concat
from django.utils import timezone

from validation.errors import DomainError
from validation.models import FleetSettings, RuleSet, VllmRelease
from validation.selectors import fleet_release, ruleset_current

from ..models import Profile, Recheck, Verdict, VerdictChange, VerdictCheck, Waiver
from ..selectors import waived_rule_ids_by_profile
from .alerts import alerts_create_for_changes
from .queue import enqueue
from .verdicts import (
    DOCUMENT_FIELDS,
    ProfileRows,
    findings_digest,
    id_array,
    profile_check,
    verdicts_record_recheck,
)

log = logging.getLogger(__name__)

# Ids per batch task. Each distinct document is evaluated once per worker (see _outcomes), so what a batch
# costs is mostly its reads and writes: a few statements per batch, one history entry per changed profile.
# benchmarks/recheck.py measures it; a lost batch of 2,000 costs about a second to redo.
BATCH_SIZE = settings.RECHECK_BATCH_SIZE
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
    """The verdicts a re-check must look at (their :class:`VerdictCheck` rows)."""
    verdicts = VerdictCheck.objects.all()
    if cause == "release" and release is not None:
        fleet = FleetSettings.objects.values_list("default_release_id", flat=True).first()
        follows = Q(verdict__profile__vllm_release__isnull=True) if fleet == release.pk else Q(pk__in=[])
        verdicts = verdicts.filter(Q(verdict__profile__vllm_release=release) | follows)
    return verdicts


def recheck_for_port(*, cause: str, ruleset=None, release=None, actor=None, where=None) -> Recheck:
    """validation.recheck_port's re-check: ``where`` (a Q over Profile) narrows it to those profiles."""
    verdicts = None if where is None else Verdict.objects.filter(profile__in=Profile.objects.filter(where))
    return recheck_start(cause=cause, ruleset=ruleset, release=release, actor=actor, verdicts=verdicts)


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
    if verdicts is None:
        targets = affected_verdicts(cause=cause, release=release)
    elif verdicts.model is VerdictCheck:
        targets = verdicts
    else:  # verdicts (callers name them so): their narrow rows
        targets = VerdictCheck.objects.filter(pk__in=verdicts.values("pk"))
    total = targets.update(pending_recheck=recheck)  # narrow rows; a subquery only when it must join
    Recheck.objects.filter(pk=recheck.pk).update(total=total)
    recheck.total = total
    if total == 0:
        _finish(recheck.pk)
    elif inline:
        transaction.on_commit(lambda: recheck_run_inline(recheck.pk))
    else:
        enqueue("recheck_fan_out_task", recheck.pk)
    return recheck


def _pending_ids(recheck_id: int) -> Iterator[int]:
    """The verdicts still marked for a re-check, ordered by a digest of their profile's document, so that
    copies of one configuration land in the same batches and each worker evaluates only the configurations of
    its own (a digest sorts faster than the documents' text, and groups them the same). Streamed from the
    database a batch at a time: a whole fleet's ids as rows at once cost the worker ~8 MB for 100,000."""
    marked = VerdictCheck.objects.filter(pending_recheck_id=recheck_id).values("pk")
    if connection.vendor == "postgresql":
        parts = [Cast(n, TextField()) for n in ("vllm_release_id", *DOCUMENT_FIELDS)]
        document = MD5(Concat(*(p for part in parts for p in (part, Value("|"))), output_field=TextField()))
        order = [document, "pk"]
    else:  # the embedded SQLite: a concatenation this deep overflows its parser; the fields group alike
        order = ["vllm_release_id", *DOCUMENT_FIELDS, "pk"]
    ids = Profile.objects.filter(pk__in=marked).order_by(*order).values_list("pk", flat=True)
    return ids.iterator(chunk_size=BATCH_SIZE)


def _pending_batches(recheck_id: int) -> Iterator[list[int]]:
    """:func:`_pending_ids` in batches of BATCH_SIZE."""
    ids = _pending_ids(recheck_id)
    while batch := list(islice(ids, BATCH_SIZE)):
        yield batch


def recheck_fan_out(recheck_id: int) -> int:
    """Enqueue one batch task per BATCH_SIZE marked verdicts. Returns the number of batches.

    Verdicts are ordered by their profile's document (:func:`_pending_ids`)."""
    now = timezone.now()
    updated = Recheck.objects.filter(pk=recheck_id, state__in=["pending", "running"]).update(
        state=Recheck.State.RUNNING, heartbeat_at=now
    )
    if not updated:
        return 0
    Recheck.objects.filter(pk=recheck_id, started_at__isnull=True).update(started_at=now)
    batches = 0
    for batch in _pending_batches(recheck_id):
        enqueue("recheck_batch_task", recheck_id, batch, after_commit=False)
        batches += 1
    if not batches:
        _finish(recheck_id)
    return batches


@dataclass
class BatchResult:
    checked: int = 0
    changed: int = 0
    newly_invalid: int = 0
    newly_valid: int = 0


def recheck_batch(recheck_id: int, profile_ids: Iterable[int]) -> BatchResult:
    """Recompute the still-marked verdicts among ``profile_ids``; idempotent.

    Profiles are read as plain rows; each distinct effective document is evaluated once per worker process
    (:data:`_outcomes`); only the profiles whose outcome differs from their stored verdict are loaded and
    written (verdict, history, alerts, in bulk); the others are marked current, one UPDATE per release.
    """
    result = BatchResult()
    recheck = Recheck.objects.filter(pk=recheck_id).first()
    if recheck is None:
        log.info("re-check %s no longer exists; skipping its batch", recheck_id)
        return result
    with transaction.atomic():
        locked = list(
            VerdictCheck.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(pending_recheck_id=recheck_id, pk__in=id_array(profile_ids))
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        changed, unchanged = _outcomes_of(locked)
        result.checked = len(locked)
        if changed:
            profiles = Profile.objects.in_bulk(list(changed))
            items = [(profiles[pk], *changed[pk]) for pk in sorted(changed) if pk in profiles]
            history = verdicts_record_recheck(items, recheck=recheck)
            result.changed = len(items)
            invalid = [c for c in history if c.to_state == "invalid" and c.from_state != "invalid"]
            valid = [c for c in history if c.from_state == "invalid" and c.to_state != "invalid"]
            result.newly_invalid, result.newly_valid = len(invalid), len(valid)
            alerts_create_for_changes(changes=invalid, recheck=recheck)
        if unchanged:
            _mark_current(unchanged)
        Recheck.objects.filter(pk=recheck_id).update(
            done=F("done") + result.checked,
            newly_invalid=F("newly_invalid") + result.newly_invalid,
            newly_valid=F("newly_valid") + result.newly_valid,
            heartbeat_at=timezone.now(),
        )
    if not VerdictCheck.objects.filter(pending_recheck_id=recheck_id).exists():
        _finish(recheck_id)
    return result


# Outcomes of distinct documents, kept by the worker process across batches: a fleet's copies of one
# configuration are spread over many batches. The key holds everything the verdict depends on (the rule set's
# version, the release's catalog digest, the document, waivers, model configs' and node type's content).
# Batches evaluate under the current rule set only, so once another one is current the outcomes of the one
# before can never be read again: they are dropped then (a worker's memory holds one rule set's outcomes,
# not those of every rule set published since it started).
_outcomes: OrderedDict[tuple, tuple] = OrderedDict()
OUTCOMES_KEPT = 20_000


def _outcomes_for(ruleset) -> OrderedDict[tuple, tuple]:
    # Every key starts with the (id, updated_at) of the rule set it was computed under, the same for all.
    if _outcomes and next(iter(_outcomes))[:2] != (ruleset.pk, ruleset.updated_at):
        _outcomes.clear()
    return _outcomes


def _outcomes_of(profile_ids: list[int]) -> tuple[dict[int, tuple], dict[VllmRelease, list[int]]]:
    """The new (verdict, release) of each profile whose outcome changes, and the ids of those unchanged by
    the release they were checked on."""
    changed: dict[int, tuple] = {}
    unchanged: dict[VllmRelease, list[int]] = {}
    if not profile_ids:
        return changed, unchanged
    fleet, ruleset = fleet_release(), ruleset_current()
    releases = {r.pk: r for r in VllmRelease.objects.all()}
    waived_ids = waived_rule_ids_by_profile(id_array(profile_ids))
    waivers = {pk: tuple(sorted(ids)) for pk, ids in waived_ids.items()}
    undecided: list[tuple[int, tuple]] = []
    reader = ProfileRows(Profile.objects.filter(pk__in=id_array(profile_ids)))
    outcomes = _outcomes_for(ruleset)
    for rows in reader.chunks():
        for row in rows:
            target = releases.get(row.release_id) or fleet
            waived = waivers.get(row.pk, ())
            key = (ruleset.pk, ruleset.updated_at, *reader.key(row, target, waived))
            outcome = outcomes.get(key)
            if outcome is None:
                pinned = target if row.release_id else None
                verdict, release = profile_check(
                    reader.profile(row, pinned), waived=waived, fleet=fleet, ruleset=ruleset
                )
                digest = findings_digest([f.as_dict() for f in verdict.findings])
                outcome = (verdict, release, digest)  # kept small: a worker keeps thousands
                outcomes[key] = outcome
                if len(outcomes) > OUTCOMES_KEPT:
                    outcomes.popitem(last=False)
            if row.state != outcome[0].state:
                changed[row.pk] = outcome[:2]
            elif row.findings_sha256 == outcome[2]:
                unchanged.setdefault(outcome[1], []).append(row.pk)
            else:
                undecided.append((row.pk, outcome))
    if undecided:
        _compare_findings(reader, undecided, changed, unchanged)
    return changed, unchanged


def _compare_findings(reader: ProfileRows, undecided, changed, unchanged) -> None:
    """Same state, another digest (one stored before digests, or equal findings written differently):
    compare the stored findings themselves, and store the digest of those found equal."""
    parsed: dict[str | None, list | None] = {}  # stored findings (jsonb text) -> parsed
    texts = reader.stored_findings(pk for pk, _ in undecided)
    digests: dict[str, list[int]] = {}
    for pk, outcome in undecided:
        text = texts.get(pk)
        if text not in parsed:
            parsed[text] = json.loads(text) if text is not None else None
        if parsed[text] == [f.as_dict() for f in outcome[0].findings]:
            unchanged.setdefault(outcome[1], []).append(pk)
            digests.setdefault(outcome[2], []).append(pk)
        else:
            changed[pk] = outcome[:2]
    for digest, pks in digests.items():
        Verdict.objects.filter(pk__in=id_array(pks)).update(findings_sha256=digest)


def _mark_current(unchanged: dict[VllmRelease, list[int]]) -> None:
    """Unchanged outcome: the verdict is not written; its narrow row records what it was confirmed against
    (one UPDATE per release of the batch)."""
    ruleset, now = ruleset_current(), timezone.now()
    for release, verdict_ids in unchanged.items():
        VerdictCheck.objects.filter(pk__in=id_array(verdict_ids)).update(
            pending_recheck=None,
            ruleset=ruleset,
            release=release,
            release_catalog_sha256=release.catalog_sha256,
            computed_at=now,
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
    """Verdicts computed from an older rule set, another release, or a re-imported catalog (their narrow
    rows)."""
    ruleset = ruleset_current()
    fleet = FleetSettings.objects.values_list("default_release_id", flat=True).first()
    stale_release = Q(verdict__profile__vllm_release__isnull=False) & (
        ~Q(release_id=F("verdict__profile__vllm_release_id"))
        | ~Q(release_catalog_sha256=F("verdict__profile__vllm_release__catalog_sha256"))
    )
    stale_fleet = Q(verdict__profile__vllm_release__isnull=True) & (
        ~Q(release_id=fleet) | ~Q(release_catalog_sha256=F("release__catalog_sha256"))
    )
    return VerdictCheck.objects.filter(pending_recheck__isnull=True).filter(
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
        if VerdictCheck.objects.filter(pending_recheck_id=recheck_id).exists():
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
            recheck_start(cause="waiver", verdicts=VerdictCheck.objects.filter(pk__in=expired_profiles))
            expired.filter(profile_id__in=expired_profiles).update(expiry_applied=True)
            waiver_rechecks = 1
    lagging = 0
    # A verdict stored without its narrow row (written by hand, or by a bulk load) is given one that names no
    # rule set, so that it lags and is re-checked like the others.
    unchecked = Verdict.objects.filter(checked__isnull=True).values_list("pk", flat=True)
    VerdictCheck.objects.bulk_create([VerdictCheck(verdict_id=pk) for pk in unchecked], ignore_conflicts=True)
    if lagging_verdicts().exists():
        with transaction.atomic():
            lagging = recheck_start(cause="sweep", verdicts=lagging_verdicts()).total
    return {"revived": revived, "waiver_rechecks": waiver_rechecks, "lagging": lagging}


def recheck_run_inline(recheck_id: int) -> None:
    """Run a whole re-check in this process (``manage.py recheck --wait`` without a worker, tests)."""
    batches = list(_pending_batches(recheck_id))  # read before the first batch changes what is marked
    Recheck.objects.filter(pk=recheck_id).update(state="running", started_at=timezone.now())
    for batch in batches:
        recheck_batch(recheck_id, batch)
    _finish(recheck_id)
