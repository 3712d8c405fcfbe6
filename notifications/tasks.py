"""Celery tasks: thin adapters over the services, safe to run twice (a delivery is claimed first)."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from . import services, summary


@shared_task(
    name="notifications.deliver",
    autoretry_for=(services.DeliveryFailed, OperationalError, InterfaceError),
    retry_backoff=5,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=services.MAX_ATTEMPTS - 1,
)
def deliver_task(delivery_id: int) -> str:
    return services.deliver(delivery_id)


@shared_task(name="notifications.sweep")
def sweep_task() -> dict:
    """Beat (NOTIFY_SWEEP_SECONDS): release claims of workers that died mid-post, collect new events, and
    send what is pending (a delivery whose task was lost with the broker, or whose retries ran out)."""
    released = services.release_stale_claims()
    created = services.collect()
    pending = services.pending_ids()
    for delivery_id in pending:
        deliver_task.delay(delivery_id)
    return {"released": released, "created": created, "pending": len(pending)}


@shared_task(name="notifications.summaries")
def summaries_task() -> int:
    """Beat (weekly by default, NOTIFY_SUMMARY_CRONTAB): each team's summary, by e-mail and to its targets."""
    return summary.send_all()
