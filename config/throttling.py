"""API throttling: a signed-in client (per API token, or per user for a session) and an anonymous address
each get a budget of requests; over it the answer is 429 with ``Retry-After`` and the ``Error`` body.

Each budget is a fixed window (a minute for ``N/minute``) counted with atomic cache ``incr``s. The rates are
read from the settings at each request (``API_THROTTLE_USER``, ``API_THROTTLE_ANON``, e.g. ``1200/minute``;
empty turns a throttle off), so a test or an operator can lower them without a restart of the class
machinery. The counts live in the default cache: ``CACHE_URL`` (Redis) shares them between processes.

A process takes a large budget from the cache in lots (see ``LOT_SHARE``): one ``incr`` by the lot, and the
requests of the lot are then counted in the process's memory. Counting each request in Redis cost two round
trips per API request (Django's ``incr`` asks ``EXISTS`` first), about a fifth of a validation's CPU. A
window still admits at most ``N`` requests; what a process has taken and not used when the window ends (at
most one lot each) is lost, so a client of many processes may be refused a few requests early."""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from accounts.models import ApiToken

log = logging.getLogger(__name__)

# A lot is this share of the window's budget, at most LOT_MAX requests: 3000/minute takes lots of 32;
# a budget under 2 * LOT_SHARE requests is counted request by request, exactly.
LOT_SHARE = 64
LOT_MAX = 32

_lots_lock = threading.Lock()
# rate -> (the window its lots belong to, cache key -> requests of the process's lot not used yet); a new
# window replaces the last one's lots
_lots: dict[str, tuple[int, dict[str, int]]] = {}


class _SettingsRate(SimpleRateThrottle):
    """A fixed-window counter: atomic ``incr``s on the cache, one per lot (see the module), where
    DRF's own throttle reads, grows and writes back a list of every request's time in the window (up to
    ``N`` entries, and two processes can lose each other's writes). A window allows at most ``N`` requests;
    over it, ``Retry-After`` is the time until the next window starts."""

    setting = ""

    def __init__(self):  # DRF's reads the rate here, once; allow_request reads it at each request
        self._wait = None

    def get_rate(self):
        return getattr(settings, self.setting, None) or None

    def allow_request(self, request, view):
        rate = self.get_rate()
        if not rate:
            return True
        self.num_requests, self.duration = self.parse_rate(rate)
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        now = self.timer()
        window = int(now // self.duration)
        key = f"{key}:{window}"
        if _take_from_lot(rate, window, key):
            return True
        lot = max(1, min(LOT_MAX, self.num_requests // LOT_SHARE))
        try:
            try:
                count = self.cache.incr(key, lot)
            except ValueError:  # the window's first request (or its key just expired)
                count = (
                    lot if self.cache.add(key, lot, timeout=self.duration + 1) else self.cache.incr(key, lot)
                )
        except Exception as exc:  # the cache (Redis) is down: serve the request, uncounted (README "Faults")
            log.warning("throttle not counted, the cache does not answer: %s", exc)
            return True
        granted = min(lot, self.num_requests - (count - lot))  # what of the lot is within the budget
        if granted <= 0:
            self._wait = (window + 1) * self.duration - now
            return False
        if granted > 1:
            _keep_lot(rate, window, key, granted - 1)  # this request takes one
        return True

    def wait(self):
        return self._wait


class ClientRateThrottle(_SettingsRate):
    """Per API token (each token its own budget), or per user for a browser session."""

    scope = "client"
    setting = "API_THROTTLE_USER"

    def get_cache_key(self, request, view):
        user = getattr(request, "user", None)
        if not user or not user.is_authenticated:
            return None
        token = request.auth if isinstance(request.auth, ApiToken) else None
        ident = f"token-{token.pk}" if token is not None else f"user-{user.pk}"
        return self.cache_format % {"scope": self.scope, "ident": ident}


class AnonRateThrottle(_SettingsRate):
    """Per client address (``REMOTE_ADDR``, or ``X-Forwarded-For`` within ``NUM_PROXIES``), not signed in."""

    scope = "anon"
    setting = "API_THROTTLE_ANON"

    def get_cache_key(self, request, view):
        user = getattr(request, "user", None)
        if user and user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def _take_from_lot(rate: str, window: int, key: str) -> bool:
    """One request counted against the process's lot for this key and window, if any is left."""
    with _lots_lock:
        lots = _lots.get(rate)
        left = lots[1].get(key) if lots is not None and lots[0] == window else None
        if not left:
            return False
        lots[1][key] = left - 1
        return True


def _keep_lot(rate: str, window: int, key: str, left: int) -> None:
    with _lots_lock:
        lots = _lots.get(rate)
        if lots is None or lots[0] != window:
            lots = _lots[rate] = (window, {})
        lots[1][key] = left
