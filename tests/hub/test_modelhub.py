"""Resolution of config.json without Django: local directories, the HF cache offline, a stand-in Hub online."""

import json
import time

import pytest

from vllmcheck import modelhub

from .hfstub import QWEN25_05B, QWEN25_7B, cache_add

QWEN = "Qwen/Qwen2.5-7B-Instruct"


def test_offline_reads_the_cache_layout(hf_cache):
    commit = cache_add(hf_cache, QWEN, QWEN25_7B)
    result = modelhub.resolve(QWEN)
    assert result.error == ""
    assert result.config["num_attention_heads"] == 28
    assert result.source == "cache"
    assert result.commit == commit


def test_offline_reads_a_named_revision_from_its_ref(hf_cache):
    cache_add(hf_cache, QWEN, QWEN25_7B)
    cache_add(hf_cache, QWEN, {**QWEN25_7B, "num_attention_heads": 32}, revision="v2")
    assert modelhub.resolve(QWEN, "v2").config["num_attention_heads"] == 32
    assert modelhub.resolve(QWEN).config["num_attention_heads"] == 28


def test_offline_missing_repo_says_where_it_looked(hf_cache):
    result = modelhub.resolve("Org/Absent")
    assert result.config is None
    assert "HF_HUB_OFFLINE=1" in result.error and str(hf_cache) in result.error


def test_hf_hub_cache_wins_over_hf_home(hf_cache, tmp_path, monkeypatch):
    other = tmp_path / "other-cache"
    cache_add(other, QWEN, {**QWEN25_7B, "num_attention_heads": 40})
    cache_add(hf_cache, QWEN, QWEN25_7B)
    monkeypatch.setenv("HF_HUB_CACHE", str(other))
    assert modelhub.resolve(QWEN).config["num_attention_heads"] == 40


def test_local_directory_is_read_like_vllm_reads_a_path(tmp_path, hf_cache):
    model_dir = tmp_path / "models" / "qwen"
    model_dir.mkdir(parents=True)
    (model_dir / "config.json").write_text(json.dumps(QWEN25_05B))
    result = modelhub.resolve(str(model_dir))
    assert (result.source, result.config["num_attention_heads"]) == ("local", 14)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert modelhub.resolve(str(empty)).error == f"the directory {empty} has no config.json"
    assert modelhub.resolve("/no/such/dir").error == "no such local directory /no/such/dir"
    (empty / "config.json").write_text("[1, 2]")
    assert "must be a JSON object" in modelhub.resolve(str(empty)).error


def test_online_fetch_stores_into_the_cache_then_offline_reads_it(fake_hub, monkeypatch):
    fake_hub.add(QWEN, QWEN25_7B)
    result = modelhub.resolve(QWEN)
    assert (result.source, result.error, result.config["num_key_value_heads"]) == ("hub", "", 4)
    assert any(
        r.startswith("HEAD /Qwen/Qwen2.5-7B-Instruct/resolve/main/config.json") for r in fake_hub.requests
    )
    assert len(result.commit) == 40
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    fake_hub.requests.clear()
    again = modelhub.resolve(QWEN)
    assert (again.source, again.config) == ("cache", QWEN25_7B)
    assert fake_hub.requests == []


def test_online_missing_repo_and_revision_are_errors_not_crashes(fake_hub):
    fake_hub.add(QWEN, QWEN25_7B)
    missing = modelhub.resolve("Org/Absent")
    assert missing.config is None
    assert missing.error.startswith(f"repository not found on {fake_hub.url}")
    assert "HF_TOKEN" in missing.error
    assert modelhub.resolve(QWEN, "nope").error == "revision 'nope' not found"


def test_online_timeout_returns_within_the_deadline(fake_hub, monkeypatch):
    monkeypatch.setenv("VLLM_PROFILES_HF_TIMEOUT", "0.5")
    fake_hub.add("Slow/Model", QWEN25_7B)
    fake_hub.slow.add("Slow/Model")
    started = time.monotonic()
    result = modelhub.resolve("Slow/Model")
    elapsed = time.monotonic() - started
    assert result.config is None
    assert result.error == f"no answer from {fake_hub.url} within 0.5 s"
    assert elapsed < 3


def test_unreachable_endpoint_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "h"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # discard port: connection refused
    monkeypatch.setenv("VLLM_PROFILES_HF_TIMEOUT", "3")
    result = modelhub.resolve(QWEN)
    assert result.config is None and "127.0.0.1:9" in result.error


def test_hf_token_is_sent_as_bearer(fake_hub, monkeypatch):
    seen = []
    fake_hub.add(QWEN, QWEN25_7B)
    monkeypatch.setenv("HF_TOKEN", "hf_secret")
    handler = fake_hub.server.RequestHandlerClass
    original = handler._answer

    def spy(self, with_body):
        seen.append(self.headers.get("Authorization"))
        return original(self, with_body)

    monkeypatch.setattr(handler, "_answer", spy)
    assert modelhub.resolve(QWEN).error == ""
    assert "Bearer hf_secret" in seen


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({}, [("model", "m", "m", "")]),
        ({"revision": "v1"}, [("model", "m", "m", "v1")]),
        ({"hf_config_path": "Org/Config", "revision": "v1"}, [("model", "m", "Org/Config", "v1")]),
        ({"tokenizer": "Org/Tok"}, [("model", "m", "m", "")]),
        (
            {"speculative_config": {"model": "Org/Draft", "revision": "d1", "num_speculative_tokens": 3}},
            [("model", "m", "m", ""), ("draft", "Org/Draft", "Org/Draft", "d1")],
        ),
        (
            {"speculative_config": '{"model": "Org/Draft"}'},
            [("model", "m", "m", ""), ("draft", "Org/Draft", "Org/Draft", "")],
        ),
        ({"speculative_config": {"method": "ngram", "num_speculative_tokens": 3}}, [("model", "m", "m", "")]),
        ({"speculative_config": {"model": "[ngram]"}}, [("model", "m", "m", "")]),
    ],
)
def test_model_refs_follow_vllm(args, expected):
    refs = modelhub.model_refs("m", args)
    assert [(r.role, r.model, r.repo, r.revision) for r in refs] == expected


def test_overrides_flat_and_nested():
    config = {
        "num_attention_heads": 28,
        "text_config": {"num_attention_heads": 28, "a": 1},
        "architectures": ["X"],
    }
    out = modelhub.apply_overrides(
        config,
        {
            "num_attention_heads": 32,
            "text_config": {"num_attention_heads": 16},
            "rope_scaling": {"type": "yarn"},
            "architectures": ["Y"],
        },
    )
    assert out["num_attention_heads"] == 32
    assert out["text_config"] == {"num_attention_heads": 16, "a": 1}
    assert out["rope_scaling"] == {"type": "yarn"}
    assert modelhub.architecture(out) == "Y"
    assert config["text_config"]["num_attention_heads"] == 28  # the stored config is untouched
    assert modelhub.hf_overrides({"hf_overrides": '{"a": 1}'}) == {"a": 1}
    assert modelhub.hf_overrides({"hf_overrides": "not json"}) == {}
