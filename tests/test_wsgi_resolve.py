"""config.wsgi's handler keeps each path's URL match: the answers are those of Django's own handler."""

from __future__ import annotations

import io
import sys

import pytest
from django.http import HttpResponse
from django.test import override_settings
from django.urls import path

from config import wsgi


def _view(name):
    def view(request, **kwargs):
        return HttpResponse(f"{name} {sorted(kwargs.items())} {request.resolver_match.url_name}")

    return view


urlpatterns = [
    path("a/", _view("first"), name="first-a"),
    path("items/<int:pk>/", _view("item"), name="item"),
]


class OtherUrls:
    urlpatterns = [path("a/", _view("second"), name="second-a")]


sys.modules[f"{__name__}.other"] = OtherUrls  # a second URLconf, by dotted path


def call(url: str) -> tuple[str, bytes]:
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": url,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "testserver",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }
    status = []
    body = b"".join(wsgi.application(environ, lambda s, h, e=None: status.append(s)))
    return status[0], body


@pytest.fixture(autouse=True)
def _this_urlconf():
    wsgi._resolved.cache_clear()
    with override_settings(ROOT_URLCONF=__name__, ALLOWED_HOSTS=["testserver"]):
        yield


def test_a_path_answers_the_same_each_time_and_is_resolved_once():
    assert call("/a/") == ("200 OK", b"first [] first-a")
    assert call("/a/") == ("200 OK", b"first [] first-a")
    assert wsgi._resolved.cache_info().hits == 1


def test_each_path_has_its_own_arguments():
    assert call("/items/1/") == ("200 OK", b"item [('pk', 1)] item")
    assert call("/items/2/") == ("200 OK", b"item [('pk', 2)] item")
    assert call("/items/1/") == ("200 OK", b"item [('pk', 1)] item")


def test_a_path_that_does_not_resolve_is_a_404_each_time():
    assert call("/nowhere/")[0] == "404 Not Found"
    assert call("/nowhere/")[0] == "404 Not Found"
    assert wsgi._resolved.cache_info().currsize == 0


def test_another_urlconf_is_resolved_afresh():
    assert call("/a/") == ("200 OK", b"first [] first-a")
    with override_settings(ROOT_URLCONF=f"{__name__}.other"):
        assert call("/a/") == ("200 OK", b"second [] second-a")
    assert call("/a/") == ("200 OK", b"first [] first-a")
