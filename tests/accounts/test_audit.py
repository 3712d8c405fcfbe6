"""The audit log: who changed what, when, from which address, through what, with before and after; written by
the services (nothing for a refused change), read on a page and the API with filters, never editable."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import AuditEvent
from profiles.models import TeamMembership
from profiles.services import team_add_member, team_create
from validation.selectors import release_get
from validation.services.fleet import fleet_set_release

pytestmark = pytest.mark.django_db

PLAIN = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"


def create(api, name="chat"):
    body = {
        "team": "ml-platform",
        "name": name,
        "kind": "serving",
        "command": PLAIN,
        "vllm_version": "0.32.0",
    }
    response = api.post("/api/v1/profiles/", body, format="json", REMOTE_ADDR="10.1.2.3")
    assert response.status_code == 201, response.json()
    return response.json()


def test_an_api_edit_is_recorded_with_who_where_how_and_before_after(api, team, user):
    profile = create(api)
    edited = api.patch(
        f"/api/v1/profiles/{profile['id']}/",
        {"description": "for chat"},
        format="json",
        REMOTE_ADDR="10.9.8.7",
    )
    assert edited.status_code == 200
    created, updated = AuditEvent.objects.filter(object_type="profile").order_by("at", "id")
    assert (created.action, created.actor, created.via, created.address) == (
        "profile.create",
        user,
        "api",
        "10.1.2.3",
    )
    assert created.before is None and created.after["name"] == "chat" and created.team_slug == "ml-platform"
    assert (updated.action, updated.via, updated.address) == ("profile.update", "api", "10.9.8.7")
    assert updated.before["description"] == "" and updated.after["description"] == "for chat"
    assert (updated.before["revision"], updated.after["revision"]) == (1, 2)


def test_a_refused_change_leaves_no_entry(api, team):
    profile = create(api)
    before = AuditEvent.objects.count()
    bad = api.patch(
        f"/api/v1/profiles/{profile['id']}/", {"command": "vllm serve m --no-such-flag"}, format="json"
    )
    assert bad.status_code == 400
    assert AuditEvent.objects.count() == before


def test_page_changes_are_recorded_as_page(client, user, team):
    client.force_login(user)
    response = client.post(
        "/profiles/new/",
        {
            "team": "ml-platform",
            "name": "from-page",
            "kind": "serving",
            "vllm_version": "0.32.0",
            "source": PLAIN,
        },
    )
    assert response.status_code == 302, response.content.decode()[:500]
    event = AuditEvent.objects.get(action="profile.create", object_repr="ml-platform/from-page")
    assert event.via == "page" and event.actor == user and event.address == "127.0.0.1"


def test_teams_memberships_waivers_fleet_and_tokens_are_recorded(staff, user, outsider, api, staff_api, team):
    team_add_member(actor=staff, team=team, user=outsider, role=TeamMembership.Role.VIEWER)
    team_add_member(actor=staff, team=team, user=outsider, role=TeamMembership.Role.EDITOR)
    profile = create(api)
    url = f"/api/v1/profiles/{profile['id']}/waivers/"
    expires = (timezone.now() + timedelta(days=2)).isoformat()
    waiver = api.post(
        url, {"rule_id": "policy-x", "reason": "ok", "expires_at": expires}, format="json"
    ).json()
    staff_api.post(f"{url}{waiver['id']}/approve/")
    fleet_set_release(release=release_get("0.31.0"), actor=staff)
    api.post("/api/v1/me/tokens/", {"name": "ci"}, format="json")
    actions = list(AuditEvent.objects.order_by("at", "id").values_list("action", "actor_name"))
    assert ("team.create", "sam") in actions
    assert ("membership.create", "sam") in actions and ("membership.update", "sam") in actions
    assert ("waiver.request", "ada") in actions and ("waiver.approve", "sam") in actions
    assert ("fleet.update", "sam") in actions and ("token.create", "ada") in actions
    role_change = AuditEvent.objects.get(action="membership.update")
    assert role_change.before["role"] == "viewer" and role_change.after["role"] == "editor"
    approve = AuditEvent.objects.get(action="waiver.approve")
    assert approve.before["granted_by"] is None and approve.after["granted_by"] == "sam"
    token = AuditEvent.objects.get(action="token.create")
    assert "digest" not in token.after and "key" not in token.after


def test_rule_set_changes_are_recorded(staff_api, staff):
    draft = staff_api.post("/api/v1/rulesets/", {}, format="json").json()
    rule = {
        "id": "no-eager",
        "category": "policy",
        "severity": "error",
        "message": "no eager mode",
        "when": "has(engine_args.enforce_eager) && engine_args.enforce_eager",
    }
    assert staff_api.post(f"/api/v1/rulesets/{draft['id']}/rules/", rule, format="json").status_code in (
        200,
        201,
    )
    assert staff_api.post(f"/api/v1/rulesets/{draft['id']}/publish/").status_code in (200, 202)
    events = {e.action: e for e in AuditEvent.objects.filter(actor=staff)}
    assert {"ruleset.create", "rule.create", "ruleset.publish"} <= set(events)
    assert events["rule.create"].after["when"] == rule["when"] and events["rule.create"].before is None
    assert events["ruleset.publish"].before["status"] == "draft"
    assert events["ruleset.publish"].after["status"] == "published"


def test_audit_api_filters_and_shows_team_admins_only_their_teams(
    staff, user, outsider, api, staff_api, team
):
    other = team_create(actor=staff, slug="other", name="Other")
    team_add_member(actor=staff, team=other, user=outsider, role=TeamMembership.Role.ADMIN)
    create(api)
    everything = staff_api.get("/api/v1/audit/").json()
    assert everything["count"] >= 5
    only_profiles = staff_api.get("/api/v1/audit/?object_type=profile&actor=ada&team=ml-platform").json()
    assert [e["action"] for e in only_profiles["results"]] == ["profile.create"]
    assert only_profiles["results"][0]["via"] == "api"
    # ada added to ml-platform, eve to other (a team's creator is in its team.create entry)
    assert staff_api.get("/api/v1/audit/?action=membership.").json()["count"] == 2
    future = (timezone.now() + timedelta(hours=1)).isoformat().replace("+00:00", "Z")
    assert staff_api.get("/api/v1/audit/", {"since": future}).json()["count"] == 0

    admin_of_other = APIClient()
    admin_of_other.force_authenticate(outsider)
    seen = admin_of_other.get("/api/v1/audit/").json()["results"]
    assert seen and {e["team"] for e in seen} == {"other"}
    assert api.get("/api/v1/audit/").json()["count"] == 0  # an editor administers no team


def test_the_audit_log_is_never_editable(staff_api, staff, team):
    event = AuditEvent.objects.first()
    assert staff_api.post("/api/v1/audit/", {}, format="json").status_code == 405
    assert staff_api.patch(f"/api/v1/audit/{event.pk}/", {"actor": "x"}, format="json").status_code == 405
    assert staff_api.delete(f"/api/v1/audit/{event.pk}/").status_code == 405
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    admin = Client()
    admin.force_login(root)
    assert admin.get(f"/admin/accounts/auditevent/{event.pk}/change/").status_code == 200  # read
    assert admin.post(f"/admin/accounts/auditevent/{event.pk}/change/", {"action": "x"}).status_code == 403
    assert admin.post(f"/admin/accounts/auditevent/{event.pk}/delete/", {"post": "yes"}).status_code == 403
    assert AuditEvent.objects.get(pk=event.pk).action == event.action


def test_audit_page_for_staff_and_team_admins_not_for_others(client, staff, user, team):
    client.force_login(staff)
    page = client.get("/audit/?object_type=team")
    assert page.status_code == 200 and "team.create" in page.content.decode()
    assert "membership.create" not in page.content.decode()
    client.force_login(user)
    assert client.get("/audit/").status_code == 403


@pytest.mark.parametrize("value", ["2588-03-15T06:59:44+20:13", "9999-12-31T23:00:00-10:00", "yesterday"])
def test_audit_api_refuses_times_out_of_range_naming_the_filter(staff_api, value):
    response = staff_api.get("/api/v1/audit/", {"until": value})
    assert response.status_code == 400 and "until" in response.json()


def test_a_role_change_on_the_teams_service_is_recorded(staff, user, team):
    from profiles.services import team_member_update

    membership = TeamMembership.objects.get(team=team, user=user)
    team_member_update(actor=staff, membership=membership, role=TeamMembership.Role.VIEWER)
    event = AuditEvent.objects.filter(action="membership.update").latest("at")
    assert (event.before["role"], event.after["role"], event.actor) == ("editor", "viewer", staff)
