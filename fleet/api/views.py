from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from validation import selectors
from validation.errors import DomainError
from validation.services import releases as release_services

from .serializers import ReleaseCoverageSerializer, ReleaseDiffSerializer, ReleaseSerializer


class ReleaseViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = ReleaseSerializer
    lookup_field = "version"
    lookup_value_regex = r"[0-9][0-9A-Za-z.+-]*"
    pagination_class = None

    def get_queryset(self):
        return selectors.releases_ordered()

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "fleet_release": selectors.fleet_release()}

    @extend_schema(
        responses={200: ReleaseDiffSerializer},
        parameters=[OpenApiParameter("other", str, OpenApiParameter.PATH, description="the later release")],
    )
    @action(detail=True, methods=["get"], url_path=r"diff/(?P<other>[0-9][0-9A-Za-z.+-]*)")
    def diff(self, request, version=None, other=None):
        """Arguments added, removed, renamed and changed, and error messages added and removed, from this
        release to ``other``."""
        return Response(_release_report(release_services.release_diff, old=version, new=other))

    @extend_schema(responses={200: ReleaseCoverageSerializer})
    @action(detail=True, methods=["get"])
    def coverage(self, request, version=None):
        """Which raise-sites of this release's config code the current rule set checks, which it does not,
        and the rules claiming the release whose message it no longer has."""
        return Response(_release_report(release_services.release_coverage, version=version))


def _release_report(report, **kwargs):
    try:
        return report(**kwargs)
    except DomainError as exc:
        if exc.code in ("unknown", "no_catalog"):
            raise NotFound(exc.message) from None
        raise
