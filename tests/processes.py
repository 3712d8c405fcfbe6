"""The command line of a real Celery worker as the tests start it (the pipeline tests and the fault tests)."""

from __future__ import annotations

import sys
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
