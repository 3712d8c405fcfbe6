"""Read-only, or through the services: rule sets are edited on their pages and the API (which compile the CEL
and touch ``updated_at`` so workers reload them), the fleet and releases change through their services
(which re-check). Verdicts, waivers, re-checks and alerts are the profiles app's (profiles.admin)."""

from django.contrib import admin

from accounts.admin import ReadOnlyAdmin

from .models import FleetSettings, Rule, RuleSet, VllmRelease


@admin.register(VllmRelease)
class VllmReleaseAdmin(ReadOnlyAdmin):
    list_display = ["version", "catalog_sha256", "imported_at"]


@admin.register(FleetSettings)
class FleetSettingsAdmin(ReadOnlyAdmin):
    list_display = ["default_release", "updated_by", "updated_at"]


class RuleInline(admin.StackedInline):
    model = Rule
    extra = 0
    fields = ["rule_id", "category", "severity", "message", "when", "versions", "kinds", "fields", "enabled"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(RuleSet)
class RuleSetAdmin(ReadOnlyAdmin):
    list_display = ["number", "status", "notes", "published_at"]
    inlines = [RuleInline]


@admin.register(Rule)
class RuleAdmin(ReadOnlyAdmin):
    list_display = ["rule_id", "ruleset", "category", "severity", "versions", "enabled"]
    list_filter = ["ruleset", "category", "severity"]
    search_fields = ["rule_id", "message"]
