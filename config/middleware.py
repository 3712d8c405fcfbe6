"""The project's middleware.

Request-body limit: a body larger than ``API_MAX_BODY_BYTES`` gets a 413 before anything reads it.

Django's own DATA_UPLOAD_MAX_MEMORY_SIZE covers forms, but DRF's parsers read the stream themselves; this
answers every path alike, in the API's error shape (``{"detail": ...}``) for /api/ and as text elsewhere.
(Django reads no body without a Content-Length, so a chunked one never reaches a parser.)"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse, JsonResponse


class RequestBodyLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.API_MAX_BODY_BYTES
        length = request.META.get("CONTENT_LENGTH") or ""
        if length.isdigit() and int(length) > limit:
            message = (
                f"the request body is {int(length)} bytes; the limit is {limit} bytes (API_MAX_BODY_BYTES)"
            )
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": message, "field": None}, status=413)
            return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
