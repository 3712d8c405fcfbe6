"""Hostile input gets a clear 400 (413 for a body over the limit) naming what is wrong, and nothing is saved."""

from __future__ import annotations

import json

import pytest
from django.test import override_settings

from profiles.models import Profile
from tests.examples import EAGER_RULE
from validation.models import Rule

pytestmark = pytest.mark.django_db

PROFILES = "/api/v1/profiles/"


def body(**fields):
    return {"team": "ml-platform", "name": "x", "kind": "serving", "vllm_version": "0.32.0", **fields}


def post_raw(client, url, raw: bytes, content_type="application/json"):
    return client.generic("POST", url, raw, content_type=content_type)


def test_a_body_over_the_limit_is_413_naming_the_limit(api, team):
    with override_settings(API_MAX_BODY_BYTES=1000):
        response = api.post(PROFILES, body(command="vllm serve m " + "x" * 2000), format="json")
    assert response.status_code == 413
    assert "the limit is 1000 bytes" in response.json()["detail"]
    assert not Profile.objects.exists()


def test_a_command_over_the_limit_is_refused_on_its_field(api, team):
    response = api.post(
        PROFILES, body(command="vllm serve m --max-model-len 1 " + "a" * 70_000), format="json"
    )
    assert response.status_code == 400
    assert "no more than 65536 characters" in response.json()["command"][0]
    assert not Profile.objects.exists()


BILLION_LAUGHS = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(8)
    )
    + "model: meta-llama/Llama-3.1-8B-Instruct\n"
)


@pytest.mark.parametrize("url", ["/api/v1/validate/", PROFILES])
def test_a_yaml_alias_bomb_is_refused(api, team, url):
    data = body(config=BILLION_LAUGHS)
    if url != PROFILES:
        del data["team"], data["name"]
    response = api.post(url, data, format="json")
    assert response.status_code == 400
    assert "more than 100000 YAML nodes once aliases are expanded" in json.dumps(response.json())
    assert not Profile.objects.exists()


def test_deeply_nested_yaml_is_refused(api, team):
    config = "model: m\nx: " + "[" * 2000 + "]" * 2000 + "\n"
    response = api.post(PROFILES, body(config=config), format="json")
    assert response.status_code == 400
    assert "nested deeper than 64 levels" in json.dumps(response.json())
    assert not Profile.objects.exists()


def test_deeply_nested_json_is_refused(api, team):
    nested = "[" * 5000 + "]" * 5000
    raw = json.dumps(body(engine_args={"x": 1})).replace('{"x": 1}', '{"x": ' + nested + "}")
    response = post_raw(api, PROFILES, raw.encode())
    assert response.status_code == 400
    assert "JSON nested deeper than 32 levels" in response.json()["detail"]
    shallow_but_too_deep = json.dumps(body(engine_args={"x": json.loads("[" * 40 + "1" + "]" * 40)}))
    response = post_raw(api, PROFILES, shallow_but_too_deep.encode())
    assert response.status_code == 400 and "at $.engine_args.x" in response.json()["detail"]
    assert not Profile.objects.exists()


def test_invalid_utf8_is_refused_naming_the_byte(api, team):
    raw = json.dumps(body(command="vllm serve m")).encode().replace(b"serve m", b"serve \xff\xfe")
    response = post_raw(api, PROFILES, raw)
    assert response.status_code == 400
    assert response.json()[
        "detail"
    ] == "the request body is not valid UTF-8 (byte 0xff at offset 54)".replace("54", str(raw.index(b"\xff")))
    assert not Profile.objects.exists()


def test_nul_characters_are_refused_where_they_are(api, team):
    response = post_raw(
        api, PROFILES, json.dumps(body(engine_args={"served_model_name": "a\u0000b"})).encode()
    )
    assert response.status_code == 400
    assert (
        "NUL character" in response.json()["detail"]
        and "$.engine_args.served_model_name" in response.json()["detail"]
    )
    response = post_raw(
        api, PROFILES, json.dumps(body(engine_args={"served_model_name": ["a", "b\u0000"]})).encode()
    )
    assert response.status_code == 400
    assert "a string at $.engine_args.served_model_name[1]" in response.json()["detail"]
    response = api.post(PROFILES, body(command="vllm serve m\u0000"), format="json")
    assert response.status_code == 400
    assert not Profile.objects.exists()


@pytest.mark.parametrize("field", ["command", "config", "description", "name"])
def test_a_lone_surrogate_is_refused_naming_it(api, team, field):
    """JSON can escape half a UTF-16 pair (\\ud800), which no text can store: DRF's message, on its field."""
    data = {"command": "vllm serve m --max-model-len 1", **body(), field: "vllm serve m\ud800x"}
    if field == "config":
        del data["command"]
    response = post_raw(api, PROFILES, json.dumps(data).encode())
    assert response.status_code == 400
    assert response.json()[field] == ["Surrogate characters are not allowed: U+D800."]
    assert not Profile.objects.exists()


def test_unknown_fields_are_named(api, team):
    response = api.post(PROFILES, body(command="vllm serve m", max_model_len=4096), format="json")
    assert response.status_code == 400
    assert "unknown field" in response.json()["max_model_len"][0]
    assert not Profile.objects.exists()


def test_wrong_types_are_named(api, team):
    response = api.post(PROFILES, body(engine_args=["not", "a", "mapping"], description=5), format="json")
    assert response.status_code == 400
    assert "engine_args" in response.json()
    assert not Profile.objects.exists()
    response = api.post(PROFILES, "[1, 2]", format="json")
    assert response.status_code == 400


def test_a_body_that_is_not_json_is_refused(api, team):
    response = post_raw(api, PROFILES, b"{not json")
    assert response.status_code == 400 and response.json()["detail"].startswith("JSON parse error")
    response = post_raw(api, PROFILES, b"team=ml-platform", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert not Profile.objects.exists()


def test_cel_that_does_not_compile_or_costs_too_much_is_refused(staff_api):
    draft = staff_api.post("/api/v1/rulesets/", {}, format="json").json()["id"]
    url = f"/api/v1/rulesets/{draft}/rules/"
    broken = staff_api.post(url, {**EAGER_RULE, "when": "args.enforce_eager &&& true"}, format="json")
    assert broken.status_code == 400 and "org-no-enforce-eager" in broken.json()["when"][0]
    costly = "[1,2].all(a, [1,2].all(b, [1,2].all(c, [1,2].exists(d, d > c))))"
    refused = staff_api.post(url, {**EAGER_RULE, "when": costly}, format="json")
    assert refused.status_code == 400
    assert (
        "cost over the limit: comprehensions (all/exists/map/filter) nested 4 deep (at most 3)"
        in refused.json()["when"][0]
    )
    huge = " || ".join(["args.enforce_eager == true"] * 5000)
    refused = staff_api.post(url, {**EAGER_RULE, "when": huge}, format="json")
    assert refused.status_code == 400 and "characters (at most 100000)" in refused.json()["when"][0]
    assert not Rule.objects.filter(ruleset_id=draft, rule_id="org-no-enforce-eager").exists()
