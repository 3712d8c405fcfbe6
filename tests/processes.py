"""Real processes as the tests start them (the pipeline tests and the fault tests): a Celery worker's command line,
and waiting for what they do."""

from __future__ import annotations

import sys
import time
from pathlib import Path


def celery_worker_command(name: str, *, schedule: Path | None = None, heartbeat: bool = True) -> list[str]:
    """One solo-pool worker named ``name@host``; with ``schedule``, it also runs beat with that schedule file."""
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--pool=solo",
        "-n",
        f"{name}@%h",
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
    ]
    if not heartbeat:
        command.append("--without-heartbeat")
    if schedule is not None:
        command += ["-B", "-s", str(schedule)]
    return command


def wait_for(predicate, timeout: float = 60.0, interval: float = 0.2, what: str = "condition"):
    """The first true value of ``predicate()``, polled every ``interval`` seconds; fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")
