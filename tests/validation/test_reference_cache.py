"""The validate API, saves and admission keep releases, the fleet's release, the current rule set, catalogs
and stored model configs in memory: every change that commits is seen by the very next request.

Each test answers one request first (so the process has cached what it read), changes the data the way the
product or an operator does, and asserts that the next request answers from the new data. Nothing tells the
cache about the change in-process: it learns only from the stamp it reads from the database, the same way
another gunicorn worker would.
"""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.services import token_create
from hub.models import ModelConfig
from hub.services import model_config_upload
from validation.models import RuleSet
from validation.selectors import release_get
from validation.services import rulesets
from validation.services.fleet import fleet_set_release
from validation.services.releases import release_import

pytestmark = pytest.mark.django_db

EAGER_RULE = {
    "id": "org-no-enforce-eager",
    "category": "policy",
    "severity": "error",
    "message": "production profiles must not disable CUDA graphs (--enforce-eager)",
    "when": "has(args.enforce_eager) && args.enforce_eager == true",
}
LLAMA = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "max_position_embeddings": 131072,
    "vocab_size": 128256,
}


def validate(api, command: str, version: str | None = "0.33.0", kind: str = "serving") -> dict:
    body = {"kind": kind, "command": command}
    if version:
        body["vllm_version"] = version
    response = api.post("/api/v1/validate/", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def rule_ids(document: dict) -> set[str]:
    return {f["rule"] for f in document["findings"] if not f.get("waived")}


def publish(staff, *rules: dict) -> RuleSet:
    draft = rulesets.ruleset_draft_create(actor=staff)
    for rule in rules:
        rulesets.rule_save(ruleset=draft, data=dict(rule))
    rulesets.ruleset_publish(ruleset=draft, actor=staff)
    return draft


def review(image: str, args: list[str]) -> dict:
    container = {"name": "vllm", "image": image, "args": args}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "teacher", "namespace": "ml"},
        "spec": {"template": {"spec": {"containers": [container]}}},
    }
    return {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
            "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
            "namespace": "ml",
            "operation": "CREATE",
            "userInfo": {"username": "kubernetes-admin"},
            "object": deployment,
            "oldObject": None,
            "dryRun": False,
        },
    }


def test_a_published_rule_set_applies_to_the_next_validation(api, staff):
    command = "vllm serve org/model --enforce-eager"
    before = validate(api, command)
    assert before["valid"] and "org-no-enforce-eager" not in rule_ids(before)
    draft = publish(staff, EAGER_RULE)
    after = validate(api, command)
    assert not after["valid"]
    assert "org-no-enforce-eager" in rule_ids(after)
    assert after["ruleset"] == draft.number


def test_a_published_rule_set_applies_to_the_next_save(api, staff, team):
    publish(staff, EAGER_RULE)
    body = {"team": team.slug, "name": "eager", "vllm_version": "0.33.0", "kind": "serving"}
    response = api.post("/api/v1/profiles/", {**body, "command": "vllm serve org/model --enforce-eager"})
    assert response.status_code == 400
    assert "org-no-enforce-eager" in {f["rule"] for f in response.json()["findings"]}
    # A later rule set without the rule lets the same profile in at once.
    publish(staff, {**EAGER_RULE, "enabled": False})
    response = api.post(
        "/api/v1/profiles/", {**body, "command": "vllm serve org/model --enforce-eager"}, format="json"
    )
    assert response.status_code == 201, response.content


def test_a_fleet_release_change_applies_to_the_next_validation(api, staff):
    assert validate(api, "vllm serve org/model", version=None)["vllm_version"] != "0.31.0"
    fleet_set_release(release=release_get("0.31.0"), actor=staff)
    assert validate(api, "vllm serve org/model", version=None)["vllm_version"] == "0.31.0"
    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    assert validate(api, "vllm serve org/model", version=None)["vllm_version"] == "0.32.0"


def test_a_new_release_is_known_to_the_next_validation(api):
    response = api.post(
        "/api/v1/validate/",
        {"kind": "serving", "vllm_version": "0.35.0", "command": "vllm serve org/model"},
        format="json",
    )
    assert response.status_code == 400
    assert "0.35.0" in json.dumps(response.json())
    catalog = {**_catalog("0.34.0"), "version": "0.35.0"}
    release_import(version="0.35.0", catalog=catalog)
    assert validate(api, "vllm serve org/model", version="0.35.0")["vllm_version"] == "0.35.0"


def test_a_changed_catalog_applies_to_the_next_validation(api):
    command = "vllm serve org/model --enable-prefix-caching"
    assert "catalog-unknown-argument" not in rule_ids(validate(api, command))
    catalog = _catalog("0.33.0")
    catalog["arguments"] = [a for a in catalog["arguments"] if a["name"] != "enable_prefix_caching"]
    assert release_import(version="0.33.0", catalog=catalog).changed
    after = validate(api, command)
    assert not after["valid"]
    assert any("enable-prefix-caching" in f["message"] for f in after["findings"])


def test_a_stored_model_config_changed_by_any_write_applies_to_the_next_validation(api, staff):
    model_config_upload(actor=staff, repo="meta-llama/Llama-3.1-8B-Instruct", config=LLAMA)
    command = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768"
    assert "max-model-len-above-derived" not in rule_ids(validate(api, command))
    # As an operator editing the row (the admin, SQL): no service is told, fetched_at stays the same.
    ModelConfig.objects.filter(repo="meta-llama/Llama-3.1-8B-Instruct").update(
        config={**LLAMA, "max_position_embeddings": 8192}
    )
    after = validate(api, command)
    assert "max-model-len-above-derived" in rule_ids(after)
    assert any("max_position_embeddings=8192" in f["message"] for f in after["findings"])


def test_a_published_rule_set_applies_to_the_next_admission_review(staff, client):
    body = json.dumps(review("vllm/vllm-openai:v0.33.0", ["org/model", "--enforce-eager"]))
    first = client.post("/api/v1/admission/", body, content_type="application/json").json()
    assert first["response"]["allowed"] is True
    publish(staff, EAGER_RULE)
    second = client.post("/api/v1/admission/", body, content_type="application/json").json()
    assert second["response"]["allowed"] is False
    assert "[org-no-enforce-eager]" in second["response"]["status"]["message"]


def test_a_validation_reads_the_reference_data_in_one_query(api, staff):
    model_config_upload(actor=staff, repo="meta-llama/Llama-3.1-8B-Instruct", config=LLAMA)
    command = "vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2 --max-model-len 32768"
    validate(api, command)
    with CaptureQueriesContext(connection) as queries:
        document = validate(api, command)
    assert document["valid"]
    # force_authenticate: no token lookup; the one query is the stamp of releases, fleet, rule set, configs
    assert len(queries) == 1, [q["sql"][:120] for q in queries]


def _token_client(user) -> APIClient:
    _, key = token_create(actor=None, user=user, name="ci")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_validation_by_api_token_reads_token_and_reference_data_in_one_query(staff):
    model_config_upload(actor=staff, repo="meta-llama/Llama-3.1-8B-Instruct", config=LLAMA)
    client = _token_client(staff)
    command = "vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2 --max-model-len 32768"
    validate(client, command)  # the token's last use is recorded (a write) at most once a minute
    with CaptureQueriesContext(connection) as queries:
        document = validate(client, command)
    assert document["valid"]
    # The stamp of releases, fleet, rule set and configs comes with the token, in the same statement.
    assert len(queries) == 1, [q["sql"][:120] for q in queries]
    assert "digest" in queries[0]["sql"] and "validation_ruleset" in queries[0]["sql"]


def test_changes_apply_to_the_next_validation_by_api_token(staff):
    """The stamp read with the token is the database's as of that request, exactly as one read apart."""
    client = _token_client(staff)
    command = "vllm serve org/model --enforce-eager"
    assert "org-no-enforce-eager" not in rule_ids(validate(client, command))
    publish(staff, EAGER_RULE)
    assert "org-no-enforce-eager" in rule_ids(validate(client, command))
    fleet_set_release(release=release_get("0.31.0"), actor=staff)
    assert validate(client, command, version=None)["vllm_version"] == "0.31.0"
    model_config_upload(actor=staff, repo="meta-llama/Llama-3.1-8B-Instruct", config=LLAMA)
    llama = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768"
    assert "max-model-len-above-derived" not in rule_ids(validate(client, llama))
    ModelConfig.objects.filter(repo="meta-llama/Llama-3.1-8B-Instruct").update(
        config={**LLAMA, "max_position_embeddings": 8192}
    )
    assert "max-model-len-above-derived" in rule_ids(validate(client, llama))


def _catalog(version: str) -> dict:
    from validation.services.releases import CATALOG_DIR

    return json.loads((CATALOG_DIR / f"{version}.json").read_text())


def test_a_process_that_has_not_compiled_the_rule_set_loads_it_from_the_cache(api, monkeypatch):
    """What one process compiled and planned (`manage.py lint`, a web worker's warm-up) serves the next
    from Django's cache: it answers the same without compiling the rule set again."""
    from validation import selectors

    first = validate(api, "vllm serve m --tensor-parallel-size 3 --enforce-eager")
    selectors.ruleset_keep_compiled()
    monkeypatch.setattr(selectors, "_compiled_cache", {})

    def no_compiling(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(selectors, "compile_ruleset", no_compiling)
    assert validate(api, "vllm serve m --tensor-parallel-size 3 --enforce-eager") == first


def test_a_process_keeps_only_the_most_recently_used_compiled_rule_sets(api, staff, monkeypatch):
    """Each publication compiles a new rule set (tens of MB with its release plans): a worker that kept
    every one would grow with each. The least recently used beyond COMPILED_KEPT is dropped, and compiled
    again (or loaded from the cache) if it is asked for once more, with the same answer."""
    from validation import selectors

    monkeypatch.setattr(selectors, "_compiled_cache", {})
    command = "vllm serve org/model --enforce-eager"
    assert "org-no-enforce-eager" not in rule_ids(validate(api, command))
    first = RuleSet.objects.get(status="published")
    publish(staff, EAGER_RULE)
    assert "org-no-enforce-eager" in rule_ids(validate(api, command))
    publish(staff, {**EAGER_RULE, "enabled": False})
    assert "org-no-enforce-eager" not in rule_ids(validate(api, command))
    assert len(selectors._compiled_cache) == selectors.COMPILED_KEPT
    assert first.pk not in selectors._compiled_cache  # the oldest went first
    before = validate(api, command)
    old = selectors.ruleset_compiled(first)  # asked for again: compiled anew, the same rules
    assert old.version_id == first.number and "sampling-replay-requires-mrv2" in {r.id for r in old.rules}
    assert first.pk in selectors._compiled_cache and len(selectors._compiled_cache) == selectors.COMPILED_KEPT
    assert validate(api, command) == before  # the current one is still the one answering


def test_a_worker_keeps_one_compiled_rule_set(api, staff, monkeypatch):
    """A Celery worker (config/celery_app.py) runs one rule set at a time: a publication's new one replaces
    the one before, in memory too."""
    from validation import selectors

    monkeypatch.setattr(selectors, "_compiled_cache", {})
    monkeypatch.setattr(selectors, "COMPILED_KEPT", selectors.COMPILED_KEPT)
    validate(api, "vllm serve org/model --enforce-eager")
    publish(staff, EAGER_RULE)
    validate(api, "vllm serve org/model --enforce-eager")
    assert len(selectors._compiled_cache) == 2
    selectors.compiled_rulesets_kept(1)
    assert list(selectors._compiled_cache) == [selectors.ruleset_current().pk]
    publish(staff, {**EAGER_RULE, "enabled": False})
    assert "org-no-enforce-eager" not in rule_ids(validate(api, "vllm serve org/model --enforce-eager"))
    assert list(selectors._compiled_cache) == [selectors.ruleset_current().pk]
