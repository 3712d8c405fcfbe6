"""API plumbing shared by the apps: domain errors become clean 400s, never 500s."""

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
        code = status.HTTP_403_FORBIDDEN if exc.code == "permission" else status.HTTP_400_BAD_REQUEST
        if exc.code == "conflict":
            code = status.HTTP_409_CONFLICT
        body = {exc.field: [exc.message]} if exc.field else {"detail": exc.message}
        return Response(body, status=code)
    return drf_exception_handler(exc, context)


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
