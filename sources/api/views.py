"""/api/v1/sources/: Git repositories whose files are profiles."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from profiles.models import Team

from ..models import GitSource
from ..selectors import git_sources_visible_to
from ..services import git_source_create
from ..tasks import git_source_sync_task


class GitSourceSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", queryset=Team.objects.all())
    owner = serializers.CharField(source="owner.username", read_only=True)

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
            "credentials_env",
            "owner",
            "last_commit",
            "last_synced_at",
            "last_errors",
            "created_at",
        ]
        read_only_fields = ["owner", "last_commit", "last_synced_at", "last_errors", "created_at"]


class SyncQueuedSerializer(serializers.Serializer):
    source = serializers.IntegerField()
    queued = serializers.BooleanField()


@extend_schema_view(
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
                },
                request_only=True,
            )
        ]
    )
)
class GitSourceViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet
):
    """Sources are synced by beat (GIT_SYNC_INTERVAL); `POST {id}/sync/` asks for a sync now."""

    serializer_class = GitSourceSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return GitSource.objects.none()
        return git_sources_visible_to(self.request.user)

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        team = get_object_or_404(Team, pk=data.pop("team").pk)
        data.setdefault("paths", [])  # optional in the API (the model's default), required by the service
        serializer.instance = git_source_create(actor=self.request.user, team=team, **data)

    @extend_schema(request=None, responses={202: SyncQueuedSerializer})
    @action(detail=True, methods=["post"])
    def sync(self, request, pk=None):
        source = self.get_object()
        git_source_sync_task.delay(source.pk)
        return Response({"source": source.pk, "queued": True}, status=status.HTTP_202_ACCEPTED)
