"""/metrics with METRICS_TOKEN set: only ``Authorization: Bearer <token>`` reads it (compared with
hmac.compare_digest, config/metrics.py); without the setting it is open (fleet counts only)."""

import pytest

pytestmark = pytest.mark.django_db
TOKEN = "m3trics-s3cret-token"


def test_metrics_need_the_exact_bearer_token_when_one_is_set(client, monkeypatch):
    monkeypatch.setenv("METRICS_TOKEN", TOKEN)
    for header in (
        None,
        "",
        f"Bearer {TOKEN[:-1]}",
        f"Bearer {TOKEN}x",
        f"bearer {TOKEN}",
        f"Token {TOKEN}",
        TOKEN,
        "Bearer ",
        "Bearer mëtrics",  # not ASCII: refused like any other wrong value, not a server error
    ):
        extra = {} if header is None else {"HTTP_AUTHORIZATION": header}
        response = client.get("/metrics", **extra)
        assert response.status_code == 403, header
        assert b"vllm_profiles_" not in response.content
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert b"vllm_profiles_profiles" in response.content


def test_metrics_are_open_without_a_token(client, monkeypatch):
    monkeypatch.delenv("METRICS_TOKEN", raising=False)
    response = client.get("/metrics")
    assert response.status_code == 200 and b"vllm_profiles_profiles" in response.content
