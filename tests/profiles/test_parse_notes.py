"""A flag given twice (vLLM keeps the last) is a warning naming both positions, on the saved profile too:
its API representation and its page show it, not only the form's live panel; saving the profile from a
text without the repeat (or from engine_args) clears it."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

COMMAND = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096 --max-model-len 8192"


def test_a_repeated_flag_is_a_warning_on_the_saved_profile(api, team, user):
    created = api.post(
        "/api/v1/profiles/",
        {"team": team.slug, "name": "twice", "kind": "serving", "vllm_version": "0.32.0", "command": COMMAND},
        format="json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["engine_args"]["max_model_len"] == 8192
    (note,) = body["notes"]
    assert note.startswith("max_model_len is given more than once (")
    assert "the last value wins" in note
    assert api.get(f"/api/v1/profiles/{body['id']}/").json()["notes"] == [note]

    browser = Client()
    browser.force_login(user)
    page = browser.get(f"/profiles/{body['id']}/").content.decode()
    assert "About the command line it was saved from" in page
    assert "max_model_len is given more than once" in page

    edited = api.patch(
        f"/api/v1/profiles/{body['id']}/", {"engine_args": {"max_model_len": 4096}}, format="json"
    )
    assert edited.status_code == 200, edited.content
    assert edited.json()["notes"] == []
    assert "is given more than once" not in browser.get(f"/profiles/{body['id']}/").content.decode()
