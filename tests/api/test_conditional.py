"""Conditional requests (RFC 9110): every resource that can be changed has an ETag; If-None-Match on a read
gives 304 while it is current; If-Match on a write gives 412 once someone else changed it, and nothing of the
stale write is applied. The body's `revision` (409) still works for clients that send it."""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.request

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from profiles.models import Profile, Team
from tests.conftest import SEED_COMMAND
from tests.examples import EAGER_RULE

EDIT = {"engine_args": {"max_model_len": 4096}}


def create_profile(client, name="llama") -> dict:
    response = client.post(
        "/api/v1/profiles/",
        {
            "team": "ml-platform",
            "name": name,
            "kind": "serving",
            "vllm_version": "0.32.0",
            "command": SEED_COMMAND,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()


def _http(method, url, key, body=None, headers=()):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Authorization", f"Token {key}")
    request.add_header("Content-Type", "application/json")
    for name, value in headers:
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, dict(response.headers), json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read() or b"null")


@pytest.mark.django_db(transaction=True)
def test_two_writes_with_one_etag_over_http_200_then_412_nothing_lost(live_server, team, user):
    client = APIClient()
    client.force_authenticate(user)
    profile = create_profile(client)
    out = io.StringIO()
    call_command("create_api_token", user.username, stdout=out)
    key = out.getvalue().strip().split()[-1]
    url = f"{live_server.url}/api/v1/profiles/{profile['id']}/"

    code, headers, body = _http("GET", url, key)
    assert code == 200 and headers["ETag"].startswith('"')
    etag = headers["ETag"]

    first = _http("PATCH", url, key, {"engine_args": {"max_model_len": 4096}}, [("If-Match", etag)])
    assert first[0] == 200, first
    assert first[1]["ETag"] != etag
    second = _http("PATCH", url, key, {"engine_args": {"max_model_len": 2048}}, [("If-Match", etag)])
    assert second[0] == 412, second
    assert "changed since you read it" in second[2]["detail"]

    stored = Profile.objects.get(pk=profile["id"])
    assert stored.engine_args["max_model_len"] == 4096  # the first write kept, the stale one not applied
    assert stored.revision == body["revision"] + 1
    # the ETag the first write returned is the current one: a write with it goes through
    third = _http(
        "PATCH", url, key, {"engine_args": {"max_model_len": 2048}}, [("If-Match", first[1]["ETag"])]
    )
    assert third[0] == 200 and Profile.objects.get(pk=profile["id"]).engine_args["max_model_len"] == 2048


@pytest.mark.django_db
def test_profile_read_304_while_current_then_200_after_a_change(api, team):
    profile = create_profile(api)
    url = f"/api/v1/profiles/{profile['id']}/"
    read = api.get(url)
    etag = read["ETag"]
    not_modified = api.get(url, HTTP_IF_NONE_MATCH=etag)
    assert not_modified.status_code == 304 and not_modified["ETag"] == etag and not not_modified.content
    api.patch(url, EDIT, format="json")
    changed = api.get(url, HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag
    assert changed.json()["engine_args"]["max_model_len"] == 4096


@pytest.mark.django_db
def test_put_and_delete_honour_if_match(api, team):
    profile = create_profile(api)
    url = f"/api/v1/profiles/{profile['id']}/"
    etag = api.get(url)["ETag"]
    api.patch(url, EDIT, format="json")
    put = api.put(url, {"command": SEED_COMMAND}, format="json", HTTP_IF_MATCH=etag)
    assert put.status_code == 412
    assert Profile.objects.get(pk=profile["id"]).engine_args["max_model_len"] == 4096
    assert api.delete(url, HTTP_IF_MATCH=etag).status_code == 412
    assert Profile.objects.filter(pk=profile["id"]).exists()
    assert api.delete(url, HTTP_IF_MATCH=api.get(url)["ETag"]).status_code == 204
    assert not Profile.objects.filter(pk=profile["id"]).exists()


@pytest.mark.django_db
def test_body_revision_still_gives_409(api, team):
    profile = create_profile(api)
    url = f"/api/v1/profiles/{profile['id']}/"
    assert api.patch(url, {**EDIT, "revision": profile["revision"]}, format="json").status_code == 200
    stale = api.patch(
        url, {"engine_args": {"max_model_len": 1024}, "revision": profile["revision"]}, format="json"
    )
    assert stale.status_code == 409 and stale.json()["field"] == "revision"
    assert Profile.objects.get(pk=profile["id"]).engine_args["max_model_len"] == 4096


@pytest.mark.django_db
def test_team_fleet_ruleset_and_waivers_carry_etags(api, staff_api, team):
    # team
    team_url = "/api/v1/teams/ml-platform/"
    etag = staff_api.get(team_url)["ETag"]
    assert staff_api.get(team_url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    staff_api.put(f"{team_url}default-node-type/", {"node_type": ""}, format="json")
    added = staff_api.post(f"{team_url}members/", {"username": "sam", "role": "admin"}, format="json")
    assert added.status_code == 200
    stale = staff_api.post(
        f"{team_url}members/",
        {"username": "ada", "role": "admin"},
        format="json",
        HTTP_IF_MATCH=added["ETag"] + "x",
    )
    assert stale.status_code == 412
    assert Team.objects.get(slug="ml-platform").memberships.get(user__username="ada").role == "editor"

    # fleet
    fleet = staff_api.get("/api/v1/fleet/")
    current = fleet.json()["vllm_version"]
    assert staff_api.get("/api/v1/fleet/", HTTP_IF_NONE_MATCH=fleet["ETag"]).status_code == 304
    assert (
        staff_api.put(
            "/api/v1/fleet/", {"vllm_version": current}, format="json", HTTP_IF_MATCH='"old"'
        ).status_code
        == 412
    )
    same = staff_api.put(
        "/api/v1/fleet/", {"vllm_version": current}, format="json", HTTP_IF_MATCH=fleet["ETag"]
    )
    assert same.status_code in (200, 202)

    # a rule-set draft
    draft = staff_api.post("/api/v1/rulesets/", {}, format="json")
    draft_url = f"/api/v1/rulesets/{draft.json()['id']}/"
    etag = staff_api.get(draft_url)["ETag"]
    assert draft["ETag"] == etag
    rule = {**EAGER_RULE, "id": "policy-etag"}
    saved = staff_api.post(f"{draft_url}rules/", rule, format="json", HTTP_IF_MATCH=etag)
    assert saved.status_code == 200, saved.json()
    again = staff_api.post(
        f"{draft_url}rules/", {**rule, "severity": "warning"}, format="json", HTTP_IF_MATCH=etag
    )
    assert again.status_code == 412
    assert staff_api.get(draft_url, HTTP_IF_NONE_MATCH=etag).status_code == 200
    assert staff_api.post(f"{draft_url}publish/", HTTP_IF_MATCH=etag).status_code == 412

    # waivers of a profile
    profile = create_profile(api)
    waivers_url = f"/api/v1/profiles/{profile['id']}/waivers/"
    listed = api.get(waivers_url)
    assert listed.json()["count"] == 0
    assert api.get(waivers_url, HTTP_IF_NONE_MATCH=listed["ETag"]).status_code == 304
    body = {"rule_id": "policy-x", "reason": "r", "expires_at": "2999-01-01T00:00:00Z"}
    assert api.post(waivers_url, body, format="json", HTTP_IF_MATCH=listed["ETag"]).status_code == 201
    assert api.post(waivers_url, body, format="json", HTTP_IF_MATCH=listed["ETag"]).status_code == 412
    assert api.get(waivers_url).json()["count"] == 1
