"""``/api/v1/teams/{slug}/notification-targets/``: a team's targets (admins manage them), a test message,
and the delivery log. The URL is never shown back, only masked; a webhook's signing secret only once, at
creation."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts import permissions
from profiles.models import Team

from . import selectors, services
from .models import Delivery, NotificationTarget


class NotificationTargetSerializer(serializers.ModelSerializer):
    url = serializers.CharField(write_only=True, help_text="https:// only; stored encrypted, shown masked.")
    transitions = serializers.ListField(child=serializers.ChoiceField(services.TRANSITIONS), required=False)
    severities = serializers.ListField(child=serializers.ChoiceField(services.SEVERITIES), required=False)
    kinds = serializers.ListField(child=serializers.ChoiceField(["serving", "collection"]), required=False)
    labels = serializers.ListField(
        child=serializers.CharField(max_length=120),
        required=False,
        help_text="finding categories (vllm, catalog, policy) or rule ids; a change with none is not sent",
    )

    class Meta:
        model = NotificationTarget
        fields = [
            "id",
            "name",
            "kind",
            "url",
            "url_masked",
            "transitions",
            "severities",
            "kinds",
            "labels",
            "enabled",
            "created_at",
        ]
        read_only_fields = ["id", "url_masked", "enabled", "created_at"]


class NotificationTargetCreatedSerializer(NotificationTargetSerializer):
    secret = serializers.CharField(
        read_only=True,
        allow_null=True,
        help_text="A generic webhook's HMAC-SHA256 key: shown this once, never again.",
    )

    class Meta(NotificationTargetSerializer.Meta):
        fields = [*NotificationTargetSerializer.Meta.fields, "secret"]


class NotificationDeliverySerializer(serializers.ModelSerializer):
    target = serializers.CharField(source="target.name")

    class Meta:
        model = Delivery
        fields = [
            "id",
            "target",
            "event_type",
            "event_id",
            "state",
            "attempts",
            "last_status",
            "last_error",
            "created_at",
            "sent_at",
        ]


class NotificationTargetViewSet(viewsets.GenericViewSet):
    """A team's notification targets: Slack, Microsoft Teams, signed generic webhooks (CloudEvents 1.0)."""

    serializer_class = NotificationTargetSerializer
    queryset = NotificationTarget.objects.none()
    pagination_class = None  # a team has a few targets; the delivery log is the last 100

    def _team(self) -> Team:
        try:
            return selectors.team_for(self.request.user, self.kwargs["slug"])
        except Team.DoesNotExist as exc:
            raise Http404 from exc

    def _target(self, team, pk) -> NotificationTarget:
        target = selectors.targets_of(team).filter(pk=pk).first()
        if target is None:
            raise Http404
        return target

    def _require_admin(self, team):
        permissions.require(
            permissions.can_manage_notification_targets(self.request.user, team),
            f"only admins of team {team.slug!r} see and manage its notification targets",
        )

    def list(self, request, slug=None):
        team = self._team()
        self._require_admin(team)
        return Response(NotificationTargetSerializer(selectors.targets_of(team), many=True).data)

    @extend_schema(
        responses={201: NotificationTargetCreatedSerializer},
        examples=[
            OpenApiExample(
                "A Slack channel told of profiles that become invalid",
                value={
                    "name": "platform-alerts",
                    "kind": "slack",
                    "url": "https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX",
                    "transitions": ["newly_invalid", "fixed"],
                    "severities": ["error"],
                },
                request_only=True,
            )
        ],
    )
    def create(self, request, slug=None):
        team = self._team()
        serializer = NotificationTargetSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        target, secret = services.target_create(actor=request.user, team=team, **serializer.validated_data)
        data = NotificationTargetCreatedSerializer(target).data
        data["secret"] = secret or None
        return Response(data, status=status.HTTP_201_CREATED)

    def retrieve(self, request, slug=None, pk=None):
        team = self._team()
        self._require_admin(team)
        return Response(NotificationTargetSerializer(self._target(team, pk)).data)

    def destroy(self, request, slug=None, pk=None):
        team = self._team()
        services.target_delete(actor=request.user, target=self._target(team, pk))
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses={202: NotificationDeliverySerializer})
    @action(detail=True, methods=["post"])
    def test(self, request, slug=None, pk=None):
        """Send a test message to the target (through the worker); the delivery log shows how it went."""
        team = self._team()
        delivery = services.target_send_test(actor=request.user, target=self._target(team, pk))
        return Response(NotificationDeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses={200: NotificationDeliverySerializer(many=True)})
    @action(detail=False, methods=["get"])
    def deliveries(self, request, slug=None):
        """The team's last deliveries, newest first."""
        team = self._team()
        self._require_admin(team)
        return Response(NotificationDeliverySerializer(selectors.deliveries_of(team, 100), many=True).data)
