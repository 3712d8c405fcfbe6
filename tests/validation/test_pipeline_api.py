"""Rule-set drafts, publishing, impact, compare, record import; fleet; re-checks; waivers; alerts; metrics."""

import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from profiles.models import Recheck, TeamMembership, Verdict
from profiles.services import team_add_member
from profiles.services.rechecks import recheck_run_inline
from tests.conftest import SEED_COMMAND, SEED_MESSAGE_031
from tests.examples import EAGER_RULE
from validation.models import RuleSet

pytestmark = pytest.mark.django_db
SEED_RECORD = Path(__file__).resolve().parents[1] / "fixtures" / "error-record-seed.json"


def create_profile(api, name="teacher", command=SEED_COMMAND, kind="collection", version="0.32.0"):
    body = {"team": "ml-platform", "name": name, "kind": kind, "command": command, "vllm_version": version}
    response = api.post("/api/v1/profiles/", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_draft_edit_impact_publish_flow(staff_api, api, team):
    create_profile(api, "plain", command="vllm serve m", kind="serving")
    eager = create_profile(api, "eager", command="vllm serve m --enforce-eager", kind="serving")

    draft = staff_api.post("/api/v1/rulesets/", {}, format="json")
    assert draft.status_code == 201
    draft_id = draft.json()["id"]
    assert draft.json()["status"] == "draft" and draft.json()["is_current"] is False

    assert staff_api.post(f"/api/v1/rulesets/{draft_id}/rules/", EAGER_RULE, format="json").status_code == 200

    impact = staff_api.get(f"/api/v1/rulesets/{draft_id}/impact/").json()
    assert impact["total"] == 2 and impact["counts"]["would_become_invalid"] == 1
    assert impact["would_become_invalid"][0]["id"] == eager["id"]
    assert impact["would_become_invalid"][0]["appeared"] == [EAGER_RULE["message"]]
    assert Verdict.objects.get(profile_id=eager["id"]).state == "valid"  # a preview changes nothing

    current = RuleSet.objects.get(status="published").number
    compare = staff_api.get(f"/api/v1/rulesets/{draft_id}/compare/{current}/").json()
    assert (
        compare["added"] == ["org-no-enforce-eager"] and compare["removed"] == [] and compare["changed"] == []
    )

    published = staff_api.post(f"/api/v1/rulesets/{draft_id}/publish/")
    assert published.status_code == 202
    recheck_id = published.json()["recheck"]
    recheck_run_inline(recheck_id)
    recheck = staff_api.get(f"/api/v1/rechecks/{recheck_id}/").json()
    assert (recheck["state"], recheck["total"], recheck["done"], recheck["newly_invalid"]) == (
        "done",
        2,
        2,
        1,
    )
    assert recheck["started_at"] and recheck["finished_at"]
    assert api.get(f"/api/v1/profiles/{eager['id']}/").json()["state"] == "invalid"

    # Published rule sets are immutable; publishing again is refused and sends nothing.
    again = staff_api.post(
        f"/api/v1/rulesets/{draft_id}/rules/", {**EAGER_RULE, "severity": "warning"}, format="json"
    )
    assert again.status_code == 400 and "cannot change" in again.json()["detail"]
    assert staff_api.post(f"/api/v1/rulesets/{draft_id}/publish/").status_code == 400
    assert Recheck.objects.count() == 1


def test_cel_syntax_error_is_a_400_on_the_rule(staff_api):
    draft_id = staff_api.post("/api/v1/rulesets/", {}, format="json").json()["id"]
    response = staff_api.post(
        f"/api/v1/rulesets/{draft_id}/rules/",
        {**EAGER_RULE, "when": "args.enforce_eager &&& true"},
        format="json",
    )
    assert response.status_code == 400
    assert "org-no-enforce-eager" in response.json()["when"][0] and "1:" in response.json()["when"][0]


def test_only_staff_write_rule_sets(api):
    assert api.post("/api/v1/rulesets/", {}, format="json").status_code == 403
    assert api.get("/api/v1/rulesets/").status_code == 200


def test_imported_records_need_a_condition_before_publishing(staff_api):
    draft_id = staff_api.post("/api/v1/rulesets/", {}, format="json").json()["id"]
    record_line = json.dumps(json.loads(SEED_RECORD.read_text()))
    response = staff_api.post(
        f"/api/v1/rulesets/{draft_id}/import-records/", {"records": record_line}, format="json"
    )
    assert response.status_code == 201, response.json()
    rule = response.json()[0]
    assert rule["message"] == SEED_MESSAGE_031
    assert rule["when"] == "" and rule["enabled"] is False
    assert rule["source"].startswith("https://github.com/vllm-project/vllm/blob/c794754")
    assert rule["solutions"] and rule["tips"] and "speculative-decoding" in rule["tags"]
    assert "validationCode" not in json.dumps(rule) and "assert speculative_config" not in json.dumps(rule)

    # Enabling it without a condition blocks publishing, naming the rule.
    staff_api.post(f"/api/v1/rulesets/{draft_id}/rules/", {"id": rule["id"], "enabled": True}, format="json")
    refused = staff_api.post(f"/api/v1/rulesets/{draft_id}/publish/")
    assert refused.status_code == 400 and rule["id"] in refused.json()["rules"][0]

    staff_api.post(
        f"/api/v1/rulesets/{draft_id}/rules/",
        {
            "id": rule["id"],
            "when": "has(args.return_sampling_mask) && has(args.speculative_config)",
            "versions": "<0.32",
        },
        format="json",
    )
    assert staff_api.post(f"/api/v1/rulesets/{draft_id}/publish/").status_code == 202

    bad = staff_api.post("/api/v1/rulesets/", {}, format="json").json()["id"]
    response = staff_api.post(
        f"/api/v1/rulesets/{bad}/import-records/", {"records": "\n{not json"}, format="json"
    )
    assert response.status_code == 400 and "line 2" in response.json()["records"][0]


def test_fleet_put_by_staff_returns_202_with_recheck(staff_api, api, team):
    staff_api.put("/api/v1/fleet/", {"vllm_version": "0.32.0"}, format="json")
    create_profile(api, version="")
    assert api.put("/api/v1/fleet/", {"vllm_version": "0.31.0"}, format="json").status_code == 403
    response = staff_api.put("/api/v1/fleet/", {"vllm_version": "0.31.0"}, format="json")
    assert response.status_code == 202
    recheck_run_inline(response.json()["recheck"])
    assert api.get("/api/v1/fleet/").json()["vllm_version"] == "0.31.0"
    profile = api.get("/api/v1/profiles/").json()["results"][0]
    assert profile["state"] == "invalid"
    assert staff_api.put("/api/v1/fleet/", {"vllm_version": "7.7.7"}, format="json").status_code == 400


def test_upgrade_preview_changes_nothing(staff_api, api, team):
    assert staff_api.put("/api/v1/fleet/", {"vllm_version": "0.32.0"}, format="json").status_code == 202
    profile = create_profile(api, version="")
    pinned = create_profile(api, "pinned", version="0.32.0")
    preview = api.get("/api/v1/releases/0.31.0/preview/").json()
    assert preview["release"] == "0.31.0" and preview["counts"]["would_become_invalid"] == 1
    listed = preview["would_become_invalid"][0]
    assert listed["id"] == profile["id"] and SEED_MESSAGE_031 in listed["appeared"]
    # Pinned to another release: a fleet change leaves it alone, and the preview says so.
    assert preview["counts"]["not_affected"] == 1 and preview["not_affected"][0]["id"] == pinned["id"]
    assert api.get(f"/api/v1/profiles/{pinned['id']}/").json()["vllm_version"] == "0.32.0"
    assert api.get("/api/v1/releases/0.0.1/preview/").status_code == 400


def test_waivers_api_need_a_second_person(staff_api, api, team, staff, outsider):
    profile = create_profile(api, "eager-ok", command="vllm serve m", kind="serving")
    url = f"/api/v1/profiles/{profile['id']}/waivers/"
    body = {
        "rule_id": "policy-x",
        "reason": "accepted risk",
        "expires_at": (timezone.now() + timedelta(days=7)).isoformat(),
    }
    # a viewer of the team may read but not request
    team_add_member(actor=staff, team=team, user=outsider, role=TeamMembership.Role.VIEWER)
    viewer = APIClient()
    viewer.force_authenticate(outsider)
    assert viewer.post(url, body, format="json").status_code == 403
    # an editor requests: pending, waives nothing
    created = api.post(url, body, format="json")
    assert created.status_code == 201, created.json()
    waiver = created.json()
    assert waiver["requested_by"] == "ada" and waiver["granted_by"] is None
    assert waiver["pending"] is True and waiver["active"] is False
    # the requester cannot approve it; a team admin (staff here) can
    assert api.post(f"{url}{waiver['id']}/approve/").status_code == 403
    approved = staff_api.post(f"{url}{waiver['id']}/approve/")
    assert (
        approved.status_code == 200 and approved.json()["granted_by"] == "sam" and approved.json()["active"]
    )
    assert staff_api.post(f"{url}{waiver['id']}/approve/").status_code == 409  # not pending any more
    listed = viewer.get(url).json()["results"]
    assert [w["rule_id"] for w in listed] == ["policy-x"]
    assert api.post(f"{url}{waiver['id']}/revoke/").status_code == 403  # an editor cannot end an approved one
    revoked = staff_api.post(f"{url}{waiver['id']}/revoke/")
    assert revoked.status_code == 200 and revoked.json()["active"] is False
    past = {**body, "expires_at": (timezone.now() - timedelta(days=1)).isoformat()}
    assert api.post(url, past, format="json").status_code == 400


def test_alert_preferences(api):
    assert api.get("/api/v1/me/alert-preferences/").json() == {"email_alerts": True}
    assert api.put("/api/v1/me/alert-preferences/", {"email_alerts": False}, format="json").json() == {
        "email_alerts": False
    }
    assert api.get("/api/v1/me/alert-preferences/").json() == {"email_alerts": False}
    assert api.get("/api/v1/alerts/").json()["count"] == 0


def test_metrics(client, api, team):
    create_profile(api, "plain", command="vllm serve m", kind="serving")
    body = client.get("/metrics").content.decode()
    assert 'vllm_profiles_profiles{state="valid"} 1.0' in body
    assert 'vllm_profiles_alerts_total{state="sent"} 0.0' in body
    assert "vllm_profiles_queue_depth" in body
