"""The one place services hand work to Celery.

``profiles.tasks`` imports the services (tasks are thin adapters over them), so the services reach the tasks
through :func:`enqueue` alone, which imports the tasks module when it is first called.
"""

from __future__ import annotations

import logging

from django.db import transaction

log = logging.getLogger(__name__)


def _task(name: str):
    from .. import tasks  # lazily: profiles.tasks imports the services

    return getattr(tasks, name)


def enqueue(name: str, *args, after_commit: bool = True) -> None:
    """Send the task ``name`` of ``profiles.tasks`` with ``args``.

    ``after_commit`` (the default) sends it once the current transaction commits, and a broker outage is
    logged, never raised: the periodic sweep finds the work that was not sent. Without it the task is sent
    now and a broker error propagates to the caller (a running task, which the broker redelivers).
    """
    task = _task(name)
    if not after_commit:
        task.delay(*args)
        return

    def send():
        try:
            task.delay(*args)
        except Exception:
            log.warning("could not enqueue %s%s; the periodic sweep will retry", name, args, exc_info=True)

    transaction.on_commit(send)
