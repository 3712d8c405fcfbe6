"""Messages (Django's contrib.messages) made only when a page uses them: an added message still reaches the
next page, and a request that never touches them gets no messages cookie and reads no session."""

from __future__ import annotations

import pytest
from django.contrib import messages
from django.contrib.messages.storage.cookie import CookieStorage
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpResponse
from django.test import RequestFactory

from config.middleware import LazyMessageMiddleware


def _run(view, cookies=None):
    request = RequestFactory().get("/")
    request.COOKIES.update(cookies or {})
    session = SessionMiddleware(lambda r: HttpResponse())
    session.process_request(request)
    response = LazyMessageMiddleware(view)(request)
    return request, response


def test_a_message_added_by_a_page_reaches_the_next_page(db):
    def adds(request):
        messages.success(request, "Profile ml/teacher saved.")
        return HttpResponse()

    _, first = _run(adds)
    cookie = first.cookies[CookieStorage.cookie_name].value
    assert cookie

    seen = []

    def shows(request):
        seen.extend(str(m) for m in messages.get_messages(request))
        return HttpResponse()

    _, second = _run(shows, {CookieStorage.cookie_name: cookie})
    assert seen == ["Profile ml/teacher saved."]
    assert second.cookies[CookieStorage.cookie_name].value == ""  # shown once, then cleared


@pytest.mark.parametrize("cookie", [None, "stale"])
def test_a_request_that_uses_no_messages_leaves_them_alone(cookie):
    request, response = _run(lambda r: HttpResponse(), {CookieStorage.cookie_name: cookie} if cookie else {})
    assert CookieStorage.cookie_name not in response.cookies
    assert not request.session.accessed
