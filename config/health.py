"""Probes for orchestrators: /healthz (the process answers) and /readyz (its database and broker answer)."""

from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from kombu import Connection

BROKER_TIMEOUT_S = 2


@never_cache
@require_GET
def healthz(request):
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def readyz(request):
    checks = {"database": _database(), "broker": _broker()}
    ready = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if ready else "unavailable", "checks": checks}, status=200 if ready else 503
    )


def _database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return "ok"
    except Exception as exc:  # any driver error means "not ready", with its text for the operator
        return f"error: {exc.__class__.__name__}: {exc}".strip()[:300]


def _broker() -> str:
    options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {})
    try:
        with Connection(
            settings.CELERY_BROKER_URL, transport_options=options, connect_timeout=BROKER_TIMEOUT_S
        ) as conn:
            conn.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_S)
        return "ok"
    except Exception as exc:  # kombu raises the transport's own errors
        return f"error: {exc.__class__.__name__}: {exc}".strip()[:300]
