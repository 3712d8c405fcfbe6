"""A model whose config.json cannot be fetched (the Hub refuses the connection) is explained in words on the
API and on the profile's page: no raw exception text (``[Errno 111] Connection refused``) reaches a user."""

from __future__ import annotations

import pytest
from django.test import Client

from .test_profiles import QWEN, create
from .test_unreachable_hub import closed_port  # noqa: F401 - the fixture, used by name below

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("closed_port")]

RAW = ("[Errno", "Traceback", "HTTPConnectionPool", "Max retries exceeded", "NewConnectionError")


def _raw(text: str) -> list[str]:
    return [marker for marker in RAW if marker in text]


def test_an_unfetchable_model_shows_no_raw_exception_text_in_the_api_or_the_pages(api, user, team):
    validated = api.post(
        "/api/v1/validate/", {"kind": "serving", "command": f"vllm serve {QWEN}"}, format="json"
    )
    assert validated.status_code == 200 and _raw(validated.content.decode()) == []
    created = create(api, team, f"vllm serve {QWEN} -tp 8", name="unfetchable")
    assert created.status_code == 201 and _raw(created.content.decode()) == []
    client = Client()
    client.force_login(user)
    page = client.get(f"/profiles/{created.json()['id']}/")
    assert page.status_code == 200 and _raw(page.content.decode()) == []


def test_an_unreachable_hub_is_one_banner_pointing_to_the_models_page_not_a_finding_per_profile(
    api, user, team
):
    created = create(api, team, f"vllm serve {QWEN} -tp 8", name="unfetchable")
    (note,) = [f for f in created.json()["findings"] if f["rule"] == "model-config-unavailable"]
    assert "could not be reached (connection refused)" in note["message"]
    client = Client()
    client.force_login(user)
    html = client.get(f"/profiles/{created.json()['id']}/").content.decode()
    assert html.count('class="banner hub-unreachable"') == 1
    assert "The Hugging Face Hub could not be reached (connection refused)" in html
    assert '<a href="/models/">Upload the model\'s config.json on the Models page</a>' in html
    assert 'data-rule="model-config-unavailable"' not in html  # said by the banner, not as a finding
