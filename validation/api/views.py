from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.response import Response
from rest_framework.views import APIView

from profiles import services as profile_services
from profiles.api.serializers import FindingsDocumentSerializer
from validation import selectors, services

from .serializers import ReleaseSerializer, ValidateRequestSerializer


class ValidateView(APIView):
    """Dry run: the findings document for a profile, valid or not. Nothing is stored."""

    @extend_schema(request=ValidateRequestSerializer, responses={200: FindingsDocumentSerializer})
    def post(self, request):
        serializer = ValidateRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = profile_services.ProfileInput.from_mapping(serializer.validated_data)
        verdict = profile_services.profile_dry_run(data=data)
        return Response(verdict.as_dict())


class ReleaseViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = ReleaseSerializer
    lookup_field = "version"
    lookup_value_regex = r"[0-9][0-9A-Za-z.+-]*"
    pagination_class = None

    def get_queryset(self):
        return selectors.releases_ordered()

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "fleet_release": services.fleet_release()}
