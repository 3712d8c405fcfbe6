"""The fleet's default release, re-checks, and the upgrade preview."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import status, viewsets
from rest_framework.response import Response
from rest_framework.views import APIView

from profiles.models import Recheck
from profiles.services import previews
from validation import selectors
from validation.api.http import check_if_match, conditional, if_match_precondition
from validation.services.fleet import fleet_set_release

from .serializers import (
    FleetChangeSerializer,
    FleetSerializer,
    PreviewPendingSerializer,
    RecheckSerializer,
)


def preview_response(request, outcome: dict | None, profiles: int):
    """The preview (200), or 202 while a worker computes it."""
    if outcome is not None:
        return Response(outcome)
    body = {
        "state": "pending",
        "detail": f"evaluating {profiles} profiles on a worker; GET this URL again for the result",
        "profiles": profiles,
        "poll": request.build_absolute_uri(),
    }
    return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Retry-After": "1"})


class FleetView(APIView):
    """The fleet's default vLLM release, which profiles follow unless they pin one."""

    conditional_actions = ("get", "put")

    @extend_schema(responses=FleetSerializer)
    def get(self, request):
        return conditional(request, {"vllm_version": selectors.fleet_release().version})

    @extend_schema(
        request=FleetSerializer,
        responses={202: FleetChangeSerializer, 200: FleetChangeSerializer},
        examples=[OpenApiExample("Move to 0.33.0", {"vllm_version": "0.33.0"}, request_only=True)],
    )
    def put(self, request):
        """Staff: move the fleet to another release; the profiles that follow it are re-checked."""
        serializer = FleetSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        check_if_match(request, {"vllm_version": selectors.fleet_release().version}, what="the fleet")
        release = selectors.release_get(serializer.validated_data["vllm_version"])
        recheck = fleet_set_release(
            release=release,
            actor=request.user,
            # Checked again under the fleet's row lock: of two moves with one ETag, one gets 412.
            precondition=if_match_precondition(
                request, lambda: {"vllm_version": selectors.fleet_release().version}, what="the fleet"
            ),
        )
        code = status.HTTP_200_OK if recheck is None else status.HTTP_202_ACCEPTED
        response = conditional(request, {"vllm_version": release.version}, code)
        response.data = {"vllm_version": release.version, "recheck": recheck.pk if recheck else None}
        return response


class RecheckViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = RecheckSerializer
    queryset = Recheck.objects.select_related("ruleset", "release").order_by("-created_at")


class ReleasePreviewView(APIView):
    """Every profile evaluated as if moved to this release; nothing changes."""

    @extend_schema(responses={200: dict, 202: PreviewPendingSerializer})
    def get(self, request, version: str):
        """Computed here for a small fleet; above ``PREVIEW_INLINE_PROFILES`` profiles a worker computes
        it and this answers 202 until the result is ready (poll the same URL)."""
        outcome = previews.preview_or_schedule(release=selectors.release_get(version))
        return preview_response(request, outcome, previews.preview_profiles())
