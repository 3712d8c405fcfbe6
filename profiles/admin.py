"""Read-only: profiles, teams and memberships change through the services (pages, API), which check
permissions, validate, re-check and write the audit log; waivers are approved or revoked by the admin's
actions, which call the waiver services (permission, second person, re-check, audit)."""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied

from accounts import permissions
from accounts.admin import ReadOnlyAdmin
from validation.errors import DomainError

from .models import (
    Alert,
    AlertPreference,
    Profile,
    ProfileRevision,
    Recheck,
    Team,
    TeamMembership,
    Verdict,
    VerdictChange,
    Waiver,
)
from .services import waivers as waiver_services


class TeamMembershipInline(admin.TabularInline):
    model = TeamMembership
    extra = 0
    fields = ["user", "role", "watch"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Team)
class TeamAdmin(ReadOnlyAdmin):
    list_display = ["slug", "name", "created_at"]
    search_fields = ["slug", "name"]
    inlines = [TeamMembershipInline]


@admin.register(Profile)
class ProfileAdmin(ReadOnlyAdmin):
    list_display = ["name", "team", "kind", "owner", "model_name", "vllm_release", "revision", "updated_at"]
    list_filter = ["kind", "team"]
    search_fields = ["name", "model_name", "description"]
    list_select_related = ["team", "owner", "vllm_release"]


@admin.register(ProfileRevision)
class ProfileRevisionAdmin(ReadOnlyAdmin):
    list_display = ["profile", "revision", "author", "created_at"]
    list_select_related = ["profile__team", "author"]


@admin.register(Verdict)
class VerdictAdmin(ReadOnlyAdmin):
    list_display = ["profile", "state", "error_count", "warning_count", "ruleset", "release", "computed_at"]
    list_filter = ["state"]
    list_select_related = ["profile__team", "checked__ruleset", "checked__release"]


@admin.register(VerdictChange)
class VerdictChangeAdmin(ReadOnlyAdmin):
    list_display = ["profile", "from_state", "to_state", "cause", "cause_detail", "created_at"]
    list_filter = ["cause", "to_state"]
    list_select_related = ["profile__team"]


def _each_waiver(modeladmin, request, queryset, service, done: str):
    for waiver in queryset.select_related("profile__team"):
        try:
            service(actor=request.user, waiver=waiver)
        except DomainError as exc:
            modeladmin.message_user(request, f"{waiver}: {exc.message}", messages.ERROR)
        else:
            modeladmin.message_user(request, f"{waiver}: {done}", messages.SUCCESS)


@admin.action(description="Approve the selected waivers (a second person: not their requester)")
def approve_waivers(modeladmin, request, queryset):
    _each_waiver(
        modeladmin, request, queryset, waiver_services.waiver_approve, "approved; profile re-checked"
    )


@admin.action(description="Revoke the selected waivers")
def revoke_waivers(modeladmin, request, queryset):
    _each_waiver(modeladmin, request, queryset, waiver_services.waiver_revoke, "revoked")


@admin.register(Waiver)
class WaiverAdmin(ReadOnlyAdmin):
    list_display = ["profile", "rule_id", "requested_by", "granted_by", "expires_at", "revoked_at"]
    list_select_related = ["profile__team", "requested_by", "granted_by"]
    actions = [approve_waivers, revoke_waivers]

    def has_change_permission(self, request, obj=None):
        # The change list's actions need it; the change form stays read-only (every field is).
        return permissions.is_staff(request.user)

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        raise PermissionDenied("waivers change only through the approve and revoke actions")


@admin.register(Recheck)
class RecheckAdmin(ReadOnlyAdmin):
    list_display = ["id", "cause", "cause_detail", "state", "total", "done", "newly_invalid", "created_at"]


@admin.register(Alert)
class AlertAdmin(ReadOnlyAdmin):
    list_display = ["recipient", "profile", "state", "attempts", "created_at", "sent_at"]
    list_filter = ["state"]


@admin.register(AlertPreference)
class AlertPreferenceAdmin(ReadOnlyAdmin):
    list_display = ["user", "email_alerts"]
