"""Read side of model knowledge: what is stored; never the network."""

from __future__ import annotations

from django.db.models import QuerySet

from .models import ModelConfig, NodeType


def model_configs() -> QuerySet[ModelConfig]:
    return ModelConfig.objects.select_related("uploaded_by").order_by("repo", "revision")


def model_config_stored(repo: str, revision: str = "") -> ModelConfig | None:
    return ModelConfig.objects.filter(repo=repo, revision=revision).first()


def node_types() -> QuerySet[NodeType]:
    return NodeType.objects.order_by("name")
