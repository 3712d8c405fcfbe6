"""The permission table: every role on every endpoint and page, allowed and refused, and no other team's data
anywhere (lists, filters, counts, search, exports, history, alerts, metrics).

Roles: a visitor not signed in, an outsider (editor of another team), the team's viewer, editor and admin
(not staff), a superuser without ``is_staff`` and a staff user who is in no team: staff is one definition
(``accounts.permissions.is_staff``), so both see every team and alone change rule sets and the fleet.

One world per row; each role's request runs in a savepoint that is rolled back, so a DELETE allowed for one
role does not change what the next role meets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from profiles.models import Alert, TeamMembership, VerdictChange
from profiles.services import ProfileInput, profile_create, team_add_member, team_create

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "outsider", "viewer", "editor", "admin", "superuser", "staff")
TEAM_ROLES = ("viewer", "editor", "admin")
PLAIN = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"
ALPHA_SECRET = "alpha-secret-profile"
BETA_SECRET = "beta-secret-profile"


@dataclass
class World:
    users: dict
    alpha: object
    beta: object
    alpha_profile: object
    beta_profile: object
    waiver_id: int = 0
    extra: dict = field(default_factory=dict)


@pytest.fixture
def world(db):
    User = get_user_model()
    root = User.objects.create_user("root", "root@example.com", "pw", is_superuser=True)
    users = {
        "outsider": User.objects.create_user("bob", "bob@example.com", "pw"),
        "viewer": User.objects.create_user("vic", "vic@example.com", "pw"),
        "editor": User.objects.create_user("ed", "ed@example.com", "pw"),
        "admin": User.objects.create_user("alice", "alice@example.com", "pw"),
        "superuser": root,
        "staff": User.objects.create_user("sam", "sam@example.com", "pw", is_staff=True),
    }
    alpha = team_create(actor=root, slug="alpha", name="Alpha")
    beta = team_create(actor=root, slug="beta", name="Beta")
    TeamMembership.objects.filter(user=root).delete()  # the superuser sees teams as staff, not as a member
    for role in TEAM_ROLES:
        team_add_member(actor=root, team=alpha, user=users[role], role=role)
    team_add_member(actor=root, team=beta, user=users["outsider"], role=TeamMembership.Role.EDITOR)

    def make(actor, team, name):
        data = ProfileInput.from_mapping(
            {"name": name, "kind": "serving", "vllm_version": "0.32.0", "command": PLAIN}
        )
        return profile_create(actor=actor, team=team, data=data)[0]

    alpha_profile = make(users["editor"], alpha, ALPHA_SECRET)
    beta_profile = make(users["outsider"], beta, BETA_SECRET)
    # an alert for each team's editor about their own profile: alerts are per recipient
    for profile, recipient in ((alpha_profile, users["editor"]), (beta_profile, users["outsider"])):
        change = VerdictChange.objects.create(
            profile=profile, from_state="valid", to_state="invalid", cause="manual", cause_detail=profile.name
        )
        Alert.objects.create(recipient=recipient, profile=profile, change=change)
    from profiles.services.waivers import waiver_request

    waiver = waiver_request(
        actor=users["editor"],
        profile=alpha_profile,
        rule_id="policy-x",
        reason="r",
        expires_at=timezone.now() + timedelta(days=3),
    )
    return World(users, alpha, beta, alpha_profile, beta_profile, waiver.pk)


@dataclass(frozen=True)
class Row:
    name: str
    method: str
    url: str  # formatted with the world: {alpha}, {beta}, {waiver}
    allowed: tuple[str, ...]  # roles that get ``ok``
    ok: int
    refused: int  # what the other signed-in roles get
    page: bool = False  # a page (anonymous: redirect to login) rather than the API (anonymous: 401)
    # what a user who cannot see the object (the outsider) gets: 404, the object's existence is not told
    hidden: int | None = None
    body: dict | None = None
    # (role, text) pairs that must NOT appear in the answer: another team's data
    absent: dict = field(default_factory=dict)
    present: dict = field(default_factory=dict)


MEMBERS = ("viewer", "editor", "admin", "superuser", "staff")
EDITORS = ("editor", "admin", "superuser", "staff")
ADMINS = ("admin", "superuser", "staff")
STAFF = ("superuser", "staff")
SIGNED_IN = ROLES[1:]
NOT_BETA = {r: BETA_SECRET for r in TEAM_ROLES}
NOT_ALPHA = {"outsider": ALPHA_SECRET}
SEES_BOTH = {r: (ALPHA_SECRET, BETA_SECRET) for r in STAFF}

ROWS = [
    # --- API reads: lists, filters, counts, search
    Row(
        "api list",
        "get",
        "/api/v1/profiles/",
        SIGNED_IN,
        200,
        0,
        absent={**NOT_BETA, **NOT_ALPHA},
        present={**SEES_BOTH, "viewer": (ALPHA_SECRET,), "outsider": (BETA_SECRET,)},
    ),
    Row(
        "api search",
        "get",
        "/api/v1/profiles/?search=secret",
        SIGNED_IN,
        200,
        0,
        absent={**NOT_BETA, **NOT_ALPHA},
        present=SEES_BOTH,
    ),
    Row("api filter by other team", "get", "/api/v1/profiles/?team=beta", SIGNED_IN, 200, 0, absent=NOT_BETA),
    Row(
        "api filter by model",
        "get",
        "/api/v1/profiles/?q=Llama",
        SIGNED_IN,
        200,
        0,
        absent={**NOT_BETA, **NOT_ALPHA},
    ),
    Row(
        "api teams",
        "get",
        "/api/v1/teams/",
        SIGNED_IN,
        200,
        0,
        absent={**{r: '"beta"' for r in TEAM_ROLES}, "outsider": '"alpha"'},
    ),
    Row("api team detail", "get", "/api/v1/teams/alpha/", MEMBERS, 200, 404),
    Row(
        "api alerts",
        "get",
        "/api/v1/alerts/",
        SIGNED_IN,
        200,
        0,
        absent={"editor": BETA_SECRET, "outsider": ALPHA_SECRET, "staff": BETA_SECRET},
        present={"editor": (ALPHA_SECRET,)},
    ),
    # --- API reads of one profile: detail, history, export, waivers
    Row("api detail", "get", "/api/v1/profiles/{alpha}/", MEMBERS, 200, 404),
    Row("api history", "get", "/api/v1/profiles/{alpha}/history/", MEMBERS, 200, 404),
    Row("api export", "get", "/api/v1/profiles/{alpha}/export/?format=yaml", MEMBERS, 200, 404),
    Row("api waivers", "get", "/api/v1/profiles/{alpha}/waivers/", MEMBERS, 200, 404),
    # --- API writes
    Row(
        "api create",
        "post",
        "/api/v1/profiles/",
        EDITORS,
        201,
        403,
        body={
            "team": "alpha",
            "name": "new-one",
            "kind": "serving",
            "command": PLAIN,
            "vllm_version": "0.32.0",
        },
    ),
    Row(
        "api edit",
        "patch",
        "/api/v1/profiles/{alpha}/",
        EDITORS,
        200,
        403,
        hidden=404,
        body={"description": "x"},
    ),
    Row("api delete", "delete", "/api/v1/profiles/{alpha}/", EDITORS, 204, 403, hidden=404),
    Row(
        "api request waiver",
        "post",
        "/api/v1/profiles/{alpha}/waivers/",
        EDITORS,
        201,
        403,
        hidden=404,
        body={"rule_id": "policy-y", "reason": "r", "expires_at": "2099-01-01T00:00:00Z"},
    ),
    # the editor requested it: a second person (the team's admin or staff) approves it
    Row(
        "api approve waiver",
        "post",
        "/api/v1/profiles/{alpha}/waivers/{waiver}/approve/",
        ADMINS,
        200,
        403,
        hidden=404,
    ),
    Row(
        "api add member",
        "post",
        "/api/v1/teams/alpha/members/",
        ADMINS,
        200,
        403,
        hidden=404,
        body={"username": "bob", "role": "viewer"},
    ),
    Row(
        "api sso groups",
        "put",
        "/api/v1/teams/alpha/sso-groups/",
        ADMINS,
        200,
        403,
        hidden=404,
        body={"groups": {"alpha-devs": "editor"}},
    ),
    Row(
        "page sso groups",
        "post",
        "/teams/alpha/sso-groups/",
        ADMINS,
        302,
        403,
        page=True,
        body={"groups": "alpha-devs = editor"},
    ),
    # a stored model config serves every team's profiles of its repository: editors of some team and staff
    Row(
        "api upload model config",
        "post",
        "/api/v1/model-configs/",
        ("outsider", "editor", "admin", "superuser", "staff"),
        201,
        403,
        body={"repo": "acme/private", "config": {"model_type": "llama", "num_attention_heads": 8}},
    ),
    Row(
        "page upload model config",
        "post",
        "/models/",
        ("outsider", "editor", "admin", "superuser", "staff"),
        302,
        403,
        page=True,
        body={"repo": "acme/private", "revision": "", "config_text": '{"model_type": "llama"}'},
    ),
    Row("api create team", "post", "/api/v1/teams/", STAFF, 201, 403, body={"slug": "gamma", "name": "G"}),
    Row("api draft rule set", "post", "/api/v1/rulesets/", STAFF, 201, 403, body={}),
    Row("api move fleet", "put", "/api/v1/fleet/", STAFF, 202, 403, body={"vllm_version": "0.31.0"}),
    # --- pages
    Row(
        "page list",
        "get",
        "/",
        SIGNED_IN,
        200,
        0,
        page=True,
        absent={**NOT_BETA, **NOT_ALPHA},
        present={**SEES_BOTH, "viewer": (ALPHA_SECRET,)},
    ),
    Row("page search", "get", "/?q=secret", SIGNED_IN, 200, 0, page=True, absent={**NOT_BETA, **NOT_ALPHA}),
    Row("page filter other team", "get", "/?team=beta", SIGNED_IN, 200, 0, page=True, absent=NOT_BETA),
    Row("page detail", "get", "/profiles/{alpha}/", MEMBERS, 200, 404, page=True),
    Row("page edit", "get", "/profiles/{alpha}/edit/", EDITORS, 200, 403, hidden=404, page=True),
    Row(
        "page approve waiver",
        "post",
        "/profiles/{alpha}/waivers/{waiver}/approve/",
        ADMINS,
        302,
        403,
        hidden=404,
        page=True,
    ),
    Row(
        "page alerts",
        "get",
        "/alerts/",
        SIGNED_IN,
        200,
        0,
        page=True,
        absent={"editor": BETA_SECRET, "outsider": ALPHA_SECRET},
    ),
    Row("page rule sets", "get", "/rulesets/", SIGNED_IN, 200, 0, page=True),
    Row("page new draft", "post", "/rulesets/drafts/", STAFF, 302, 403, page=True, body={}),
    Row("page releases", "get", "/releases/", SIGNED_IN, 200, 0, page=True),
    # counts only (of the user's teams): tests/profiles/test_state_chart.py checks them
    Row("page states over time", "get", "/profiles/states/", SIGNED_IN, 200, 0, page=True),
]


def _client(world, role, page):
    client = Client() if page else APIClient()
    if role != "anonymous":
        client.force_login(world.users[role]) if page else client.force_authenticate(world.users[role])
    return client


def _request(client, row, url):
    method = getattr(client, row.method)
    if row.page:
        return method(url, row.body or {})
    return method(url, row.body, format="json") if row.body is not None else method(url)


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_permission_table(world, row):
    url = row.url.format(alpha=world.alpha_profile.pk, beta=world.beta_profile.pk, waiver=world.waiver_id)
    wrong = []
    for role in ROLES:
        with transaction.atomic():
            response = _request(_client(world, role, row.page), row, url)
            body = response.content.decode(errors="replace")
            transaction.set_rollback(True)
        if role == "anonymous":
            expected = 302 if row.page else 401
        elif role == "outsider" and row.hidden is not None:
            expected = row.hidden
        else:
            expected = row.ok if role in row.allowed else row.refused
        if response.status_code != expected:
            wrong.append(f"{role}: {response.status_code} (expected {expected}) {body[:200]}")
            continue
        if role == "anonymous" and row.page:
            assert "/accounts/login/" in response["Location"]
        absent = row.absent.get(role)
        if absent and absent in body:
            wrong.append(f"{role}: sees {absent!r} of another team")
        for text in row.present.get(role, ()):
            if text not in body:
                wrong.append(f"{role}: does not see {text!r}")
    assert not wrong, f"{row.name} {row.method.upper()} {url}:\n" + "\n".join(wrong)


def test_metrics_are_fleet_totals_without_any_team_or_profile(world, client):
    """/metrics is for the operators' Prometheus: counts only, no team, profile or user names."""
    body = client.get("/metrics").content.decode()
    assert "vllm_profiles_profiles" in body
    for secret in (ALPHA_SECRET, BETA_SECRET, "alpha", "beta", "alice", "bob"):
        assert secret not in body


def test_counts_on_the_list_page_count_only_the_users_teams(world):
    """The state counts beside the list count the viewer's team only: another team's invalid profile does not
    show up as a number either."""
    from profiles.selectors import profile_state_counts, profiles_visible_to

    viewer, staff = world.users["viewer"], world.users["staff"]
    assert sum(profile_state_counts(profiles_visible_to(viewer)).values()) == 1
    assert sum(profile_state_counts(profiles_visible_to(world.users["outsider"])).values()) == 1
    assert sum(profile_state_counts(profiles_visible_to(staff)).values()) == 2
    assert sum(profile_state_counts(profiles_visible_to(world.users["superuser"])).values()) == 2
