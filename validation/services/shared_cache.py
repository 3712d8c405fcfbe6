"""The cache web and workers share (``CACHE_URL``, Redis in production) as the previews and the release matrix
use it: a convenience, never a dependency. While it does not answer, a read finds nothing (the preview is
computed in the request, or the page says "computing"), a write is dropped, and nothing is scheduled twice
through it (``add`` fails); the outage is logged (README "Faults")."""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache import cache as _cache

log = logging.getLogger(__name__)


def get(key: str, default: Any = None) -> Any:
    try:
        return _cache.get(key, default)
    except Exception as exc:  # the backend's own errors (redis.ConnectionError, ...)
        log.warning("shared cache unavailable, reading %s: %s", key, exc)
        return default


def set(key: str, value: Any, timeout: float | None = None) -> None:
    try:
        _cache.set(key, value, timeout)
    except Exception as exc:
        log.warning("shared cache unavailable, writing %s: %s", key, exc)


def add(key: str, value: Any, timeout: float | None = None) -> bool:
    try:
        return _cache.add(key, value, timeout)
    except Exception as exc:
        log.warning("shared cache unavailable, adding %s: %s", key, exc)
        return False
