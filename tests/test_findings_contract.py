"""The findings contract is the same in the engine, the published OpenAPI schema and docs/findings.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from vllmcheck.engine.types import Finding, Verdict

DOC = Path(__file__).resolve().parents[1] / "docs" / "findings.md"
FINDING_KEYS = set(Finding(rule="r", severity="error", category="vllm", message="m").as_dict())
DOCUMENT_KEYS = set(Verdict(vllm_version="0.33.0", ruleset=1).as_dict())


def documented_fields(heading: str) -> set[str]:
    """The first column of the table under ``### heading`` in docs/findings.md."""
    section = DOC.read_text().split(f"### {heading}\n", 1)[1].split("\n#", 1)[0]
    return set(re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE))


def test_the_docs_describe_every_field_and_no_other():
    assert documented_fields("Top level") == DOCUMENT_KEYS
    assert documented_fields("A finding") == FINDING_KEYS


@pytest.mark.django_db
def test_the_openapi_schema_describes_every_field_and_no_other(user):
    client = APIClient()
    client.force_authenticate(user)
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schemas = response.json()["components"]["schemas"]
    assert set(schemas["FindingsDocument"]["properties"]) == DOCUMENT_KEYS
    assert set(schemas["Finding"]["properties"]) == FINDING_KEYS
