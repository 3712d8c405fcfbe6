"""API tokens: named, shown once, stored hashed, read-only or expiring, listed and revoked (page and API)."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import token_create

pytestmark = pytest.mark.django_db

PLAIN = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"


def keyed(key):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_token_is_shown_once_stored_hashed_and_works(api, team, user):
    created = api.post("/api/v1/me/tokens/", {"name": "ci-deploy"}, format="json")
    assert created.status_code == 201, created.json()
    key = created.json()["key"]
    assert key.startswith("vpt_") and len(key) > 40
    row = ApiToken.objects.get(user=user, name="ci-deploy")
    assert row.digest == hashlib.sha256(key.encode()).hexdigest()
    assert key not in str(list(ApiToken.objects.values_list()))  # the key itself is stored nowhere
    listed = api.get("/api/v1/me/tokens/").json()["results"]
    assert [t["name"] for t in listed] == ["ci-deploy"] and "key" not in listed[0]
    assert listed[0]["prefix"] == key[:8] and listed[0]["active"] is True

    client = keyed(key)
    assert client.get("/api/v1/profiles/").status_code == 200
    assert ApiToken.objects.get(pk=row.pk).last_used_at is not None
    assert keyed(key[:-1] + ("A" if key[-1] != "A" else "B")).get("/api/v1/profiles/").status_code == 401


def test_token_names_are_required_and_unique_among_live_tokens(api, user):
    assert api.post("/api/v1/me/tokens/", {"name": " "}, format="json").status_code == 400
    assert api.post("/api/v1/me/tokens/", {"name": "a"}, format="json").status_code == 201
    again = api.post("/api/v1/me/tokens/", {"name": "a"}, format="json")
    assert again.status_code == 400 and "already" in again.json()["name"][0]
    past = {"name": "b", "expires_at": (timezone.now() - timedelta(days=1)).isoformat()}
    assert api.post("/api/v1/me/tokens/", past, format="json").status_code == 400
    assert ApiToken.objects.filter(user=user).count() == 1


def test_a_read_only_token_reads_and_dry_runs_but_changes_nothing(api, team):
    key = api.post("/api/v1/me/tokens/", {"name": "dash", "read_only": True}, format="json").json()["key"]
    client = keyed(key)
    assert client.get("/api/v1/profiles/").status_code == 200
    dry = client.post(
        "/api/v1/validate/", {"kind": "serving", "command": PLAIN, "vllm_version": "0.32.0"}, format="json"
    )
    assert dry.status_code == 200
    body = {"team": team.slug, "name": "x", "kind": "serving", "command": PLAIN, "vllm_version": "0.32.0"}
    refused = client.post("/api/v1/profiles/", body, format="json")
    assert refused.status_code == 403 and "read-only" in refused.json()["detail"]
    assert client.post("/api/v1/me/tokens/", {"name": "escalate"}, format="json").status_code == 403
    assert client.post("/api/v1/rulesets/", {}, format="json").status_code == 403


def test_expired_and_revoked_tokens_are_refused(api, user):
    soon = {"name": "short", "expires_at": (timezone.now() + timedelta(hours=1)).isoformat()}
    short = api.post("/api/v1/me/tokens/", soon, format="json").json()
    assert keyed(short["key"]).get("/api/v1/profiles/").status_code == 200
    ApiToken.objects.filter(pk=short["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert keyed(short["key"]).get("/api/v1/profiles/").status_code == 401

    long = api.post("/api/v1/me/tokens/", {"name": "long"}, format="json").json()
    revoked = api.post(f"/api/v1/me/tokens/{long['id']}/revoke/")
    assert revoked.status_code == 200 and revoked.json()["active"] is False
    answer = keyed(long["key"]).get("/api/v1/profiles/")
    assert answer.status_code == 401 and answer["WWW-Authenticate"] == "Token"


def test_one_cannot_see_or_revoke_another_users_tokens(api, user, outsider):
    other = APIClient()
    other.force_authenticate(outsider)
    theirs = other.post("/api/v1/me/tokens/", {"name": "theirs"}, format="json").json()
    assert api.get("/api/v1/me/tokens/").json()["results"] == []
    assert api.post(f"/api/v1/me/tokens/{theirs['id']}/revoke/").status_code == 404
    assert keyed(theirs["key"]).get("/api/v1/me/tokens/").json()["results"][0]["name"] == "theirs"


def test_tokens_page_shows_a_new_key_once_and_revokes(client, user):
    client.force_login(user)
    created = client.post("/me/tokens/", {"name": "laptop", "read_only": "on"})
    key = created.context["created_key"]
    assert created.status_code == 200 and key in created.content.decode()
    assert created["Cache-Control"] == "no-store"
    token = ApiToken.objects.get(user=user, name="laptop")
    assert token.read_only
    later = client.get("/me/tokens/").content.decode()
    assert key not in later and "laptop" in later and token.prefix in later
    assert client.post(f"/me/tokens/{token.pk}/revoke/").status_code == 302
    assert keyed(key).get("/api/v1/profiles/").status_code == 401
    refused = client.post("/me/tokens/", {"name": ""})
    assert refused.status_code == 400 and ApiToken.objects.filter(user=user).count() == 1


def test_create_api_token_command_options(user):
    out = StringIO()
    call_command(
        "create_api_token", "ada", "--name", "reader", "--read-only", "--expires-days", "2", stdout=out
    )
    token = ApiToken.objects.get(user=user, name="reader")
    assert token.read_only and token.expires_at > timezone.now() + timedelta(days=1)
    assert keyed(out.getvalue().strip()).post("/api/v1/me/tokens/", {"name": "x"}).status_code == 403


def test_existing_authtoken_keys_become_hashed_tokens_that_keep_working(user):
    """Migration accounts 0002: a DRF authtoken key (clear text) becomes a hashed token; the key still works."""
    from rest_framework.authtoken.models import Token

    executor = MigrationExecutor(connection)
    executor.migrate([("accounts", "0001_initial")])
    old = Token.objects.create(user=user)
    executor = MigrationExecutor(connection)
    executor.migrate([("accounts", "0002_hash_authtoken_keys")])
    assert not Token.objects.exists()  # no clear-text key is left
    migrated = ApiToken.objects.get(user=user)
    assert migrated.name == "cli" and migrated.digest == hashlib.sha256(old.key.encode()).hexdigest()
    assert keyed(old.key).get("/api/v1/me/tokens/").status_code == 200


def test_the_authorization_header_takes_token_or_bearer_and_names_a_malformed_one(user):
    _, key = token_create(actor=None, user=user, name="ci")
    for header in (f"Token {key}", f"Bearer {key}", f"token {key}"):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=header)
        assert client.get("/api/v1/profiles/").status_code == 200, header
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key} extra")
    refused = client.get("/api/v1/profiles/")
    assert refused.status_code == 401
    assert "Invalid token header" in refused.json()["detail"]
    assert refused["WWW-Authenticate"] == "Token"
