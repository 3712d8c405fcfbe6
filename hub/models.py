"""What the product knows of models and nodes: config.json per repository and revision; named node types."""

from django.conf import settings
from django.db import models


class ModelConfig(models.Model):
    """A model's config.json as resolved for one repository (or local directory) and revision.

    A row without ``config`` records why it could not be fetched, so a re-check (which never goes to the
    network) can say so; a row whose refresh failed keeps its last good config and the refresh's error.
    """

    class Source(models.TextChoices):
        HUB = "hub", "fetched from the Hub"
        CACHE = "cache", "local Hugging Face cache"
        LOCAL = "local", "local directory"
        UPLOAD = "upload", "uploaded"

    class WeightsBasis(models.TextChoices):
        INDEX = "checkpoint index", "model.safetensors.index.json total_size"
        HEADER = "safetensors header", "model.safetensors header"
        SHAPES = "config shapes", "counted from config.json's shapes"

    repo = models.CharField(max_length=500, help_text="Hugging Face repository id, or a local directory.")
    revision = models.CharField(max_length=200, blank=True, help_text="Empty: the default branch.")
    commit = models.CharField(max_length=64, blank=True)
    config = models.JSONField(null=True, blank=True)
    files = models.JSONField(
        null=True,
        blank=True,
        help_text="The names of the checkpoint's *.json files (null: not known).",
    )
    tokens = models.JSONField(
        null=True,
        blank=True,
        help_text="Which probed tokens (reasoning parsers' think tokens) the tokenizer has (null: unknown).",
    )
    encoder_config = models.JSONField(
        null=True,
        blank=True,
        help_text="The checkpoint's sentence-transformers config, when it has one with max_seq_length.",
    )
    tokenizer_max_length = models.JSONField(
        null=True,
        blank=True,
        help_text="tokenizer_config.json's model_max_length (null: none or unknown); may exceed 64 bits.",
    )
    checkpoint_size = models.BigIntegerField(
        null=True,
        blank=True,
        help_text="Bytes of the checkpoint's tensors (safetensors index total_size, or the single file's "
        "header); null: not known, the memory estimate counts the weights from config.json's shapes.",
    )
    checkpoint_dtypes = models.JSONField(
        null=True, blank=True, help_text="Bytes per safetensors dtype (from a header only)."
    )
    weights_basis = models.CharField(
        max_length=20,
        choices=WeightsBasis.choices,
        blank=True,
        help_text="Where the weights' size comes from; empty: not looked at yet.",
    )
    source = models.CharField(max_length=8, choices=Source.choices, blank=True)
    error = models.TextField(blank=True, help_text="Why the last fetch failed.")
    fetched_at = models.DateTimeField()
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["repo", "revision"]
        constraints = [models.UniqueConstraint(fields=["repo", "revision"], name="unique_model_config")]

    def __str__(self) -> str:
        return f"{self.repo}@{self.revision}" if self.revision else self.repo

    def weights(self) -> dict | None:
        """The checkpoint's weights as ``modelhub.Stored.weights`` reads them; None when not looked at."""
        if not self.weights_basis:
            return None
        data = {"size": self.checkpoint_size, "basis": self.weights_basis}
        if self.checkpoint_dtypes is not None:
            data["dtypes"] = self.checkpoint_dtypes
        return data


class NodeType(models.Model):
    """A named kind of node: its GPUs and how they are connected."""

    name = models.CharField(max_length=100, unique=True)
    gpu = models.CharField(max_length=100, help_text="GPU model, e.g. H100-80GB.")
    gpus_per_node = models.PositiveSmallIntegerField()
    gpu_memory_gb = models.PositiveIntegerField(help_text="Memory per GPU, in GB.")
    gpu_memory_gib = models.FloatField(
        null=True,
        blank=True,
        help_text="Memory per GPU as vLLM sees it (torch's total), in GiB: an 80 GB H100 is 79.19. "
        "Empty: the known value for the GPU named, else gpu_memory_gb.",
    )
    interconnect = models.CharField(max_length=50, blank=True, help_text="e.g. NVLink, PCIe, InfiniBand.")
    description = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=models.Q(gpus_per_node__gte=1), name="node_type_has_gpus")
        ]

    def __str__(self) -> str:
        return self.name

    def facts(self) -> dict:
        """The keys this node type gives the document's ``hardware`` map."""
        facts = {"gpu": self.gpu, "gpus_per_node": self.gpus_per_node, "gpu_memory_gb": self.gpu_memory_gb}
        if self.interconnect:
            facts["interconnect"] = self.interconnect
        if self.gpu_memory_gib:
            facts["gpu_memory_gib"] = self.gpu_memory_gib
        return facts
