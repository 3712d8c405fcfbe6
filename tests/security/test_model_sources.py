"""A profile names its model: a Hugging Face repository id or a local directory (``--model``,
``--hf-config-path``, ``speculative_config.model``), and a revision. On the server none of these may read the
server's files or send HF_TOKEN anywhere but the operator's HF_ENDPOINT; the linter, on the user's machine,
reads local directories as vLLM would (docs/security.md, "Hugging Face Hub and local model directories")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hub.models import ModelConfig
from tests.linter.conftest import run_lint

from .servers import Recorder, hub_answer, redirect_answer

pytestmark = pytest.mark.django_db

CANARY = "canary-3f9c1e-not-to-be-read"
# 30 heads: "-tp 8" gives a message naming 30 only when this config was read.
SECRET_CONFIG = {
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "_name_or_path": CANARY,
    "hidden_size": 3840,
    "num_attention_heads": 30,
    "num_key_value_heads": 6,
    "num_hidden_layers": 28,
    "max_position_embeddings": 32768,
    "vocab_size": 152064,
}
READ_MESSAGE = "Total number of attention heads (30) must be divisible by tensor parallel size (8)."
HEADS_RULE = "tp-must-divide-attention-heads"
NOT_READ = "local model directories are not read on this server; upload the config on the Models page"


def model_dir(where: Path, config: dict = SECRET_CONFIG) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    (where / "config.json").write_text(json.dumps(config))
    return where


def validate(api, command: str):
    response = api.post(
        "/api/v1/validate/",
        {"kind": "serving", "vllm_version": "0.33.0", "command": command},
        format="json",
    )
    assert response.status_code == 200, response.content
    return response


def messages(body: dict, rule: str) -> list[str]:
    return [f["message"] for f in body["findings"] if f["rule"] == rule]


def assert_not_read(response, why: str = NOT_READ) -> None:
    body = response.json()
    (note,) = messages(body, "model-config-unavailable")
    assert why in note, note
    (heads,) = messages(body, HEADS_RULE)
    assert heads.startswith("could not verify:"), heads  # no rule used the directory's config
    assert CANARY not in response.content.decode() and "(30)" not in response.content.decode()
    assert not ModelConfig.objects.filter(config__isnull=False).exists()


def test_validate_on_the_server_does_not_read_a_local_directory(api, tmp_path):
    folder = model_dir(tmp_path / "other-team" / "model")
    assert_not_read(validate(api, f"vllm serve {folder} -tp 8"))


@pytest.mark.parametrize("path", ["/etc", "/no/such/directory", "~", "../../../../etc", "./var"])
def test_any_path_gets_the_same_refusal_whether_it_exists_or_not(api, path):
    assert_not_read(validate(api, f"vllm serve {path} -tp 8"))


def test_hf_config_path_and_the_draft_model_are_refused_too(api, tmp_path):
    folder = model_dir(tmp_path / "model")
    assert_not_read(validate(api, f"vllm serve Org/Any --hf-config-path {folder} -tp 8"))
    response = validate(
        api, f'vllm serve Org/Any -tp 8 --speculative-config \'{{"model": "{folder}", "method": "eagle"}}\''
    )
    notes = messages(response.json(), "model-config-unavailable")
    assert any(
        n.startswith(f"could not fetch config.json of the draft model {folder}:") and NOT_READ in n
        for n in notes
    )
    assert CANARY not in response.content.decode()


def test_the_model_configs_api_does_not_read_a_local_directory(api, team, tmp_path):
    folder = model_dir(tmp_path / "model")
    response = api.post("/api/v1/model-configs/", {"repo": str(folder)}, format="json")
    assert response.status_code == 201
    assert response.json()["config"] is None and NOT_READ in response.json()["error"]
    assert CANARY not in response.content.decode()


def test_the_linter_on_the_users_machine_reads_the_same_directory(tmp_path):
    folder = model_dir(tmp_path / "model")
    script = tmp_path / "serve.sh"
    script.write_text(f"# vllm 0.33.0\nvllm serve {folder} -tp 8\n")
    proc = run_lint(str(script))
    assert READ_MESSAGE in proc.stdout, proc.stdout + proc.stderr


def test_an_allowed_root_is_read_and_dotdot_or_symlinks_cannot_leave_it(api, team, tmp_path, settings):
    root = tmp_path / "models"
    settings.MODEL_LOCAL_DIRS = [str(root)]
    inside = model_dir(root / "qwen")
    response = validate(api, f"vllm serve {inside} -tp 8")
    assert messages(response.json(), HEADS_RULE) == [READ_MESSAGE]

    outside = model_dir(tmp_path / "secret")
    (root / "link").symlink_to(outside)
    refused = f"local model directories are read on this server only under {root} (MODEL_LOCAL_DIRS)"
    for path in (root / ".." / "secret", root / "link"):
        ModelConfig.objects.all().delete()
        assert_not_read(validate(api, f"vllm serve {path} -tp 8"), refused)

    # Inside an allowed directory, a file that links out of the roots is not read either.
    sneaky = root / "sneaky"
    sneaky.mkdir()
    (sneaky / "config.json").symlink_to(outside / "config.json")
    row = api.post("/api/v1/model-configs/", {"repo": str(sneaky)}, format="json").json()
    assert row["config"] is None and row["error"] == f"the directory {sneaky} has no config.json"
    (outside / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 77, "name": CANARY}))
    (inside / "tokenizer_config.json").symlink_to(outside / "tokenizer_config.json")
    row = api.post("/api/v1/model-configs/", {"repo": str(inside)}, format="json").json()
    assert row["config"]["num_attention_heads"] == 30 and row["files"] == ["config.json"]
    assert row["tokenizer_max_length"] is None


def test_a_config_read_from_a_directory_before_is_forgotten_at_its_next_fetch(api, team, tmp_path):
    folder = model_dir(tmp_path / "model")
    row = ModelConfig.objects.create(
        repo=str(folder), revision="", config=SECRET_CONFIG, source="local", fetched_at="2026-01-01T00:00Z"
    )
    response = api.post(f"/api/v1/model-configs/{row.pk}/refresh/", format="json")
    assert response.status_code == 200
    assert response.json()["config"] is None and NOT_READ in response.json()["error"]
    assert CANARY not in response.content.decode()


def test_the_migration_forgets_configs_read_from_server_directories(tmp_path):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("hub.migrations.0005_forget_configs_read_from_server_directories")
    local = ModelConfig.objects.create(
        repo="/srv/x", config=SECRET_CONFIG, source="local", fetched_at="2026-01-01T00:00Z"
    )
    uploaded = ModelConfig.objects.create(
        repo="/srv/y", config=SECRET_CONFIG, source="upload", fetched_at="2026-01-01T00:00Z"
    )
    migration.forget(apps, None)
    local.refresh_from_db()
    uploaded.refresh_from_db()
    assert local.config is None and "MODEL_LOCAL_DIRS" in local.error
    assert uploaded.config == SECRET_CONFIG  # a user's upload is not a file of the server


# --- HF_TOKEN goes to the operator's HF_ENDPOINT, and nowhere else ---


@pytest.fixture
def online_hub(tmp_path, monkeypatch):
    """HF_ENDPOINT is a recording Hub on 127.0.0.1 serving Org/Model; HF_TOKEN is set; online."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_TOKEN", "hf_server_secret")
    monkeypatch.setenv("VLLM_PROFILES_HF_TIMEOUT", "5")
    with Recorder(hub_answer({"Org/Model": SECRET_CONFIG})) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        yield hub


def test_hf_token_travels_to_the_configured_endpoint_only(api, online_hub):
    with Recorder() as evil:
        for model in (f"{evil.url}/Org/Model", f"127.0.0.1:{evil.port}/Org/Model", "Org/../../Model"):
            response = validate(api, f"vllm serve {model} -tp 8")
            (note,) = messages(response.json(), "model-config-unavailable")
            assert "not a Hugging Face repository id (org/name)" in note or NOT_READ in note, note
        assert evil.seen == []
    assert online_hub.seen == []  # none of them was sent to the Hub either

    response = validate(api, "vllm serve Org/Model -tp 8")
    assert messages(response.json(), HEADS_RULE) == [READ_MESSAGE]
    for_the_model = [s for s in online_hub.seen if "/Org/Model/" in s.path]
    assert for_the_model and {s.authorization for s in for_the_model} == {"Bearer hf_server_secret"}


@pytest.mark.parametrize(
    "revision", ["../../../../tmp/x", "main/../../x", "-x", "a b", "a\\b", "ref:main", "a..b"]
)
def test_a_revision_cannot_carry_path_parts(api, online_hub, revision):
    response = validate(api, f"vllm serve Org/Model '--revision={revision}' -tp 8")
    (note,) = messages(response.json(), "model-config-unavailable")
    assert f"revision {revision!r} is not a branch, tag or commit name" in note
    assert online_hub.seen == []


def test_a_mirror_redirecting_elsewhere_does_not_hand_it_the_token(api, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_TOKEN", "hf_server_secret")
    with Recorder() as elsewhere, Recorder(redirect_answer(elsewhere.url)) as mirror:
        monkeypatch.setenv("HF_ENDPOINT", mirror.url)
        validate(api, "vllm serve Org/Model -tp 8")
        asked = [s for s in mirror.seen if "/Org/Model/" in s.path]
        assert asked and all(s.authorization == "Bearer hf_server_secret" for s in asked)
        followed = [s for s in elsewhere.seen if "/Org/Model/" in s.path]
        assert followed and all(s.authorization is None for s in elsewhere.seen), elsewhere.seen


def test_the_admission_webhook_does_not_read_a_local_directory_either(tmp_path):
    from rest_framework.test import APIClient

    from tests.profiles.test_admission import deployment, review

    folder = model_dir(tmp_path / "model")
    body = review(deployment(image="vllm/vllm-openai:v0.33.0", args=[str(folder), "-tp", "8"]))
    response = APIClient().post("/api/v1/admission/", body, format="json")  # the API server: no user
    assert response.status_code == 200, response.content
    assert CANARY not in response.content.decode() and "(30)" not in response.content.decode()
    assert not ModelConfig.objects.filter(repo=str(folder)).exists()  # a review is a dry run: nothing stored
    from hub.services import model_config_peek
    from vllmcheck.modelhub import ModelRef

    seen = model_config_peek(ModelRef("model", str(folder), str(folder), ""))  # what the review read
    assert seen.config is None and NOT_READ in seen.error
