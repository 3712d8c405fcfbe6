import pytest

from .hfstub import FakeHub


@pytest.fixture
def hf_cache(tmp_path, monkeypatch):
    """An empty Hugging Face home with offline mode on: the tests add configs with hfstub.cache_add."""
    home = tmp_path / "hf-home"
    (home / "hub").mkdir(parents=True)
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return home / "hub"


@pytest.fixture
def fake_hub(tmp_path, monkeypatch):
    """A local Hub on HF_ENDPOINT, online, with an empty cache of its own."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-online"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("VLLM_PROFILES_HF_TIMEOUT", "5")
    with FakeHub() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        yield hub
