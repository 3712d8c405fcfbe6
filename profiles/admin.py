"""Read-only: profiles, teams and memberships change through the services (pages, API), which check
permissions, validate, re-check and write the audit log."""

from django.contrib import admin

from accounts.admin import ReadOnlyAdmin

from .models import Profile, ProfileRevision, Team, TeamMembership


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
