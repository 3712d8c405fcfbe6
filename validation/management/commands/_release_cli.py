"""Shared bits of the release commands: a report as JSON or text, and exit code 2 with a message for what
a user got wrong."""

from __future__ import annotations

import json
from collections.abc import Callable

from django.core.management.base import BaseCommand, CommandError

from validation.errors import DomainError


def fail(message: str) -> CommandError:
    """A CommandError that exits with status 2 (bad input, unknown version), as ``lint`` does."""
    err = CommandError(message)
    err.returncode = 2
    return err


def write_report(
    command: BaseCommand, build: Callable[[], dict], render: Callable[[dict], str], fmt: str
) -> None:
    """Write ``build()`` as indented JSON (``fmt == "json"``) or as ``render`` prints it; a DomainError of
    ``build`` exits with status 2 and its message."""
    try:
        report = build()
    except DomainError as exc:
        raise fail(exc.message) from None
    command.stdout.write(
        json.dumps(report, indent=2, ensure_ascii=False) if fmt == "json" else render(report)
    )
