"""A Hugging Face Hub that cannot be reached costs a save or a dry run one refused connection, not
huggingface_hub's 15 s of retries: the answer comes at once with an info finding saying why, and for a few
minutes the Hub is not asked again (only the local cache is read) unless someone refreshes explicitly."""

from __future__ import annotations

import socket
import time

import huggingface_hub  # noqa: F401  (imported before the clock starts: its import is not the request's)
import pytest

from hub.models import ModelConfig

from .hfstub import QWEN25_7B, FakeHub
from .test_profiles import QWEN, create, findings

pytestmark = pytest.mark.django_db
OTHER = "Org/Other-7B"


@pytest.fixture
def closed_port(tmp_path, monkeypatch):
    """HF_ENDPOINT on a local port nobody listens on (connection refused), online, an empty cache."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    return port


def test_validate_answers_at_once_with_an_info_finding_when_the_hub_is_unreachable(api, closed_port):
    started = time.monotonic()
    response = api.post(
        "/api/v1/validate/", {"kind": "serving", "command": f"vllm serve {QWEN} -tp 8"}, format="json"
    )
    elapsed = time.monotonic() - started
    assert response.status_code == 200, response.content
    (note,) = findings(response.json(), "model-config-unavailable")
    assert note["severity"] == "info"
    assert note["message"].startswith(
        f"could not fetch config.json of {QWEN}: http://127.0.0.1:{closed_port} could not be reached "
        "(connection refused)"
    )
    assert "does not hold it" in note["message"]
    assert elapsed < 2, f"{elapsed:.1f} s"  # huggingface_hub's own retries took 15 s


def test_an_unreachable_hub_is_not_asked_again_until_a_refresh(api, team, closed_port):
    assert create(api, team, f"vllm serve {QWEN} -tp 8", name="first").status_code == 201
    # The Hub comes back on that address: for a few minutes nobody asks it (the failure is remembered) ...
    with FakeHub(port=closed_port) as hub:
        hub.add(OTHER, QWEN25_7B)
        started = time.monotonic()
        created = create(api, team, f"vllm serve {OTHER} -tp 8", name="other")
        elapsed = time.monotonic() - started
        assert created.status_code == 201, created.content
        (note,) = findings(created.json(), "model-config-unavailable")
        assert "could not be reached" in note["message"]
        assert hub.requests == []
        assert elapsed < 2, f"{elapsed:.1f} s"
        # ... until the profile's model config is refreshed explicitly: then the Hub is asked and answers.
        refreshed = api.post(f"/api/v1/profiles/{created.json()['id']}/refresh-model/")
        assert refreshed.status_code == 200, refreshed.content
        assert hub.requests
        row = ModelConfig.objects.get(repo=OTHER)
        assert (row.source, row.error) == ("hub", "")
