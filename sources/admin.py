from django.contrib import admin

from .models import GitSource


@admin.register(GitSource)
class GitSourceAdmin(admin.ModelAdmin):
    """Read-only: sources are created through the API, which checks the team and the credentials variable."""

    list_display = ("name", "team", "url", "branch", "last_commit", "last_synced_at")
    readonly_fields = [f.name for f in GitSource._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
