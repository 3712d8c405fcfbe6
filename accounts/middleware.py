"""Marks each request's changes with their channel (page, API, admin) and the client's address."""

from __future__ import annotations

from .context import reset_origin, set_origin


def channel_of(path: str) -> str:
    if path.startswith("/api/"):
        return "api"
    if path.startswith("/admin/"):
        return "admin"
    return "page"


class AuditOriginMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        # REMOTE_ADDR, never a client-set header: behind a proxy, gunicorn --forwarded-allow-ips sets it
        token = set_origin(channel_of(request.path), request.META.get("REMOTE_ADDR") or None)
        try:
            return self.get_response(request)
        finally:
            reset_origin(token)
