"""Every page and the main API calls, on whatever database the run uses.

`make test` runs this module a second time on the embedded defaults (SQLite, file-system broker), so a query
that only PostgreSQL understands cannot break the set-up that `make run` starts.
"""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.services import token_create
from profiles.models import Recheck
from tests.conftest import SEED_COMMAND
from validation.models import RuleSet

pytestmark = pytest.mark.django_db


def test_every_page_renders_and_the_api_works(staff, team):
    api = APIClient()  # as automation calls it: by API token (its query also reads the reference stamp)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token_create(actor=None, user=staff, name='smoke')[1]}")
    api.put("/api/v1/fleet/", {"vllm_version": "0.32.0"}, format="json")
    body = {
        "team": team.slug,
        "name": "teacher",
        "kind": "collection",
        "command": SEED_COMMAND,
        "vllm_version": "",
    }
    created = api.post("/api/v1/profiles/", body, format="json")
    assert created.status_code == 201, created.json()
    pk = created.json()["id"]
    invalid = api.post("/api/v1/profiles/", {**body, "name": "old", "vllm_version": "0.31.0"}, format="json")
    assert invalid.status_code == 400 and invalid.json()["valid"] is False
    rule_id = api.post(
        "/api/v1/validate/",
        {"kind": "collection", "vllm_version": "0.31.0", "command": SEED_COMMAND},
        format="json",
    ).json()["findings"][0]["rule"]
    draft = api.post("/api/v1/rulesets/", {}, format="json").json()["number"]
    for url in (
        "/api/v1/profiles/?state=warning&search=teacher&release=0.32.0",
        f"/api/v1/profiles/{pk}/history/",
        f"/api/v1/profiles/{pk}/export/?format=yaml",
        "/api/v1/releases/",
        "/api/v1/releases/0.31.0/preview/",
        "/api/v1/releases/0.31.0/diff/0.32.0/",
        "/api/v1/releases/0.32.0/coverage/",
        "/api/v1/rulesets/",
        f"/api/v1/rulesets/{RuleSet.objects.get(number=draft).pk}/impact/",
        "/api/v1/alerts/",
        "/api/schema/",
        "/metrics",
    ):
        assert api.get(url).status_code == 200, url

    browser = Client()
    browser.force_login(staff)
    current = RuleSet.objects.filter(status="published").order_by("-number").first().number
    for url in (
        "/",
        f"/?state=warning&q=teach&rule={rule_id}&sort=-errors",
        "/profiles/new/",
        "/profiles/states/?days=90",
        f"/profiles/{pk}/",
        f"/profiles/{pk}/edit/",
        f"/profiles/{pk}/split/",
        "/rulesets/",
        f"/rulesets/{current}/",
        f"/rulesets/{draft}/",
        f"/rulesets/{draft}/impact/",
        f"/rulesets/compare/?old={current}&new={draft}",
        "/releases/",
        "/releases/0.31.0/preview/",
        "/releases/0.32.0/coverage/",
        "/releases/diff/?old=0.31.0&new=0.32.0",
        "/alerts/",
    ):
        response = browser.get(url)
        assert response.status_code == 200, (url, response.status_code)

    # Publishing enqueues on the run's broker; moving the fleet too; both are recorded.
    assert api.post(f"/api/v1/rulesets/{RuleSet.objects.get(number=draft).pk}/publish/").status_code == 202
    assert api.put("/api/v1/fleet/", {"vllm_version": "0.31.0"}, format="json").status_code == 202
    assert Recheck.objects.count() >= 2

    # A worker's run of the fleet's re-check (fan-out and batches, as `make run`'s worker runs them): the
    # profile that follows the fleet is refused on 0.31.0, in vLLM's words.
    from profiles.models import Profile
    from profiles.services.rechecks import recheck_run_inline

    fleet_move = Recheck.objects.order_by("-pk").first()
    recheck_run_inline(fleet_move.pk)
    fleet_move.refresh_from_db()
    assert fleet_move.state == "done" and fleet_move.newly_invalid >= 1
    assert Profile.objects.get(pk=pk).state == "invalid"
    assert api.get(f"/api/v1/profiles/{pk}/").json()["state"] == "invalid"
