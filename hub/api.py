"""REST API of model configs and node types: shapes only; the services fetch, store and re-check."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from . import selectors, services
from .models import ModelConfig, NodeType


class ModelConfigSerializer(serializers.ModelSerializer):
    architecture = serializers.SerializerMethodField()
    uploaded_by = serializers.CharField(
        source="uploaded_by.username", default=None, read_only=True, allow_null=True
    )
    source = serializers.ChoiceField(
        choices=[("", "not resolved"), *ModelConfig.Source.choices],
        read_only=True,
        help_text="Where the config came from; empty while it could not be resolved",
    )
    weights_basis = serializers.ChoiceField(
        choices=[("", "not looked at yet"), *ModelConfig.WeightsBasis.choices],
        read_only=True,
        help_text="Where the weights' size comes from (checkpoint_size); empty: not looked at yet",
    )

    class Meta:
        model = ModelConfig
        fields = [
            "id",
            "repo",
            "revision",
            "commit",
            "source",
            "architecture",
            "error",
            "fetched_at",
            "uploaded_by",
            "config",
            "files",
            "tokens",
            "encoder_config",
            "tokenizer_max_length",
            "checkpoint_size",
            "checkpoint_dtypes",
            "weights_basis",
        ]
        read_only_fields = fields

    def get_architecture(self, obj) -> str | None:
        archs = (obj.config or {}).get("architectures")
        return archs[0] if isinstance(archs, list) and archs else None


class ModelConfigListSerializer(ModelConfigSerializer):
    class Meta(ModelConfigSerializer.Meta):
        fields = [
            f
            for f in ModelConfigSerializer.Meta.fields
            if f
            not in (
                "config",
                "files",
                "tokens",
                "encoder_config",
                "tokenizer_max_length",
                "checkpoint_dtypes",
            )
        ]
        read_only_fields = fields


class ModelConfigWriteSerializer(serializers.Serializer):
    repo = serializers.CharField(max_length=500, help_text="Hugging Face repository id (or local directory).")
    revision = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    config = serializers.JSONField(
        required=False,
        help_text="The config.json to store (private models); absent: resolve it from the Hub.",
    )
    safetensors_index = serializers.JSONField(
        required=False,
        help_text="With config: the checkpoint's model.safetensors.index.json (its metadata.total_size is "
        "the weights' bytes for the memory estimate).",
    )


class NodeTypeSerializer(serializers.ModelSerializer):
    class Meta:
        model = NodeType
        fields = [
            "id",
            "name",
            "gpu",
            "gpus_per_node",
            "gpu_memory_gb",
            "gpu_memory_gib",
            "interconnect",
            "description",
        ]


def _hub_call(function, **kwargs):
    try:
        return function(**kwargs)
    except services.HubError as exc:
        raise serializers.ValidationError({exc.field or "detail": [exc.message]}) from exc


@extend_schema_view(
    create=extend_schema(
        examples=[
            OpenApiExample(
                "Upload a private model's config.json",
                {
                    "repo": "acme/private-llm",
                    "config": {
                        "architectures": ["LlamaForCausalLM"],
                        "model_type": "llama",
                        "num_attention_heads": 32,
                        "num_key_value_heads": 8,
                        "hidden_size": 4096,
                        "max_position_embeddings": 131072,
                    },
                },
                request_only=True,
            )
        ]
    )
)
class ModelConfigViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Model configs per repository and revision. ``POST`` with ``config`` stores an upload (private models;
    the profiles that read it are re-checked); without ``config`` it resolves the model now."""

    queryset = selectors.model_configs()
    filterset_fields = ["repo", "revision", "source"]

    def get_serializer_class(self):
        if self.action == "create":
            return ModelConfigWriteSerializer
        return ModelConfigListSerializer if self.action == "list" else ModelConfigSerializer

    def create(self, request):
        data = ModelConfigWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        if "safetensors_index" in values and "config" not in values:
            raise serializers.ValidationError(
                {"safetensors_index": ["upload it with the model's config.json (config)"]}
            )
        if "config" in values:
            row = _hub_call(
                services.model_config_upload,
                actor=request.user,
                repo=values["repo"],
                revision=values["revision"],
                config=values["config"],
                index=values.get("safetensors_index"),
            )
        else:
            row = services.model_config_fetch_by(
                actor=request.user, repo=values["repo"].strip(), revision=values["revision"].strip()
            )
        return Response(ModelConfigSerializer(row).data, status=status.HTTP_201_CREATED)

    @action(detail=True, methods=["post"])
    def refresh(self, request, pk=None):
        """Fetch the config again (Hub, cache or directory); the profiles that read it are re-checked."""
        row = services.model_config_refresh(actor=request.user, config=self.get_object())
        return Response(ModelConfigSerializer(row).data)


class NodeTypeViewSet(viewsets.ReadOnlyModelViewSet):
    """Named node types a profile (or a team's default) can run on; staff manage them in the admin."""

    queryset = selectors.node_types()
    serializer_class = NodeTypeSerializer
    pagination_class = None
