"""Throttling: a client over its rate gets 429 with Retry-After and the documented Error body; each API token
has its own budget, and an anonymous address its own; every operation of the schema lists the 429."""

from __future__ import annotations

import io
import time

import pytest
from django.core.cache import cache
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from accounts.models import ApiToken

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_counts():
    cache.clear()
    yield
    cache.clear()


def _token_client(username: str, name: str) -> APIClient:
    out = io.StringIO()
    call_command("create_api_token", username, "--name", name, stdout=out)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {out.getvalue().strip().split()[-1]}")
    return client


def test_a_token_over_its_rate_gets_429_with_retry_after_and_other_tokens_do_not(user, team, settings):
    settings.API_THROTTLE_USER = "3/day"  # a day's window: no test run straddles two
    ci = _token_client(user.username, "ci")
    assert [ci.get("/api/v1/profiles/").status_code for _ in range(3)] == [200, 200, 200]

    refused = ci.get("/api/v1/profiles/")
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 86400  # until the next window
    assert "throttled" in refused.json()["detail"]
    assert ci.post("/api/v1/validate/", {"command": "vllm serve m"}, format="json").status_code == 429

    # Another token of the same user has its own budget; a raised rate applies at once.
    assert _token_client(user.username, "laptop").get("/api/v1/profiles/").status_code == 200
    settings.API_THROTTLE_USER = "100/day"
    assert ci.get("/api/v1/profiles/").status_code == 200


def test_a_session_user_is_throttled_per_user(api, settings):
    settings.API_THROTTLE_USER = "2/day"
    assert [api.get("/api/v1/teams/").status_code for _ in range(3)] == [200, 200, 429]


def test_an_anonymous_address_is_throttled_apart_from_signed_in_clients(api, settings):
    settings.API_THROTTLE_ANON = "1/day"
    anonymous = APIClient(REMOTE_ADDR="203.0.113.7")
    assert anonymous.get("/api/schema/").status_code == 200
    refused = anonymous.get("/api/schema/")
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 86400
    assert APIClient(REMOTE_ADDR="203.0.113.8").get("/api/schema/").status_code == 200
    assert api.get("/api/v1/teams/").status_code == 200  # signed in: the client budget, not the address's


def test_every_operation_documents_429_with_retry_after():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    missing = [
        f"{method.upper()} {path}"
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if "Retry-After" not in operation["responses"].get("429", {}).get("headers", {})
        or operation["responses"]["429"]["content"]["application/json"]["schema"]
        != {"$ref": "#/components/schemas/Error"}
    ]
    assert missing == []


def test_a_large_budget_admits_exactly_its_rate_one_count_per_request(user, settings):
    """256/day: each request is one atomic increment of the shared count, so the 257th request of the day is
    the first refused, and the count is the number of requests, not lots reserved ahead."""
    settings.API_THROTTLE_USER = "256/day"
    ci = _token_client(user.username, "ci")
    key = f"throttle_client_token-{ApiToken.objects.get(name='ci').pk}:{int(time.time() // 86400)}"
    assert [ci.get("/api/v1/teams/").status_code for _ in range(5)] == [200] * 5
    assert cache.get(key) == 5
    statuses = [ci.get("/api/v1/teams/").status_code for _ in range(252)]
    assert statuses == [200] * 251 + [429]


def test_requests_another_process_counted_are_not_admitted_again(user, settings):
    """Another process (here: the shared count raised by hand) took the rest of the budget: the next request
    of this process is refused at once."""
    settings.API_THROTTLE_USER = "128/day"
    ci = _token_client(user.username, "ci")
    assert ci.get("/api/v1/teams/").status_code == 200
    token = ApiToken.objects.get(name="ci")
    key = f"throttle_client_token-{token.pk}:{int(time.time() // 86400)}"
    assert cache.get(key) == 1
    cache.incr(key, 127)  # the other processes' requests: the day's 128 are all taken
    assert ci.get("/api/v1/teams/").status_code == 429
