"""API plumbing shared by the apps.

- domain errors become clean 400/403/409s, never 500s (``exception_handler``);
- pagination;
(conditional requests and strict input live in validation.api.http: the apps' APIs import them, and an app
may not import config.)
"""

from __future__ import annotations

from rest_framework import status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from profiles.services import ProfileInvalid
from validation.errors import DomainError


def exception_handler(exc, context):
    if isinstance(exc, ProfileInvalid):
        return Response(exc.verdict.as_dict(), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, DomainError):
        if exc.code in ("permission", "conflict"):
            code = status.HTTP_403_FORBIDDEN if exc.code == "permission" else status.HTTP_409_CONFLICT
            return Response({"detail": exc.message, "field": exc.field or None}, status=code)
        body = {exc.field: [exc.message]} if exc.field else {"detail": exc.message}
        return Response(body, status=status.HTTP_400_BAD_REQUEST)
    return drf_exception_handler(exc, context)


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
