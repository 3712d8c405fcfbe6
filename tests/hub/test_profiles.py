"""Model knowledge end to end: profiles saved through the API, the pages and `manage.py lint` resolve the
model's config.json from a Hugging Face cache the test builds (offline), or from a stand-in Hub; re-checks
read the stored config and never the network."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.urls import reverse

from hub.models import ModelConfig, NodeType
from profiles.models import Profile, Recheck, Verdict
from profiles.services.rechecks import recheck_run_inline, recheck_start

from .hfstub import QWEN25_05B, QWEN25_7B, cache_add

ROOT = Path(__file__).resolve().parents[2]
QWEN = "Qwen/Qwen2.5-7B-Instruct"
HEADS_RULE = "tp-must-divide-attention-heads"
HEADS_MESSAGE = "Total number of attention heads (28) must be divisible by tensor parallel size (8)."
pytestmark = pytest.mark.django_db


def heads_message(heads, tp):
    return f"Total number of attention heads ({heads}) must be divisible by tensor parallel size ({tp})."


def assert_heads(messages, heads, tp):
    assert messages == [heads_message(heads, tp)]


def findings(body, rule):
    return [f for f in body["findings"] if f["rule"] == rule]


def create(api, team, command, *, name="p", version="0.33.0", kind="serving", **extra):
    return api.post(
        "/api/v1/profiles/",
        {"team": team.slug, "name": name, "kind": kind, "vllm_version": version, "command": command, **extra},
        format="json",
    )


def lint(*args, stdin=None, env=None):
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    return subprocess.run(
        [sys.executable, "manage.py", "lint", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "DATABASE_URL": url, **(env or {})},
        timeout=120,
    )


@pytest.fixture
def committed_configs_removed():
    """`manage.py lint` runs in its own process and commits the configs it resolves; take them out again."""
    yield
    import psycopg

    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"], port=db["PORT"], user=db["USER"], dbname=db["NAME"], autocommit=True
    ) as c:
        c.execute("DELETE FROM hub_modelconfig")


def test_acceptance_lint_offline_from_the_hf_cache(hf_cache, tmp_path, committed_configs_removed):
    cache_add(hf_cache, QWEN, QWEN25_7B)
    path = tmp_path / "serve.sh"
    path.write_text(f"vllm serve {QWEN} -tp 8\n")
    result = lint("--vllm-version", "0.33.0", "--kind", "serving", str(path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"error   [vllm] {HEADS_RULE}: {HEADS_MESSAGE}" in result.stdout.splitlines()
    assert "could not fetch" not in result.stdout


def test_acceptance_api_save_gets_the_same_finding(api, team, hf_cache):
    cache_add(hf_cache, QWEN, QWEN25_7B)
    response = create(api, team, f"vllm serve {QWEN} -tp 8")
    assert response.status_code == 400, response.content
    (finding,) = findings(response.json(), HEADS_RULE)
    assert finding["severity"] == "error"
    assert_heads([finding["message"]], 28, 8)
    assert not ModelConfig.objects.exists()  # a refused save stores nothing, not even the model's config
    assert not Profile.objects.exists()
    # a divisor of 28 is accepted, and the document carries the architecture from config.json
    ok = create(api, team, f"vllm serve {QWEN} -tp 4", name="tp4")
    assert ok.status_code == 201, ok.content
    assert findings(ok.json(), HEADS_RULE) == []
    assert ok.json()["model_source"]["source"] == "cache"
    stored = ModelConfig.objects.get(repo=QWEN, revision="")  # stored with the profile that reads it
    assert (stored.source, stored.config["num_attention_heads"]) == ("cache", 28)


def test_the_dry_run_and_import_resolve_too(api, team, hf_cache):
    cache_add(hf_cache, QWEN, QWEN25_7B)
    body = {"kind": "serving", "vllm_version": "0.33.0", "command": f"vllm serve {QWEN} -tp 8"}
    dry = api.post("/api/v1/validate/", body, format="json").json()
    assert_heads([f["message"] for f in findings(dry, HEADS_RULE)], 28, 8)
    imported = api.post("/api/v1/profiles/import/", {**body, "team": team.slug, "name": "imp"}, format="json")
    assert imported.status_code == 400
    assert findings(imported.json(), HEADS_RULE)


def test_missing_model_is_an_info_finding_and_the_profile_saves(api, team, hf_cache):
    response = create(api, team, "vllm serve Org/Not-Cached -tp 8", name="missing")
    assert response.status_code == 201, response.content
    (note,) = findings(response.json(), "model-config-unavailable")
    assert note["severity"] == "info"
    assert note["message"] == (
        f"could not fetch config.json of Org/Not-Cached: not in the local Hugging Face cache {hf_cache} "
        "(HF_HUB_OFFLINE=1)"
    )
    (heads,) = findings(response.json(), HEADS_RULE)
    assert heads["severity"] == "info" and heads["message"].startswith("could not verify")


def test_revision_and_hf_config_path_choose_the_config(api, team, hf_cache):
    cache_add(hf_cache, QWEN, QWEN25_7B)
    cache_add(hf_cache, QWEN, {**QWEN25_7B, "num_attention_heads": 32}, revision="v32")
    cache_add(hf_cache, "Org/Other-Config", QWEN25_05B)  # 14 heads
    pinned = create(api, team, f"vllm serve {QWEN} -tp 8 --revision v32", name="rev")
    assert pinned.status_code == 201, pinned.content
    assert pinned.json()["model_source"]["revision"] == "v32"
    other = create(api, team, f"vllm serve {QWEN} -tp 4 --hf-config-path Org/Other-Config", name="cfg")
    assert other.status_code == 400
    assert findings(other.json(), HEADS_RULE)[0]["severity"] == "error"


def test_hf_overrides_apply_on_top_of_config_json(api, team, hf_cache):
    cache_add(hf_cache, QWEN, QWEN25_7B)
    command = f"vllm serve {QWEN} -tp 8 --hf-overrides '{{\"num_attention_heads\": 32}}'"
    response = create(api, team, command, name="override")
    assert response.status_code == 201, response.content
    assert findings(response.json(), HEADS_RULE) == []


def test_draft_model_config_is_resolved_and_its_absence_reported(api, team, hf_cache):
    cache_add(hf_cache, QWEN, QWEN25_7B)
    cache_add(hf_cache, "Qwen/Qwen2.5-0.5B-Instruct", QWEN25_05B)
    # The real Qwen2.5-0.5B's vocabulary (151936) is not the 7B's (152064): vLLM refuses the pair, quoting both
    # sizes, which only a resolved draft config can give.
    spec = '{"model": "Qwen/Qwen2.5-0.5B-Instruct", "num_speculative_tokens": 3}'
    refused = create(api, team, f"vllm serve {QWEN} --speculative-config '{spec}'", name="draft")
    assert refused.status_code == 400, refused.content
    (mismatch,) = findings(refused.json(), "spec-draft-vocab-size-mismatch")
    assert "Target model vocab_size=152064" in mismatch["message"]
    assert "Draft model vocab_size=151936" in mismatch["message"]
    # A draft trained on the target's tokenizer is accepted.
    cache_add(hf_cache, "Org/Qwen2.5-0.5B-7B-Vocab", {**QWEN25_05B, "vocab_size": QWEN25_7B["vocab_size"]})
    spec = '{"model": "Org/Qwen2.5-0.5B-7B-Vocab", "num_speculative_tokens": 3}'
    ok = create(api, team, f"vllm serve {QWEN} --speculative-config '{spec}'", name="draft")
    assert ok.status_code == 201, ok.content
    assert findings(ok.json(), "model-config-unavailable") == []
    profile = Profile.objects.get(name="draft")
    assert profile.draft_source.config["num_attention_heads"] == 14
    from profiles.services.verdicts import profile_document

    doc = profile_document(profile)
    assert doc["model"]["draft"]["architecture"] == "Qwen2ForCausalLM"
    missing = create(
        api, team, f'vllm serve {QWEN} --speculative-config \'{{"model": "Org/Draft"}}\'', name="nodraft"
    )
    (note,) = findings(missing.json(), "model-config-unavailable")
    assert note["message"].startswith("could not fetch config.json of the draft model Org/Draft:")


def test_local_directory_model(api, team, hf_cache, tmp_path, settings):
    settings.MODEL_LOCAL_DIRS = [str(tmp_path)]  # the operator's roots (none by default: tests/security)
    model_dir = tmp_path / "qwen-local"
    model_dir.mkdir()
    (model_dir / "config.json").write_text(json.dumps(QWEN25_7B))
    response = create(api, team, f"vllm serve {model_dir} -tp 8", name="local")
    assert_heads([f["message"] for f in findings(response.json(), HEADS_RULE)], 28, 8)


def test_recheck_reads_the_stored_config_never_the_network(api, team, hf_cache, monkeypatch, tmp_path):
    cache_add(hf_cache, QWEN, QWEN25_7B)
    assert create(api, team, f"vllm serve {QWEN} -tp 4", name="stored").status_code == 201
    # The cache is gone and the Hub points nowhere: a re-check still knows the model.
    monkeypatch.setenv("HF_HOME", str(tmp_path / "elsewhere"))
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    ModelConfig.objects.filter(repo=QWEN).update(config={**QWEN25_7B, "num_attention_heads": 30})
    recheck = recheck_start(cause="manual", verdicts=Verdict.objects.all())
    recheck_run_inline(recheck.pk)
    profile = Profile.objects.get(name="stored")
    assert profile.state == "invalid"
    messages = [f["message"] for f in profile.verdict.findings if f["rule"] == HEADS_RULE]
    assert_heads(messages, 30, 4)


def test_upload_for_a_private_model_rechecks_its_profiles(api, team, hf_cache):
    created = create(api, team, "vllm serve acme/private-llm -tp 8", name="private")
    assert created.status_code == 201
    assert findings(created.json(), "model-config-unavailable")
    bad = api.post("/api/v1/model-configs/", {"repo": "acme/private-llm", "config": [1]}, format="json")
    assert bad.status_code == 400 and "config" in bad.json()
    upload = api.post(
        "/api/v1/model-configs/", {"repo": "acme/private-llm", "config": QWEN25_7B}, format="json"
    )
    assert upload.status_code == 201, upload.content
    assert upload.json()["source"] == "upload" and upload.json()["architecture"] == "Qwen2ForCausalLM"
    recheck_run_inline(Recheck.objects.latest("created_at").pk)
    profile = Profile.objects.get(name="private")
    assert profile.state == "invalid"
    assert [f["rule"] for f in profile.verdict.findings if f["severity"] == "error"] == [HEADS_RULE]


def test_refresh_model_action_fetches_again(api, team, hf_cache, django_capture_on_commit_callbacks):
    created = create(api, team, f"vllm serve {QWEN} -tp 8", name="later")
    assert created.status_code == 201  # not cached yet: an info finding
    cache_add(hf_cache, QWEN, QWEN25_7B)
    pk = created.json()["id"]
    with django_capture_on_commit_callbacks(execute=True):  # the re-check runs once the action commits
        refreshed = api.post(f"/api/v1/profiles/{pk}/refresh-model/")
    assert refreshed.status_code == 200, refreshed.content
    body = api.get(f"/api/v1/profiles/{pk}/").json()
    assert body["state"] == "invalid"
    assert_heads([f["message"] for f in findings(body, HEADS_RULE)], 28, 8)
    assert findings(body, "model-config-unavailable") == []


def test_online_hub_fetch_404_and_timeout_through_the_api(api, team, fake_hub, monkeypatch):
    fake_hub.add(QWEN, QWEN25_7B)
    fetched = create(api, team, f"vllm serve {QWEN} -tp 8", name="online")
    assert fetched.status_code == 400
    assert not ModelConfig.objects.filter(repo=QWEN).exists()  # refused: nothing stored
    fake_hub.requests.clear()
    kept = create(api, team, f"vllm serve {QWEN} -tp 4", name="online")
    assert kept.status_code == 201 and fake_hub.requests == []  # the refused save's fetch was cached
    assert ModelConfig.objects.get(repo=QWEN).source == "hub"
    absent = create(api, team, "vllm serve Org/Absent -tp 8", name="absent")
    (note,) = findings(absent.json(), "model-config-unavailable")
    assert note["message"].startswith(
        f"could not fetch config.json of Org/Absent: repository not found on {fake_hub.url}"
    )
    monkeypatch.setenv("VLLM_PROFILES_HF_TIMEOUT", "0.5")
    fake_hub.add("Org/Slow", QWEN25_7B)
    fake_hub.slow.add("Org/Slow")
    slow = create(api, team, "vllm serve Org/Slow -tp 8", name="slow")
    assert slow.status_code == 201
    (note,) = findings(slow.json(), "model-config-unavailable")
    assert (
        note["message"]
        == f"could not fetch config.json of Org/Slow: no answer from {fake_hub.url} within 0.5 s"
    )
    # the failure is remembered: saving again does not wait for the Hub again
    fake_hub.requests.clear()
    again = api.patch(f"/api/v1/profiles/{slow.json()['id']}/", {"description": "x"}, format="json")
    assert again.status_code == 200 and fake_hub.requests == []


def test_node_types_fill_the_hardware_and_the_team_default_applies(api, staff_api, team, hf_cache):
    assert set(NodeType.objects.values_list("name", flat=True)) >= {
        "8xH100-80GB NVLink",
        "8xA100-80GB",
        "4xL40S-48GB PCIe",
        "1xL4-24GB",
    }
    listed = api.get("/api/v1/node-types/").json()
    assert {"name": "1xL4-24GB", "gpu": "L4-24GB", "gpus_per_node": 1, "gpu_memory_gb": 24}.items() <= next(
        n for n in listed if n["name"] == "1xL4-24GB"
    ).items()
    refused = create(api, team, "vllm serve m -tp 2", name="l4", node_type="1xL4-24GB")
    assert refused.status_code == 400
    assert findings(refused.json(), "world-size-exceeds-node-gpus")[0]["severity"] == "error"
    unknown = create(api, team, "vllm serve m", name="x", node_type="9xB300")
    assert unknown.status_code == 400 and "unknown node type '9xB300'" in unknown.json()["node_type"][0]
    saved = create(api, team, "vllm serve m -tp 2", name="team-default")
    assert saved.status_code == 201
    (unknown_gpus,) = findings(saved.json(), "world-size-exceeds-node-gpus")
    assert unknown_gpus["severity"] == "info"
    response = staff_api.put(
        f"/api/v1/teams/{team.slug}/default-node-type/", {"node_type": "1xL4-24GB"}, format="json"
    )
    assert response.status_code == 200 and response.json()["default_node_type"] == "1xL4-24GB"
    recheck_run_inline(Recheck.objects.latest("created_at").pk)
    assert Profile.objects.get(name="team-default").state == "invalid"
    denied = api.put(f"/api/v1/teams/{team.slug}/default-node-type/", {"node_type": ""}, format="json")
    assert denied.status_code == 403


def test_pages_node_type_pasted_config_and_refresh(client, user, team, hf_cache):
    client.force_login(user)
    form = {
        "team": team.slug,
        "name": "paged",
        "kind": "serving",
        "vllm_version": "0.33.0",
        "source": "vllm serve acme/private -tp 2",
        "node_type": "1xL4-24GB",
        "nodes": "1",
        "model_config_text": "{not json",
    }
    page = client.post(reverse("profiles:create"), form)
    assert page.status_code == 200
    assert "the model config.json is not JSON" in page.content.decode()
    form["model_config_text"] = json.dumps(QWEN25_7B)
    page = client.post(reverse("profiles:create"), form)
    assert page.status_code == 200  # 2 GPUs on a 1-GPU node: refused, with vLLM's message
    assert "world-size-exceeds-node-gpus" in page.content.decode()
    form["node_type"] = "8xH100-80GB NVLink"
    page = client.post(reverse("profiles:create"), form)
    assert page.status_code == 302, page.content.decode()[:2000]
    profile = Profile.objects.get(name="paged")
    assert (profile.node_type.name, profile.hardware, profile.model_config["num_attention_heads"]) == (
        "8xH100-80GB NVLink",
        {"nodes": 1},
        28,
    )
    detail = client.get(reverse("profiles:detail", args=[profile.pk])).content.decode()
    assert "8xH100-80GB NVLink" in detail and "H100-80GB" in detail
    assert "not in the local Hugging Face cache" in detail  # the repo itself is not resolvable
    response = client.post(reverse("profiles:refresh-model", args=[profile.pk]))
    assert response.status_code == 302


def test_models_page_lists_uploads_and_refreshes(
    client, user, team, hf_cache, django_capture_on_commit_callbacks
):
    client.force_login(user)
    upload = SimpleUploadedFile("config.json", json.dumps(QWEN25_05B).encode())
    response = client.post(
        reverse("hub:model-configs"), {"repo": "acme/small", "revision": "", "config_file": upload}
    )
    assert response.status_code == 302
    page = client.get(reverse("hub:model-configs")).content.decode()
    assert "acme/small" in page and "uploaded by ada" in page and "1xL4-24GB" in page
    bad = client.post(reverse("hub:model-configs"), {"repo": "acme/small", "config_text": "[]"})
    assert bad.status_code == 400 and "must be a JSON object" in bad.content.decode()
    row = ModelConfig.objects.get(repo="acme/small")
    # Refreshing an upload of a repository the Hub does not know keeps the uploaded config, and says why.
    client.post(reverse("hub:model-config-refresh", args=[row.pk]))
    row.refresh_from_db()
    assert row.config == QWEN25_05B and "not in the local Hugging Face cache" in row.error
    detail = client.get(reverse("hub:model-config", args=[row.pk])).content.decode()
    assert "&quot;num_attention_heads&quot;: 14" in detail


def test_saving_an_unchanged_profile_older_than_its_model_config_stores_it(api, team, hf_cache):
    created = create(api, team, f"vllm serve {QWEN} -tp 4", name="legacy")
    assert created.status_code == 201
    pk = created.json()["id"]
    Profile.objects.filter(pk=pk).update(model_source=None)  # as a profile saved before models were resolved
    cache_add(hf_cache, QWEN, QWEN25_7B)
    ModelConfig.objects.all().delete()
    saved = api.patch(f"/api/v1/profiles/{pk}/", {"description": ""}, format="json")
    assert saved.status_code == 200
    assert saved.json()["revision"] == 1  # nothing the user edits changed
    assert saved.json()["model_source"]["source"] == "cache"
    assert findings(api.get(f"/api/v1/profiles/{pk}/").json(), "model-config-unavailable") == []
