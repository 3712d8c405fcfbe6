"""How the OpenAPI schema describes the API-token authentication (drf-spectacular extension)."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": (
                "An API token made on /me/tokens/ or POST /api/v1/me/tokens/, sent as `Token vpt_...` "
                "(or `Bearer vpt_...`). A read-only token may read and dry-run, nothing else."
            ),
        }
