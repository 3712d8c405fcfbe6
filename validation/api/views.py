from __future__ import annotations

from django.db.models import Count
from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.response import Response
from rest_framework.views import APIView

from profiles import services as profile_services
from profiles.api.serializers import FindingsDocumentSerializer
from validation import selectors, services

from .serializers import (
    FleetSerializer,
    ReleaseSerializer,
    RuleSetDetailSerializer,
    RuleSetSerializer,
    ValidateRequestSerializer,
)


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


class RuleSetViewSet(viewsets.ReadOnlyModelViewSet):
    def get_queryset(self):
        queryset = selectors.rulesets_ordered()
        if self.action == "list":
            return queryset.annotate(rule_count=Count("rules"))
        return queryset.prefetch_related("rules")

    def get_serializer_class(self):
        return RuleSetDetailSerializer if self.action == "retrieve" else RuleSetSerializer

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "current_ruleset": services.ruleset_current()}


class FleetView(APIView):
    """The fleet's default vLLM release, which profiles follow unless they pin one."""

    @extend_schema(responses=FleetSerializer)
    def get(self, request):
        return Response({"vllm_version": services.fleet_release().version})
