"""config.middleware.CommonMiddleware answers every response as Django's CommonMiddleware does: a
Content-Length where the response has none, the response's own one kept, none on a streamed response, and
a 404 for a path without its slash redirected to the path with it."""

from __future__ import annotations

import pytest
from django.http import HttpResponse, HttpResponseNotFound, StreamingHttpResponse
from django.middleware.common import CommonMiddleware as DjangoCommonMiddleware
from django.test import RequestFactory

from config.middleware import CommonMiddleware


def _ok(request):
    return HttpResponse(b'{"valid": true}', content_type="application/json")


def _own_length(request):
    response = HttpResponse(b"abc")
    response["content-length"] = "3"
    return response


def _streamed(request):
    return StreamingHttpResponse(iter([b"a", b"b"]))


def _not_found(request):
    return HttpResponseNotFound(b"nothing here")


CASES = {
    "no length": ("/api/v1/validate/", _ok),
    "its own length": ("/api/v1/validate/", _own_length),
    "streamed": ("/api/v1/validate/", _streamed),
    "404 without its slash": ("/api/v1/validate", _not_found),
    "404 elsewhere": ("/nowhere/", _not_found),
}


@pytest.mark.parametrize("case", CASES)
def test_the_same_response_as_djangos(case):
    path, view = CASES[case]
    ours = CommonMiddleware(view)(RequestFactory().get(path))
    theirs = DjangoCommonMiddleware(view)(RequestFactory().get(path))
    assert ours.status_code == theirs.status_code
    assert list(ours.items()) == list(theirs.items())
    if case == "no length":
        assert ours["Content-Length"] == "15"
    if case == "404 without its slash":
        assert ours.status_code == 301 and ours["Location"] == "/api/v1/validate/"
