from django.contrib import admin

from accounts.admin import ReadOnlyAdmin

from .models import GitSource


@admin.register(GitSource)
class GitSourceAdmin(ReadOnlyAdmin):
    """Read-only: sources are created through the API, which checks the team and the credentials variable."""

    list_display = ("name", "team", "url", "branch", "last_commit", "last_synced_at")
