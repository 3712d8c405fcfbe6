"""Through what and from where the current change comes: set once per request (middleware), per task
(Celery signal) or per command (manage.py), read by ``audit_record``. A context variable, so threads and
async tasks each keep their own."""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class Origin:
    via: str = "system"
    address: str | None = None


_origin: contextvars.ContextVar[Origin | None] = contextvars.ContextVar("audit_origin", default=None)
# What a change outside any request or task is: "command" under manage.py (set in manage.py), else "system".
_default = Origin()


def set_default_origin(via: str) -> None:
    global _default
    _default = Origin(via)


def current_origin() -> Origin:
    return _origin.get() or _default


def set_origin(via: str, address: str | None = None) -> contextvars.Token:
    return _origin.set(Origin(via, address))


def reset_origin(token: contextvars.Token) -> None:
    _origin.reset(token)


@contextmanager
def origin(via: str, address: str | None = None):
    token = set_origin(via, address)
    try:
        yield
    finally:
        reset_origin(token)
