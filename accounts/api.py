"""API of accounts: the user's own tokens (/api/v1/me/tokens/) and the audit log (/api/v1/audit/)."""

from __future__ import annotations

from datetime import UTC, timedelta

import django_filters
from django import forms
from django_filters.fields import IsoDateTimeField
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from . import selectors, services
from .models import ApiToken, AuditEvent


class ApiTokenSerializer(serializers.ModelSerializer):
    active = serializers.SerializerMethodField()

    class Meta:
        model = ApiToken
        fields = [
            "id",
            "name",
            "prefix",
            "read_only",
            "expires_at",
            "created_at",
            "last_used_at",
            "revoked_at",
            "active",
        ]
        read_only_fields = ["id", "prefix", "created_at", "last_used_at", "revoked_at", "active"]
        extra_kwargs = {"name": {"validators": []}}

    def get_active(self, obj) -> bool:
        from django.utils import timezone

        return obj.revoked_at is None and (obj.expires_at is None or obj.expires_at > timezone.now())


class ApiTokenCreatedSerializer(ApiTokenSerializer):
    key = serializers.CharField(read_only=True, help_text="Shown once: only its sha256 is stored.")

    class Meta(ApiTokenSerializer.Meta):
        fields = [*ApiTokenSerializer.Meta.fields, "key"]


class ApiTokenViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Your API tokens. Create one (its key is in the answer, once), list them, revoke one."""

    serializer_class = ApiTokenSerializer

    queryset = ApiToken.objects.none()  # for the schema; get_queryset gives the caller's own

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ApiToken.objects.none()
        return selectors.tokens_of(self.request.user)

    @extend_schema(
        request=ApiTokenSerializer,
        responses={201: ApiTokenCreatedSerializer},
        examples=[
            OpenApiExample(
                "A read-only token for a CI pipeline",
                value={"name": "ci-lint", "read_only": True, "expires_at": None},
                request_only=True,
            )
        ],
    )
    def create(self, request):
        serializer = ApiTokenSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token, key = services.token_create(actor=request.user, user=request.user, **serializer.validated_data)
        body = ApiTokenSerializer(token).data
        return Response({**body, "key": key}, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: ApiTokenSerializer})
    @action(detail=True, methods=["post"])
    def revoke(self, request, pk=None):
        token = services.token_revoke(actor=request.user, token=self.get_object())
        return Response(ApiTokenSerializer(token).data)


class UtcIsoDateTimeField(IsoDateTimeField):
    """An ISO 8601 time, in UTC for the database: an offset beyond ±14:00 (none exists) is refused."""

    def to_python(self, value):
        parsed = super().to_python(value)
        if parsed is None:
            return None
        offset = parsed.utcoffset()
        if offset is not None and abs(offset) > timedelta(hours=14):
            raise forms.ValidationError(f"time zone offset {offset} is out of range (at most ±14:00)")
        try:
            return parsed.astimezone(UTC) if offset is not None else parsed
        except OverflowError as exc:
            raise forms.ValidationError("the time is out of range") from exc


class UtcIsoDateTimeFilter(django_filters.IsoDateTimeFilter):
    field_class = UtcIsoDateTimeField


class AuditFilter(django_filters.FilterSet):
    OBJECT_TYPES = [
        (t, t)
        for t in ("profile", "ruleset", "rule", "waiver", "fleet", "release", "team", "membership", "token")
    ]
    actor = django_filters.CharFilter(field_name="actor_name", help_text="the user's name")
    team = django_filters.CharFilter(field_name="team_slug", help_text="the team's slug")
    action = django_filters.CharFilter(lookup_expr="startswith", help_text="e.g. profile. or profile.update")
    object_type = django_filters.ChoiceFilter(choices=OBJECT_TYPES)
    object_id = django_filters.CharFilter()
    via = django_filters.ChoiceFilter(choices=AuditEvent.Via.choices)
    since = UtcIsoDateTimeFilter(field_name="at", lookup_expr="gte")
    until = UtcIsoDateTimeFilter(field_name="at", lookup_expr="lt")

    class Meta:
        model = AuditEvent
        fields = ["actor", "team", "action", "object_type", "object_id", "via", "since", "until"]


class AuditEventSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor_name")
    team = serializers.CharField(source="team_slug")

    class Meta:
        model = AuditEvent
        fields = [
            "id",
            "at",
            "actor",
            "via",
            "address",
            "action",
            "object_type",
            "object_id",
            "object_repr",
            "team",
            "before",
            "after",
        ]
        read_only_fields = fields


class AuditEventViewSet(viewsets.ReadOnlyModelViewSet):
    """The audit log (read-only): staff read all of it, a team's admins their team's entries."""

    serializer_class = AuditEventSerializer
    filterset_class = AuditFilter
    ordering_fields = ["at"]
    ordering = ["-at", "-id"]

    def get_queryset(self):
        return selectors.audit_events_visible_to(self.request.user)
