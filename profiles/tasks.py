"""Celery tasks: thin adapters over services. They take ids, re-fetch, and are safe to run twice."""

from __future__ import annotations

import logging
import smtplib

from celery import shared_task
from django.db import InterfaceError, OperationalError

from validation.models import RuleSet, VllmRelease

from .services import alerts, matrix, previews, rechecks

log = logging.getLogger(__name__)

# A database restart or failover fails the task that meets it: it is retried soon after, on a new connection,
# rather than left to the sweep's stall detection. Re-check tasks are idempotent, so a retry changes nothing
# twice. ``max_retries`` spans about two minutes of outage; beyond it the sweep revives the re-check.
DATABASE_DOWN = {
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": 1,
    "retry_backoff_max": 20,
    "retry_jitter": False,
    "max_retries": 8,
}


@shared_task(name="validation.recheck_fan_out", acks_late=True, **DATABASE_DOWN)
def recheck_fan_out_task(recheck_id: int) -> int:
    return rechecks.recheck_fan_out(recheck_id)


@shared_task(name="validation.recheck_batch", acks_late=True, reject_on_worker_lost=True, **DATABASE_DOWN)
def recheck_batch_task(recheck_id: int, profile_ids: list[int]) -> int:
    return rechecks.recheck_batch(recheck_id, profile_ids).checked


@shared_task(name="validation.alerts_send", **DATABASE_DOWN)
def alerts_send_task(recheck_id: int) -> int:
    """One digest task per recipient, so one failing mailbox does not hold up the others."""
    recipients = alerts.pending_recipients(recheck_id)
    for recipient_id in recipients:
        alerts_send_digest_task.delay(recipient_id, recheck_id)
    return len(recipients)


@shared_task(
    name="validation.alerts_send_digest",
    bind=True,
    autoretry_for=(smtplib.SMTPException, ConnectionError, OSError, OperationalError, InterfaceError),
    retry_backoff=5,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=alerts.MAX_ATTEMPTS - 1,
)
def alerts_send_digest_task(self, recipient_id: int, recheck_id: int | None = None) -> int:
    return alerts.alerts_send_digest(recipient_id=recipient_id, recheck_id=recheck_id)


@shared_task(name="validation.sweep", acks_late=True)
def sweep_task() -> dict:
    """Beat, every minute: revive stalled re-checks, apply expired waivers, re-check lagging verdicts,
    and retry alerts that are still pending (a digest lost with a broker outage)."""
    result = rechecks.sweep()
    released = alerts.release_stale_claims()
    digests = alerts.pending_digests()
    for recipient_id, recheck_id in digests:
        alerts_send_digest_task.delay(recipient_id, recheck_id)
    return {**result, "released_claims": released, "digests": len(digests)}


@shared_task(name="validation.preview", acks_late=True)
def preview_task(ruleset_id: int, release_id: int | None = None) -> int:
    """Compute a full-fleet preview into the shared cache (the page polls for it)."""
    ruleset = RuleSet.objects.filter(pk=ruleset_id).first()
    if ruleset is None:
        log.info("rule set %s no longer exists; no preview", ruleset_id)
        return 0
    release = VllmRelease.objects.filter(pk=release_id).first() if release_id else None
    return previews.preview(ruleset=ruleset, release=release)["total"]


@shared_task(name="validation.fleet_matrix", acks_late=True)
def fleet_matrix_task() -> int:
    """Compute the fleet's release matrix into the shared cache (the releases page polls for it); a second
    run finds it cached under the same fingerprint."""
    return matrix.fleet_release_matrix()["total"]
