"""/api/v1/sources/ (Git repositories whose files are profiles) and /api/v1/git-credentials/ (the tokens and
SSH keys they use, bound to one host each, write-only)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from profiles.models import Team

from ..models import GitCredential, GitSource
from ..selectors import git_credentials_visible_to, git_sources_visible_to
from ..services import (
    git_credential_create,
    git_credential_delete,
    git_source_create,
    git_source_delete,
    git_source_update,
)
from ..tasks import git_source_sync_task


class GitSourceSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", queryset=Team.objects.all())
    owner = serializers.CharField(source="owner.username", read_only=True)
    credential = serializers.SlugRelatedField(
        slug_field="name",
        queryset=GitCredential.objects.all(),
        required=False,
        allow_null=True,
        help_text="The name of one of the team's Git credentials, bound to the URL's host.",
    )

    class Meta:
        model = GitSource
        fields = [
            "id",
            "team",
            "name",
            "url",
            "branch",
            "paths",
            "kind",
            "credential",
            "credentials_env",
            "disabled_reason",
            "owner",
            "last_commit",
            "last_synced_at",
            "last_errors",
            "created_at",
        ]
        read_only_fields = [
            "owner",
            "disabled_reason",
            "last_commit",
            "last_synced_at",
            "last_errors",
            "created_at",
        ]

    def to_internal_value(self, data):
        """A credential is looked up by name within the source's team (names are unique per team only)."""
        name = data.get("credential") if hasattr(data, "get") else None
        if name:
            team_slug = data.get("team") or getattr(getattr(self.instance, "team", None), "slug", None)
            self.fields["credential"].queryset = GitCredential.objects.filter(team__slug=team_slug)
        return super().to_internal_value(data)


class GitSourceUpdateSerializer(GitSourceSerializer):
    class Meta(GitSourceSerializer.Meta):
        read_only_fields = [*GitSourceSerializer.Meta.read_only_fields, "team", "name"]


class GitCredentialSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", queryset=Team.objects.all())
    secret = serializers.CharField(
        write_only=True,
        trim_whitespace=False,
        style={"input_type": "password"},
        help_text="The token, or the SSH private key (OpenSSH or PEM, no passphrase). Never shown again.",
    )
    created_by = serializers.CharField(source="created_by.username", read_only=True, default="")
    used_by = serializers.SerializerMethodField()

    class Meta:
        model = GitCredential
        fields = [
            "id",
            "team",
            "name",
            "host",
            "kind",
            "username",
            "secret",
            "fingerprint",
            "public_key",
            "created_by",
            "created_at",
            "last_used_at",
            "used_by",
        ]
        read_only_fields = ["fingerprint", "public_key", "created_at", "last_used_at"]
        extra_kwargs = {"username": {"required": False}}
        validators = []  # uniqueness per team is the service's check (a 400 naming the field)

    def get_used_by(self, obj) -> list[str]:
        return sorted(source.name for source in obj.sources.all())


class SyncQueuedSerializer(serializers.Serializer):
    source = serializers.IntegerField()
    queued = serializers.BooleanField()


@extend_schema_view(
    partial_update=extend_schema(
        examples=[
            OpenApiExample(
                "Another branch and the team's credential",
                {"branch": "release", "credential": "deploy-token"},
                request_only=True,
            )
        ]
    ),
    create=extend_schema(
        examples=[
            OpenApiExample(
                "A repository of Kubernetes manifests",
                {
                    "team": "ml-platform",
                    "name": "deploy",
                    "url": "https://git.example.com/ml/deploy.git",
                    "branch": "main",
                    "paths": ["deploy/**/*.yaml"],
                    "credential": "deploy-token",
                },
                request_only=True,
            )
        ]
    ),
)
class GitSourceViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Sources are synced by beat (GIT_SYNC_INTERVAL); `POST {id}/sync/` asks for a sync now. Only remote
    repositories (https://, ssh://, user@host:path); a private one names a Git credential of the team."""

    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_serializer_class(self):
        if self.action in ("update", "partial_update"):
            return GitSourceUpdateSerializer
        return GitSourceSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return GitSource.objects.none()
        return git_sources_visible_to(self.request.user)

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        team = get_object_or_404(Team, pk=data.pop("team").pk)
        data.setdefault("paths", [])  # optional in the API (the model's default), required by the service
        serializer.instance = git_source_create(actor=self.request.user, team=team, **data)

    def perform_update(self, serializer):
        serializer.instance = git_source_update(
            actor=self.request.user, source=serializer.instance, **serializer.validated_data
        )

    def perform_destroy(self, instance):
        git_source_delete(actor=self.request.user, source=instance)

    @extend_schema(request=None, responses={202: SyncQueuedSerializer})
    @action(detail=True, methods=["post"])
    def sync(self, request, pk=None):
        source = self.get_object()
        git_source_sync_task.delay(source.pk)
        return Response({"source": source.pk, "queued": True}, status=status.HTTP_202_ACCEPTED)


@extend_schema_view(
    create=extend_schema(
        examples=[
            OpenApiExample(
                "A read-only deploy token for one host",
                {
                    "team": "ml-platform",
                    "name": "deploy-token",
                    "host": "git.example.com",
                    "kind": "token",
                    "secret": "glpat-...",  # nosec B105  # a placeholder in the API docs
                },
                request_only=True,
            )
        ]
    )
)
class GitCredentialViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """A team's admins (or staff) register tokens and SSH keys, each bound to one host; the secret is stored
    encrypted and never returned. Members see names, hosts and fingerprints, to name one in a source."""

    serializer_class = GitCredentialSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return GitCredential.objects.none()
        return git_credentials_visible_to(self.request.user).prefetch_related("sources")

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        team = get_object_or_404(Team, pk=data.pop("team").pk)
        serializer.instance = git_credential_create(actor=self.request.user, team=team, **data)

    def perform_destroy(self, instance):
        git_credential_delete(actor=self.request.user, credential=instance)
