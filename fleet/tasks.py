"""Celery tasks of the fleet: the release watch (beat), which imports a release (validation) and previews the
fleet on it (profiles)."""

from __future__ import annotations

import smtplib

from celery import shared_task

from . import release_watch


@shared_task(
    name="validation.release_watch",
    acks_late=True,
    autoretry_for=(smtplib.SMTPException, ConnectionError),
    retry_backoff=30,
    max_retries=5,
)
def release_watch_task() -> list[str]:
    """Beat (when VLLM_RELEASE_INDEX_URL is set): import vLLM releases newer than the newest catalog and mail
    staff what each would do to the fleet. Safe to run twice: an imported release is not fetched again."""
    return [a.version for a in release_watch.release_watch_run()]
