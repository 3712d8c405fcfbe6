"""Node types are saved through ``hub.services.node_type_save`` (staff, audit, re-check of the profiles on
them); stored model configs are read-only here (refresh and upload have their pages and API)."""

from django.contrib import admin

from accounts.admin import ReadOnlyAdmin

from . import services
from .models import ModelConfig, NodeType


@admin.register(NodeType)
class NodeTypeAdmin(admin.ModelAdmin):
    list_display = ["name", "gpu", "gpus_per_node", "gpu_memory_gb", "interconnect"]

    def save_model(self, request, obj, form, change):
        before = None
        if change:
            before = {name: form.initial.get(name) for name in services.NODE_TYPE_FIELDS}
        services.node_type_save(actor=request.user, node_type=obj, before=before)

    def has_delete_permission(self, request, obj=None):
        return False  # profiles refer to node types (PROTECT); removing one is a data migration


@admin.register(ModelConfig)
class ModelConfigAdmin(ReadOnlyAdmin):
    list_display = ["repo", "revision", "source", "fetched_at", "error"]
    search_fields = ["repo"]
