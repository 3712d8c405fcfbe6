"""API throttling: a signed-in client (per API token, or per user for a session) and an anonymous address
each get a budget of requests; over it the answer is 429 with ``Retry-After`` and the ``Error`` body.

The rates are read from the settings at each request (``API_THROTTLE_USER``, ``API_THROTTLE_ANON``, e.g.
``1200/minute``; empty turns a throttle off), so a test or an operator can lower them without a restart of the
class machinery. The counts live in the default cache: ``CACHE_URL`` (Redis) shares them between processes."""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from accounts.models import ApiToken


class _SettingsRate(SimpleRateThrottle):
    setting = ""

    def get_rate(self):
        return getattr(settings, self.setting, None) or None

    def allow_request(self, request, view):
        # DRF reads the rate once, in __init__; read it again so that settings changes apply at once.
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)


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
