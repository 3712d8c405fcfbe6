from django.contrib import admin

from .models import ModelConfig, NodeType


@admin.register(NodeType)
class NodeTypeAdmin(admin.ModelAdmin):
    list_display = ["name", "gpu", "gpus_per_node", "gpu_memory_gb", "interconnect"]


@admin.register(ModelConfig)
class ModelConfigAdmin(admin.ModelAdmin):
    list_display = ["repo", "revision", "source", "fetched_at", "error"]
    search_fields = ["repo"]
    readonly_fields = ["fetched_at", "commit"]
