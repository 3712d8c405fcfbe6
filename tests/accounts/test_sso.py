"""Single sign-on with OpenID Connect, end to end against a real provider (node-oidc-provider, started once per
session by tests/oidc_provider.py): users created on their first sign-in, team memberships and roles from the
groups claim through each team's mapping, removal of a group, the local password form switched off."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import CommandError, call_command
from django.test import Client, RequestFactory
from django.urls import reverse

from accounts.models import AuditEvent
from profiles.models import TeamMembership
from profiles.services import team_add_member, team_create, team_set_sso_groups
from tests.oidc_provider import sign_in

pytestmark = pytest.mark.django_db

User = get_user_model()


@pytest.fixture
def teams(staff):
    platform = team_create(actor=staff, slug="ml-platform", name="ML platform")
    team_set_sso_groups(actor=staff, team=platform, groups={"ml-platform": "editor", "ml-leads": "admin"})
    research = team_create(actor=staff, slug="research", name="Research")
    team_set_sso_groups(actor=staff, team=research, groups={"research": "viewer"})
    return platform, research


def memberships(user) -> dict[str, tuple[str, bool]]:
    return {m.team.slug: (m.role, m.via_sso) for m in TeamMembership.objects.filter(user=user)}


def test_without_configuration_the_login_page_offers_no_sso_and_its_urls_are_404(client):
    page = client.get("/accounts/login/")
    assert page.status_code == 200
    assert "Sign in with" not in page.content.decode()
    assert 'name="password"' in page.content.decode()
    assert client.get("/oidc/authenticate/").status_code == 404
    assert client.get("/oidc/callback/?code=x&state=y").status_code == 404


def test_the_login_page_names_the_provider_when_configured(sso, client):
    page = client.get("/accounts/login/").content.decode()
    assert "Sign in with Test IdP" in page
    assert 'href="/oidc/authenticate/"' in page
    assert 'name="password"' in page  # LOCAL_LOGIN is on by default


def test_the_first_sign_in_creates_the_user_in_the_teams_its_groups_map_to(sso, teams):
    sso.set_users({"lin": {"email": "lin@corp.example", "name": "Lin", "groups": ["ml-platform", "other"]}})
    client = Client()
    back = sign_in(client, "lin")
    assert back.status_code == 302 and back["Location"] == reverse("profiles:list"), back.get("Location")
    user = User.objects.get(email="lin@corp.example")
    assert user.username == "lin@corp.example" and not user.has_usable_password()
    assert memberships(user) == {"ml-platform": ("editor", True)}
    assert client.get("/teams/ml-platform/").status_code == 200  # signed in, and a member
    assert client.get("/teams/research/").status_code == 403
    event = AuditEvent.objects.get(action="membership.create", actor_name="lin@corp.example")
    assert event.team_slug == "ml-platform" and event.after["groups"] == ["ml-platform", "other"]


def test_the_highest_role_of_the_mapped_groups_wins(sso, teams):
    sso.set_users({"kai": {"email": "kai@corp.example", "groups": ["ml-platform", "ml-leads", "research"]}})
    sign_in(Client(), "kai")
    user = User.objects.get(email="kai@corp.example")
    assert memberships(user) == {"ml-platform": ("admin", True), "research": ("viewer", True)}


def test_a_group_removed_at_the_provider_removes_that_membership_at_the_next_sign_in(sso, teams, staff):
    sso.set_users({"mo": {"email": "mo@corp.example", "groups": ["ml-platform", "research"]}})
    sign_in(Client(), "mo")
    user = User.objects.get(email="mo@corp.example")
    assert memberships(user) == {"ml-platform": ("editor", True), "research": ("viewer", True)}
    platform, _ = teams
    other = team_create(actor=staff, slug="infra", name="Infra")
    team_add_member(actor=staff, team=other, user=user, role="viewer")  # by hand: SSO leaves it alone

    sso.set_users({"mo": {"email": "mo@corp.example", "groups": ["ml-leads"]}})
    client = Client()
    sign_in(client, "mo")
    assert memberships(user) == {"ml-platform": ("admin", True), "infra": ("viewer", False)}
    assert client.get("/teams/research/").status_code == 403
    removed = AuditEvent.objects.get(action="membership.delete", team_slug="research")
    assert removed.object_id != "" and removed.before["role"] == "viewer"

    team_set_sso_groups(actor=staff, team=platform, groups={})  # the team no longer maps any group
    sign_in(Client(), "mo")
    assert memberships(user) == {"infra": ("viewer", False)}


def test_an_existing_user_is_matched_by_e_mail_and_keeps_their_account(sso, teams, user):
    sso.set_users({"ada": {"email": "ADA@example.com", "groups": ["research"]}})
    sign_in(Client(), "ada")
    assert User.objects.filter(email__iexact="ada@example.com").count() == 1
    assert memberships(user) == {"research": ("viewer", True)}
    assert User.objects.get(pk=user.pk).check_password("pw")  # the local password is kept


def test_a_membership_set_by_hand_is_not_changed_by_sso(sso, teams, staff, user):
    platform, _ = teams
    team_add_member(actor=staff, team=platform, user=user, role="viewer")
    sso.set_users({"ada": {"email": "ada@example.com", "groups": ["ml-leads"]}})
    sign_in(Client(), "ada")
    assert memberships(user) == {"ml-platform": ("viewer", False)}


def test_a_deactivated_user_cannot_sign_in_through_sso(sso, teams, user):
    user.is_active = False
    user.save()
    sso.set_users({"ada": {"email": "ada@example.com", "groups": ["research"]}})
    client = Client()
    back = sign_in(client, "ada")
    assert back.status_code == 302 and "sso=failed" in back["Location"]
    assert memberships(user) == {}
    assert client.get("/teams/").status_code == 302  # still signed out


def test_an_e_mail_the_provider_says_is_not_verified_signs_nobody_in(sso, teams, user):
    sso.set_users({"ada": {"email": "ada@example.com", "email_verified": False, "groups": ["research"]}})
    client = Client()
    back = sign_in(client, "ada")
    assert back.status_code == 302 and "sso=failed" in back["Location"]
    assert memberships(user) == {}
    assert client.get("/teams/").status_code == 302


def test_a_callback_without_the_sessions_state_signs_nobody_in(sso, client):
    back = client.get("/oidc/callback/?code=forged&state=forged")
    assert back.status_code == 302 and "sso=failed" in back["Location"]
    assert client.get("/teams/").status_code == 302


def test_local_login_off_refuses_the_password_form_but_not_break_glass(sso, settings, user, staff):
    settings.LOCAL_LOGIN = False
    settings.LOCAL_LOGIN_BREAK_GLASS_USERS = ["sam"]
    client = Client()
    page = client.get("/accounts/login/").content.decode()
    assert "Sign in with Test IdP" in page and "Break-glass log-in" in page
    refused = client.post("/accounts/login/", {"username": "ada", "password": "pw"})
    assert refused.status_code == 403
    assert "Local log-in is off: sign in with Test IdP" in refused.content.decode()
    assert client.get("/teams/").status_code == 302  # not signed in
    # the backend refuses it too, wherever a password is checked (the admin's log-in page, ...)
    assert authenticate(RequestFactory().post("/admin/login/"), username="ada", password="pw") is None
    breaking = client.post("/accounts/login/", {"username": "sam", "password": "pw"})
    assert breaking.status_code == 302 and client.get("/teams/").status_code == 200


def test_local_login_off_without_break_glass_shows_no_password_form(sso, settings):
    settings.LOCAL_LOGIN = False
    page = Client().get("/accounts/login/").content.decode()
    assert "Sign in with Test IdP" in page and 'name="password"' not in page


def test_api_tokens_work_as_before_for_an_sso_user(sso, teams):
    sso.set_users({"lin": {"email": "lin@corp.example", "groups": ["ml-platform"]}})
    client = Client()
    sign_in(client, "lin")
    created = client.post("/api/v1/me/tokens/", {"name": "ci"}, content_type="application/json")
    assert created.status_code == 201, created.content
    key = created.json()["key"]
    teams_seen = Client().get("/api/v1/teams/", HTTP_AUTHORIZATION=f"Token {key}").json()["results"]
    assert [t["slug"] for t in teams_seen] == ["ml-platform"]


def test_team_admins_and_staff_set_the_mapping_editors_cannot(staff, user, api):
    team = team_create(actor=staff, slug="ml-platform", name="ML platform")
    team_add_member(actor=staff, team=team, user=user, role="editor")
    refused = api.put("/api/v1/teams/ml-platform/sso-groups/", {"groups": {"x": "admin"}}, format="json")
    assert refused.status_code == 403
    team_add_member(actor=staff, team=team, user=user, role="admin")
    bad = api.put("/api/v1/teams/ml-platform/sso-groups/", {"groups": {"x": "owner"}}, format="json")
    assert bad.status_code == 400
    done = api.put(
        "/api/v1/teams/ml-platform/sso-groups/", {"groups": {"ml-platform": "viewer"}}, format="json"
    )
    assert done.status_code == 200 and done.json()["sso_groups"] == {"ml-platform": "viewer"}


def test_the_team_page_sets_the_mapping(staff, client):
    team_create(actor=staff, slug="ml-platform", name="ML platform")
    client.force_login(staff)
    page = client.get("/teams/ml-platform/").content.decode()
    assert 'id="sso-groups-form"' in page
    saved = client.post(
        "/teams/ml-platform/sso-groups/", {"groups": "ml-platform = editor\n\nml-leads=admin\n"}
    )
    assert saved.status_code == 302
    page = client.get("/teams/ml-platform/").content.decode()
    assert "ml-leads = admin\nml-platform = editor" in page
    wrong = client.post("/teams/ml-platform/sso-groups/", {"groups": "ml-platform = owner"}, follow=True)
    assert "unknown role &#x27;owner&#x27;" in wrong.content.decode()


def test_oidc_discover_prints_the_providers_endpoints_as_settings(oidc_provider):
    out = StringIO()
    call_command("oidc_discover", oidc_provider.issuer + "/", stdout=out)
    lines = dict(line.split("=", 1) for line in out.getvalue().splitlines())
    expected = oidc_provider.settings()
    for name in ("AUTHORIZATION", "TOKEN", "USER", "JWKS"):
        assert lines[f"OIDC_OP_{name}_ENDPOINT"] == expected[f"OIDC_OP_{name}_ENDPOINT"]
    with pytest.raises(CommandError, match="could not read"):
        call_command("oidc_discover", oidc_provider.issuer + "/other", stdout=StringIO())
