"""The project's middleware.

Request-body limit: a body larger than ``API_MAX_BODY_BYTES`` gets a 413 before anything reads it.

Django's own DATA_UPLOAD_MAX_MEMORY_SIZE covers forms, but DRF's parsers read the stream themselves; this
answers every path alike, in the API's error shape (``{"detail": ...}``) for /api/ and as text elsewhere.
(Django reads no body without a Content-Length, so a chunked one never reaches a parser.)"""

from __future__ import annotations

import http.client

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject
from csp.middleware import CSPMiddleware as BaseCSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.messages.storage import default_storage
from django.core.signals import setting_changed
from django.http import HttpResponse, JsonResponse
from django.middleware import common
from django.utils.functional import SimpleLazyObject, empty


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


def _has_header(response, lower_name: str) -> bool:
    """``lower_name in response`` for a lower-cased header name, asked of the headers' own store: Django's
    ``ResponseHeaders`` answers ``in`` through ``Mapping.__contains__``, which raises and catches a
    ``KeyError`` for a header it does not hold, the usual answer here."""
    return lower_name in response.headers._store


class CommonMiddleware(common.CommonMiddleware):
    """Django's, asking whether the response has a ``Content-Length`` by :func:`_has_header`."""

    def process_response(self, request, response):
        if response.status_code == 404 and self.should_redirect_with_slash(request):
            return self.response_redirect_class(self.get_full_path_with_slash(request))
        if not response.streaming and not _has_header(response, "content-length"):
            response.headers["Content-Length"] = str(len(response.content))
        return response


class LazyMessageMiddleware(MessageMiddleware):
    """Django's messages, with a request's message storage made when something first uses it (a page that
    adds or shows a message). Django makes it for every request, reading its cookie and session: 2% of an
    API validation, which never uses it. A storage nothing used has nothing to store (Django's ``update``
    does nothing unless messages were read or added), so the response is left as it is."""

    def process_request(self, request):
        request._messages = SimpleLazyObject(lambda: default_storage(request))

    def process_response(self, request, response):
        messages = getattr(request, "_messages", None)
        if isinstance(messages, SimpleLazyObject) and messages._wrapped is empty:
            return response
        return super().process_response(request, response)


# Per-response overrides of the policy (django-csp's decorators): such a response gets django-csp's own path.
_CSP_OVERRIDES = frozenset(
    f"_csp_{part}{ro}" for part in ("config", "update", "replace") for ro in ("", "_ro")
)
# (header, its name lower-cased, report only or not, the response's exemption, the setting)
_CSP_HEADERS = (
    (HEADER, HEADER.lower(), False, "_csp_exempt", "CONTENT_SECURITY_POLICY"),
    (
        HEADER_REPORT_ONLY,
        HEADER_REPORT_ONLY.lower(),
        True,
        "_csp_exempt_ro",
        "CONTENT_SECURITY_POLICY_REPORT_ONLY",
    ),
)
# report only or not -> (the settings' policy, the path prefixes it excludes)
_csp_built: dict[bool, tuple[str, tuple[str, ...]]] = {}


def _csp_settings_changed(setting, **kwargs):
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _csp_built.clear()


setting_changed.connect(_csp_settings_changed)


def _csp_policy(report_only: bool, setting: str) -> tuple[str, tuple[str, ...]]:
    built = _csp_built.get(report_only)
    if built is None:
        prefixes = (getattr(settings, setting, None) or {}).get("EXCLUDE_URL_PREFIXES", None) or ()
        built = _csp_built[report_only] = (build_policy(report_only=report_only), tuple(prefixes))
    return built


class CSPMiddleware(BaseCSPMiddleware):
    """django-csp's middleware, with the header of the settings' own policy and its excluded path prefixes
    read once per process: django-csp builds it from the settings for every response (3-4% of an API
    validation). A response whose page used a nonce, or whose view changes the policy (``@csp_update`` and
    the like, which set attributes on the response), goes through django-csp as it is; otherwise the header
    and exemptions are django-csp's (``process_response``)."""

    def __init__(self, get_response):
        super().__init__(get_response)
        # What a nonce asked for after the header is written gives: django-csp makes one such object per
        # response; it holds nothing of the request and only ever raises, so one serves them all.
        self._nonce_after_response = CheckableLazyObject(self._csp_nonce_post_response)

    def process_response(self, request, response):
        if getattr(request, "_csp_nonce", None) is not None or not _CSP_OVERRIDES.isdisjoint(vars(response)):
            return super().process_response(request, response)
        exempted = (http.client.INTERNAL_SERVER_ERROR, http.client.NOT_FOUND)
        if response.status_code in exempted and settings.DEBUG:
            return response
        for header, lower_header, report_only, exempt, setting in _CSP_HEADERS:
            policy, prefixes = _csp_policy(report_only, setting)
            if (
                not policy
                or _has_header(response, lower_header)
                or getattr(response, exempt, False) is not False
            ):
                continue
            if not request.path_info.startswith(prefixes):
                response[header] = policy
        # As django-csp: a nonce asked for after the header is written is an error, not a silent gap.
        request.csp_nonce = self._nonce_after_response
        return response
