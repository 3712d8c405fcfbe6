"""API throttling: a signed-in client (per API token, or per user for a session) and an anonymous address
each get a budget of requests; over it the answer is 429 with ``Retry-After`` and the ``Error`` body.

Each budget is a fixed window (a minute for ``N/minute``) counted with atomic cache ``incr``s. The rates are
read from the settings at each request (``API_THROTTLE_USER``, ``API_THROTTLE_ANON``, e.g. ``1200/minute``;
empty turns a throttle off), so a test or an operator can lower them without a restart of the class
machinery. The counts live in the default cache: ``CACHE_URL`` (Redis) shares them between processes.

Every request is one atomic ``incr`` of the window's counter (``add`` creates it, ``SET NX``, for the window's
first request), so a window admits exactly ``N`` requests, however many processes and threads share the
budget. (Counts taken in lots per process, kept in memory, lost up to a lot per process when the window
ended: 2,400 requests of one token at 16 clients over 2 gunicorn workers were admitted 2,062 times under a
budget of 3,000.) A counter expires with its window, the key naming the window, so no count leaks into the
next one."""

from __future__ import annotations

import logging

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from accounts.models import ApiToken

log = logging.getLogger(__name__)


class _SettingsRate(SimpleRateThrottle):
    """A fixed-window counter: one atomic ``incr`` on the cache per request (see the module), where
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
        try:
            try:
                count = self.cache.incr(key)
            except ValueError:  # the window's first request: whoever adds the key counts 1, others incr
                count = 1 if self.cache.add(key, 1, timeout=self.duration + 1) else self.cache.incr(key)
        except Exception as exc:  # the cache (Redis) is down: serve the request, uncounted (README "Faults")
            log.warning("throttle not counted, the cache does not answer: %s", exc)
            return True
        if count > self.num_requests:
            self._wait = (window + 1) * self.duration - now
            return False
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
