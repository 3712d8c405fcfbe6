"""Dry-run validation, releases, rule sets, fleet, teams and the OpenAPI schema."""

import pytest
from rest_framework.test import APIClient

from profiles.models import Team, TeamMembership
from tests.conftest import SEED_COMMAND, SEED_MESSAGE_031
from validation.services import KNOWN_RELEASES

pytestmark = pytest.mark.django_db


def test_validate_returns_findings_document_and_stores_nothing(api):
    response = api.post(
        "/api/v1/validate/",
        {"kind": "collection", "vllm_version": "0.31.0", "command": SEED_COMMAND},
        format="json",
    )
    assert response.status_code == 200
    document = response.json()
    assert set(document) == {"valid", "vllm_version", "ruleset", "findings", "found"}
    assert document["valid"] is False
    assert SEED_MESSAGE_031 in [f["message"] for f in document["findings"]]
    finding = next(f for f in document["findings"] if f["message"] == SEED_MESSAGE_031)
    assert finding["category"] == "vllm" and finding["severity"] == "error"
    assert finding["source"].startswith("https://github.com/vllm-project/vllm/blob/")
    assert "speculative_config" in finding["fields"]
    accepted = api.post(
        "/api/v1/validate/",
        {"kind": "collection", "vllm_version": "0.32.0", "command": SEED_COMMAND},
        format="json",
    )
    assert accepted.status_code == 200 and accepted.json()["valid"] is True


def test_validate_with_engine_args(api):
    body = {
        "kind": "collection",
        "vllm_version": "0.31.0",
        "model": "m",
        "engine_args": {"return_sampling_mask": True, "logprobs_mode": "processed_logprobs"},
        "env": {"VLLM_USE_V2_MODEL_RUNNER": "1"},
    }
    document = api.post("/api/v1/validate/", body, format="json").json()
    assert document["valid"] is True, document


@pytest.mark.parametrize(
    "body",
    [
        {"vllm_version": "0.31.0", "command": "vllm serve m"},
        {"kind": "collection", "vllm_version": "0.31.0"},
        {"kind": "collection", "vllm_version": "0.31.0", "command": "vllm serve m", "config": "model: m"},
        {"kind": "batch", "vllm_version": "0.31.0", "command": "vllm serve m"},
        {"kind": "serving", "vllm_version": "9.9.9", "command": "vllm serve m"},
        {"kind": "serving", "vllm_version": "0.31.0", "command": "vllm serve m --max-model-len '8192"},
    ],
)
def test_validate_malformed_request_is_400(api, body):
    response = api.post("/api/v1/validate/", body, format="json")
    assert response.status_code == 400, response.json()


def test_releases_list_knows_020_to_033_and_marks_the_fleet_default(api):
    releases = api.get("/api/v1/releases/").json()
    versions = {r["version"] for r in releases}
    assert set(KNOWN_RELEASES) <= versions
    assert sum(r["is_fleet_default"] for r in releases) == 1
    assert api.get("/api/v1/releases/0.31.0/").json()["version"] == "0.31.0"


def test_rulesets_are_readable_with_their_rules(api):
    rulesets = api.get("/api/v1/rulesets/").json()["results"]
    assert rulesets[0]["status"] == "published" and rulesets[0]["is_current"] is True
    detail = api.get(f"/api/v1/rulesets/{rulesets[0]['id']}/").json()
    ids = {r["id"] for r in detail["rules"]}
    assert len(ids) == rulesets[0]["rule_count"] > 10
    seed_rule = next(r for r in detail["rules"] if r["message"] == SEED_MESSAGE_031)
    assert seed_rule["versions"] and seed_rule["when"]


def test_fleet_default_is_readable(api):
    assert api.get("/api/v1/fleet/").json()["vllm_version"] in KNOWN_RELEASES


def test_staff_create_teams_and_become_admin(staff_api, api, staff):
    response = staff_api.post("/api/v1/teams/", {"slug": "research", "name": "Research"}, format="json")
    assert response.status_code == 201, response.json()
    membership = TeamMembership.objects.get(team__slug="research")
    assert membership.user == staff and membership.role == "admin"
    assert response.json()["members"] == [
        {"username": "sam", "role": "admin", "watch": True, "via_sso": False}
    ]
    assert api.post("/api/v1/teams/", {"slug": "mine", "name": "Mine"}, format="json").status_code == 403
    assert not Team.objects.filter(slug="mine").exists()


def test_anonymous_requests_are_refused_with_the_token_challenge():
    response = APIClient().get("/api/v1/profiles/")
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"


def test_openapi_schema_and_docs_are_served(api):
    schema = api.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/v1/profiles/" in schema.content and b"/api/v1/validate/" in schema.content
    docs = api.get("/api/docs/")
    assert docs.status_code == 200
    assert b"cdn" not in docs.content.lower()


def test_openapi_schema_describes_the_api_token_header(api):
    """The token scheme's extension is registered with the schema class (config.schema), not at start-up:
    the schema still tells clients to send `Authorization: Token ...`."""
    schemes = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()["components"][
        "securitySchemes"
    ]
    assert schemes["tokenAuth"]["type"] == "apiKey"
    assert schemes["tokenAuth"]["in"] == "header" and schemes["tokenAuth"]["name"] == "Authorization"
    assert "vpt_" in schemes["tokenAuth"]["description"]
