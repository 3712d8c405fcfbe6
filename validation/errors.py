"""Domain errors: a user caused them and can fix them; the API turns them into 400s naming the field.

Below services and selectors (both raise them), beside the models.
"""

from __future__ import annotations

from accounts.errors import DomainError

from .models import VllmRelease

__all__ = ["DomainError", "UnknownRelease"]


class UnknownRelease(DomainError):
    def __init__(self, version: str):
        known = ", ".join(r.version for r in VllmRelease.objects.order_by("major", "minor", "patch"))
        super().__init__(
            f"unknown vLLM release {version!r}; known releases: {known}", field="vllm_version", code="unknown"
        )
