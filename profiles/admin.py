from django.contrib import admin

from .models import Profile, ProfileRevision, Team, TeamMembership


class TeamMembershipInline(admin.TabularInline):
    model = TeamMembership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "created_at"]
    search_fields = ["slug", "name"]
    inlines = [TeamMembershipInline]


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["name", "team", "kind", "owner", "model_name", "vllm_release", "revision", "updated_at"]
    list_filter = ["kind", "team"]
    search_fields = ["name", "model_name", "description"]
    list_select_related = ["team", "owner", "vllm_release"]
    raw_id_fields = ["owner"]
    readonly_fields = ["revision", "created_at", "updated_at"]

    def has_add_permission(self, request):
        # Profiles are created through the validating API and pages, never unchecked.
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(ProfileRevision)
class ProfileRevisionAdmin(admin.ModelAdmin):
    list_display = ["profile", "revision", "author", "created_at"]
    list_select_related = ["profile__team", "author"]
    readonly_fields = ["profile", "revision", "data", "author", "created_at"]
