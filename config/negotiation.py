"""The API's content negotiation. Imports only DRF's negotiation: DRF loads it while its own views module is
imported (as config.parsers), so importing rest_framework.views here would be circular."""

from __future__ import annotations

from rest_framework.negotiation import DefaultContentNegotiation

# What CI pipelines, kubectl and curl send besides no Accept header at all: */* or JSON itself.
_JSON_ACCEPTS = frozenset({"*/*", "application/json"})


class ContentNegotiation(DefaultContentNegotiation):
    """DRF's negotiation, with the answer it would give to a request that accepts anything or JSON (the
    view's first renderer, when that is JSON, and ``application/json``) given without parsing the header
    and sorting media types: that was 3-4% of a validation's time. A browser's Accept (the browsable API),
    a format suffix and every other header go through DRF's own negotiation."""

    def select_renderer(self, request, renderers, format_suffix=None):
        if format_suffix is None and renderers and renderers[0].media_type == "application/json":
            accept = request.META.get("HTTP_ACCEPT")
            if accept is None or accept.strip() in _JSON_ACCEPTS:
                return renderers[0], "application/json"
        return super().select_renderer(request, renderers, format_suffix)
