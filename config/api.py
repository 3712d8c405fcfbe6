"""API plumbing shared by the apps.

- domain errors become clean 400/403/409s, never 500s (``exception_handler``);
- conditional requests (RFC 9110): ``ETag`` on the resources that can be changed, ``If-None-Match`` on reads
  (304), ``If-Match`` on writes (412 when stale);
"""

from __future__ import annotations

import hashlib
import json

from rest_framework import exceptions, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.views import exception_handler as drf_exception_handler

from profiles.services import ProfileInvalid
from validation.errors import DomainError


class PreconditionFailed(exceptions.APIException):
    status_code = status.HTTP_412_PRECONDITION_FAILED
    default_detail = "the resource changed since you read it"
    default_code = "precondition_failed"


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


# ---- conditional requests -------------------------------------------------------------------------------


def etag_of(data) -> str:
    """A strong validator of a representation: the hash of its JSON, so any change of what a GET shows
    (an edit, a new verdict, a revoked waiver) changes it."""
    text = json.dumps(data, cls=JSONEncoder, sort_keys=True, separators=(",", ":"))
    return '"' + hashlib.sha256(text.encode()).hexdigest()[:40] + '"'


def _tags(header: str) -> list[str]:
    return [tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()]


def if_match_given(request) -> bool:
    return bool(request.headers.get("If-Match"))


def check_if_match(request, current, what: str = "the resource") -> None:
    """412 unless ``If-Match`` (when sent) names the current ETag of ``current`` (a representation)."""
    header = request.headers.get("If-Match")
    if not header or header.strip() == "*":
        return
    tag = etag_of(current)
    if tag not in _tags(header):
        raise PreconditionFailed(
            f"{what} changed since you read it (If-Match {header.strip()}, now {tag}): "
            "GET it again and apply your change to what it is now"
        )


def conditional(request, data, code=status.HTTP_200_OK) -> Response:
    """``data`` with its ``ETag``; a 304 without a body when ``If-None-Match`` names that ETag."""
    tag = etag_of(data)
    header = request.headers.get("If-None-Match")
    if request.method in ("GET", "HEAD") and header and (header.strip() == "*" or tag in _tags(header)):
        return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": tag})
    return Response(data, status=code, headers={"ETag": tag})
