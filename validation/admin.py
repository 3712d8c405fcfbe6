from django.contrib import admin

from .models import (
    Alert,
    AlertPreference,
    FleetSettings,
    Recheck,
    Rule,
    RuleSet,
    Verdict,
    VerdictChange,
    VllmRelease,
    Waiver,
)


@admin.register(VllmRelease)
class VllmReleaseAdmin(admin.ModelAdmin):
    list_display = ["version", "catalog_sha256", "imported_at"]
    readonly_fields = ["major", "minor", "patch", "catalog_sha256", "source", "imported_at"]


@admin.register(FleetSettings)
class FleetSettingsAdmin(admin.ModelAdmin):
    list_display = ["default_release", "updated_by", "updated_at"]

    def has_change_permission(self, request, obj=None):
        return False  # changing the fleet release starts a re-check: use the API or the releases page


class RuleInline(admin.StackedInline):
    model = Rule
    extra = 0
    fields = ["rule_id", "category", "severity", "message", "when", "versions", "kinds", "fields", "enabled"]

    def has_change_permission(self, request, obj=None):
        return obj is None or obj.status == RuleSet.Status.DRAFT

    has_add_permission = has_change_permission
    has_delete_permission = has_change_permission


@admin.register(RuleSet)
class RuleSetAdmin(admin.ModelAdmin):
    list_display = ["number", "status", "notes", "published_at"]
    inlines = [RuleInline]
    readonly_fields = ["status", "published_at", "published_by", "created_by"]


@admin.register(Rule)
class RuleAdmin(admin.ModelAdmin):
    list_display = ["rule_id", "ruleset", "category", "severity", "versions", "enabled"]
    list_filter = ["ruleset", "category", "severity"]
    search_fields = ["rule_id", "message"]


@admin.register(Verdict)
class VerdictAdmin(admin.ModelAdmin):
    list_display = ["profile", "state", "error_count", "warning_count", "ruleset", "release", "computed_at"]
    list_filter = ["state"]
    list_select_related = ["profile__team", "ruleset", "release"]
    readonly_fields = [f.name for f in Verdict._meta.fields]


@admin.register(VerdictChange)
class VerdictChangeAdmin(admin.ModelAdmin):
    list_display = ["profile", "from_state", "to_state", "cause", "cause_detail", "created_at"]
    list_filter = ["cause", "to_state"]
    list_select_related = ["profile__team"]


@admin.register(Waiver)
class WaiverAdmin(admin.ModelAdmin):
    list_display = ["profile", "rule_id", "granted_by", "expires_at", "revoked_at"]
    raw_id_fields = ["profile"]


@admin.register(Recheck)
class RecheckAdmin(admin.ModelAdmin):
    list_display = ["id", "cause", "cause_detail", "state", "total", "done", "newly_invalid", "created_at"]


@admin.register(Alert)
class AlertAdmin(admin.ModelAdmin):
    list_display = ["recipient", "profile", "state", "attempts", "created_at", "sent_at"]
    list_filter = ["state"]


admin.site.register(AlertPreference)
