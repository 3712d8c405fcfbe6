"""The OpenAPI schema is the contract: every operation lists the errors it can answer, with the bodies it
sends, and the conditional headers of the resources with an ``ETag`` (validation.api.http). schemathesis
checks the live API against it (tests/api/test_schema_contract.py)."""

from __future__ import annotations

from drf_spectacular import openapi
from drf_spectacular.plumbing import ResolvedComponent

# The API-token scheme's extension registers itself when imported: here, with the schema class that every
# view's schema is (REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]), rather than at start-up (accounts.apps).
import accounts.schema  # noqa: F401

ERROR_SCHEMA = {
    "type": "object",
    "description": "What went wrong, in words; `field` names the input it is about, when there is one.",
    "properties": {
        "detail": {"type": "string"},
        "field": {"type": "string", "nullable": True},
    },
    "required": ["detail"],
}
VALIDATION_ERROR_SCHEMA = {
    "type": "object",
    "description": "The input refused: each key names a field (`non_field_errors`: the whole input) with "
    "its messages (a nested object for a nested field); `detail` when the body itself cannot be read.",
    "properties": {"detail": {"type": "string"}},
    "additionalProperties": {
        "anyOf": [{"type": "array", "items": {}}, {"type": "object", "additionalProperties": {}}]
    },
}
ERROR_DESCRIPTIONS = {
    "400": "The input is refused (see the body)",
    "401": "Not signed in: send `Authorization: Token <key>` or a session cookie",
    "403": "Signed in, but not allowed to do this",
    "404": "No such resource (or not one you may see)",
    "409": "Conflicts with the resource as it is now (an edit of an older revision)",
    "412": "`If-Match` names an ETag that is no longer the resource's: GET it again",
    "413": "The request body is larger than the server accepts",
    "415": "The request body is not `application/json`",
    "429": "Too many requests (API_THROTTLE_USER per token or user, API_THROTTLE_ANON per address): wait "
    "`Retry-After` seconds and retry",
}


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's schema, plus the error answers of each operation and its conditional headers.

    Views list the actions that carry an ``ETag`` in ``conditional_actions`` (an APIView: its methods)."""

    def get_serializer_name(self, serializer, direction):
        name = super().get_serializer_name(serializer, direction)
        if direction == "request" and name.endswith("RequestSerializer"):
            # COMPONENT_SPLIT_REQUEST appends "Request" itself: no ValidateRequestRequest.
            name = name[: -len("RequestSerializer")] + "Serializer"
        return name

    def get_paginated_name(self, serializer_name):
        base = serializer_name.removesuffix("List")
        return f"Paginated{base}List"

    def _component(self, name: str, schema: dict) -> dict:
        component = ResolvedComponent(name=name, type=ResolvedComponent.SCHEMA, object=name, schema=schema)
        self.registry.register_on_missing(component)
        return component.ref

    def _is_conditional(self) -> bool:
        actions = getattr(self.view, "conditional_actions", ())
        key = getattr(self.view, "action", None) or self.method.lower()
        return key in actions

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        responses = operation["responses"]
        error = self._component("Error", ERROR_SCHEMA)
        invalid = self._component("ValidationError", VALIDATION_ERROR_SCHEMA)
        params = operation.get("parameters", [])
        has_body = "requestBody" in operation
        writes = self.method in ("POST", "PUT", "PATCH", "DELETE")

        def add(code: str, ref: dict) -> None:
            body = {"content": {"application/json": {"schema": ref}}, "description": ERROR_DESCRIPTIONS[code]}
            if code not in responses:
                responses[code] = body
                return
            content = responses[code].setdefault("content", {}).setdefault("application/json", {})
            existing = content.get("schema")
            if existing and existing != ref:
                content["schema"] = {"anyOf": [existing, ref]}
            elif not existing:
                content["schema"] = ref

        if has_body or any(p["in"] == "query" for p in params) or writes:
            add("400", invalid)
        add("401", error)
        add("403", error)
        if any(p["in"] == "path" for p in params) or path.rstrip("/").endswith("/preview"):
            add("404", error)
        if writes:
            add("409", error)
        if has_body:
            add("413", error)
            add("415", error)
        add("429", error)
        responses["429"].setdefault("headers", {})["Retry-After"] = {
            "schema": {"type": "integer"},
            "description": "Seconds to wait before the next request is accepted",
        }

        if self._is_conditional():
            etag = {"ETag": {"schema": {"type": "string"}, "description": "The representation's validator"}}
            for code, response in responses.items():
                if code.startswith("2") and "content" in response:
                    response.setdefault("headers", {}).update(etag)
            if self.method == "GET":
                header, note = "If-None-Match", "An ETag you hold: 304 (no body) when it is still current"
                responses["304"] = {"description": "Not modified: your ETag is current", "headers": etag}
            else:
                header, note = "If-Match", "The ETag you read: 412 when the resource changed since"
                add("412", error)
            operation.setdefault("parameters", []).append(
                {"in": "header", "name": header, "schema": {"type": "string"}, "description": note}
            )
        return operation
