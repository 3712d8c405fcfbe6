"""DRF authentication by API token (``Authorization: Token KEY`` or ``Bearer KEY``); the read-only scope."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.permissions import SAFE_METHODS, BasePermission

from .models import ApiToken
from .services import token_authenticate


class ApiTokenAuthentication(BaseAuthentication):
    """A view may name what it reads on every request as SQL scalar subqueries, ``token_prefetch`` (a
    callable returning them): they are read with the token, in one round trip, and left in
    ``request.auth.prefetched``."""

    keywords = (b"token", b"bearer")

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in self.keywords:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                _("Invalid token header: give `Token KEY`, with no spaces.")
            )
        try:
            key = parts[1].decode("ascii")
        except UnicodeDecodeError as exc:
            raise exceptions.AuthenticationFailed(_("Invalid token: not ASCII.")) from exc
        view = (getattr(request, "parser_context", None) or {}).get("view")
        prefetch = getattr(view, "token_prefetch", None)
        token = token_authenticate(key, extra=prefetch() if prefetch is not None else ())
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("Invalid, expired or revoked token."))
        return token.user, token

    def authenticate_header(self, request):
        return "Token"


def token_prefetched(request) -> tuple | None:
    """What the view's ``token_prefetch`` read with the request's API token; None without one (a session)."""
    return getattr(request.auth, "prefetched", None) or None


class TokenScope(BasePermission):
    """A read-only token reads (GET, HEAD, OPTIONS) and dry-runs (views with ``token_read_only_ok``)."""

    message = "this API token is read-only: it may not change anything"

    def has_permission(self, request, view):
        if not isinstance(request.auth, ApiToken) or not request.auth.read_only:
            return True
        return request.method in SAFE_METHODS or getattr(view, "token_read_only_ok", False)
