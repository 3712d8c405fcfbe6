"""Celery tasks of Git sources: thin adapters over services, taking ids; a repeated sync changes nothing."""

from __future__ import annotations

import logging

from celery import shared_task

from validation.errors import DomainError

from .models import GitSource
from .services import git_source_sync

log = logging.getLogger(__name__)


@shared_task(name="sources.sync", acks_late=True)
def git_source_sync_task(source_id: int) -> dict:
    source = GitSource.objects.select_related("team", "owner").filter(pk=source_id).first()
    if source is None:
        log.info("git source %s no longer exists", source_id)
        return {}
    try:
        result = git_source_sync(source=source)
    except DomainError as exc:
        log.warning("%s", exc.message)
        return {"error": exc.message}
    return {"commit": result.commit, "created": result.created, "updated": result.updated}


@shared_task(name="sources.sync_all")
def git_sources_sync_all_task() -> int:
    """Beat: one sync task per source."""
    ids = list(GitSource.objects.values_list("pk", flat=True))
    for source_id in ids:
        git_source_sync_task.delay(source_id)
    return len(ids)
