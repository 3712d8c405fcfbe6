"""A user's own alerts and their e-mail preference."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.response import Response
from rest_framework.views import APIView

from profiles.models import Alert, AlertPreference
from profiles.services.alerts import alert_preference_set
from validation.api.http import StrictFields


class AlertSerializer(serializers.ModelSerializer):
    profile = serializers.IntegerField(source="profile_id")
    profile_name = serializers.CharField(source="profile.name")
    team = serializers.CharField(source="profile.team.slug")
    to_state = serializers.CharField(source="change.to_state")
    cause = serializers.CharField(source="change.cause_detail")
    errors = serializers.SerializerMethodField()

    class Meta:
        model = Alert
        fields = [
            "id",
            "profile",
            "profile_name",
            "team",
            "to_state",
            "cause",
            "errors",
            "state",
            "attempts",
            "last_error",
            "created_at",
            "sent_at",
        ]
        read_only_fields = fields

    def get_errors(self, obj) -> list[str]:
        return [f["message"] for f in obj.change.appeared if f.get("severity") == "error"]


class AlertViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = AlertSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Alert.objects.none()
        return Alert.objects.filter(recipient=self.request.user).select_related("profile__team", "change")


class AlertPreferenceSerializer(StrictFields, serializers.Serializer):
    email_alerts = serializers.BooleanField()


class AlertPreferenceView(APIView):
    """Turn your own alert e-mails on or off."""

    @extend_schema(responses=AlertPreferenceSerializer)
    def get(self, request):
        preference = AlertPreference.objects.filter(user=request.user).first()
        return Response({"email_alerts": preference.email_alerts if preference else True})

    @extend_schema(
        request=AlertPreferenceSerializer,
        responses=AlertPreferenceSerializer,
        examples=[OpenApiExample("Turn e-mails off", {"email_alerts": False}, request_only=True)],
    )
    def put(self, request):
        serializer = AlertPreferenceSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        preference = alert_preference_set(
            user=request.user, email_alerts=serializer.validated_data["email_alerts"]
        )
        return Response({"email_alerts": preference.email_alerts})
