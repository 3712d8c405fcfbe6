"""The admin reads tokens and the audit log; it never writes them (tokens are made and revoked by their
owner on the tokens page or the API, or by `manage.py create_api_token`; the audit log is never edited)."""

from django.contrib import admin

from .models import ApiToken, AuditEvent

try:  # DRF's clear-text tokens are no longer used (accounts.ApiToken, hashed); keep them out of the admin
    from rest_framework.authtoken.models import TokenProxy

    admin.site.unregister(TokenProxy)
except (ImportError, admin.sites.NotRegistered):
    pass


class ReadOnlyAdmin(admin.ModelAdmin):
    """For every model whose writes have a service (permissions, validation, re-checks, audit): the admin
    shows it and never writes it behind the services' back. Writes happen on the pages and the API."""

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    list_display = ["user", "name", "prefix", "read_only", "expires_at", "last_used_at", "revoked_at"]
    list_filter = ["read_only"]
    search_fields = ["user__username", "name", "prefix"]
    exclude = ["digest"]


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["at", "actor_name", "via", "address", "action", "object_repr", "team_slug"]
    list_filter = ["via", "object_type"]
    search_fields = ["actor_name", "action", "object_repr", "team_slug"]
    date_hierarchy = "at"
