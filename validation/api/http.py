"""HTTP plumbing every app's API uses (validation is below every app with an API: all may import it).

- conditional requests (RFC 9110): ``ETag`` on the resources that can be changed, ``If-None-Match`` on reads
  (304), ``If-Match`` on writes (412 when stale); config.schema documents them for the views that list their
  actions in ``conditional_actions``;
- ``StrictFields``: a write serializer that refuses fields it does not know, naming them;
"""

from __future__ import annotations

import hashlib
import json

from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder


class PreconditionFailed(exceptions.APIException):
    status_code = status.HTTP_412_PRECONDITION_FAILED
    default_detail = "the resource changed since you read it"
    default_code = "precondition_failed"


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


def if_match_precondition(request, read, what: str = "the resource"):
    """The ``If-Match`` check as a precondition for a service to run once it holds the resource's row lock
    (None when no ``If-Match`` was sent): ``read()`` builds the representation afresh from the database, so
    of two writers holding one ETag exactly one passes. A check in the view alone would let both pass."""
    if not if_match_given(request):
        return None
    return lambda: check_if_match(request, read(), what)


def conditional(request, data, code=status.HTTP_200_OK) -> Response:
    """``data`` with its ``ETag``; a 304 without a body when ``If-None-Match`` names that ETag."""
    tag = etag_of(data)
    header = request.headers.get("If-None-Match")
    if request.method in ("GET", "HEAD") and header and (header.strip() == "*" or tag in _tags(header)):
        return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": tag})
    return Response(data, status=code, headers={"ETag": tag})


class StrictFields:
    """Mixin for request serializers: a field it does not know is a 400 naming it, not silently dropped.
    ``ignored_fields``: names a client may send back from a read (e.g. ``id``, ``state``) without effect."""

    ignored_fields: tuple[str, ...] = ()

    def to_internal_value(self, data):
        if isinstance(data, dict):
            known = set(self.fields) | set(self.ignored_fields)
            unknown = sorted(str(key) for key in data if key not in known)
            if unknown:
                accepted = ", ".join(name for name, field in self.fields.items() if not field.read_only)
                raise serializers.ValidationError(
                    {name: [f"unknown field; this endpoint accepts: {accepted}"] for name in unknown}
                )
        return super().to_internal_value(data)
