"""Shared bits of the release commands: exit code 2 with a message for what a user got wrong."""

from __future__ import annotations

from django.core.management.base import CommandError


def fail(message: str) -> CommandError:
    """A CommandError that exits with status 2 (bad input, unknown version), as ``lint`` does."""
    err = CommandError(message)
    err.returncode = 2
    return err
