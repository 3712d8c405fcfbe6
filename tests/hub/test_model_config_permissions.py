"""Who changes the stored model configs (a config serves every team's profiles of its repository): editors and
admins of some team, and staff (accounts.permissions.can_change_model_configs). Viewers and users of no team
read them only: no upload form, no refresh button, and 403 from the pages and the API."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from hub.models import ModelConfig
from profiles.services import team_add_member

pytestmark = pytest.mark.django_db


@pytest.fixture
def row(db):
    return ModelConfig.objects.create(
        repo="Org/Model", fetched_at="2026-01-01T00:00Z", config={"model_type": "llama"}, source="upload"
    )


@pytest.fixture
def viewer(team, staff):
    vic = get_user_model().objects.create_user("vic", "vic@example.com", "pw")
    team_add_member(actor=staff, team=team, user=vic, role="viewer")
    return vic


@pytest.mark.parametrize("who", ["viewer", "outsider"])
def test_a_viewer_or_a_user_of_no_team_reads_model_configs_but_cannot_change_them(who, request, row):
    person = request.getfixturevalue(who)
    page = Client()
    page.force_login(person)
    listing = page.get("/models/").content.decode()
    assert "Org/Model" in listing
    assert 'id="upload-config"' not in listing and "Refresh model config" not in listing
    assert "Editors of a team and staff upload and refresh model configs." in listing
    assert "Refresh model config" not in page.get(f"/models/{row.pk}/").content.decode()
    assert page.post(f"/models/{row.pk}/refresh/").status_code == 403
    assert page.post("/models/", {"repo": "acme/x", "revision": "", "config_text": "{}"}).status_code == 403
    api = APIClient()
    api.force_authenticate(person)
    assert api.get(f"/api/v1/model-configs/{row.pk}/").status_code == 200
    assert api.post(f"/api/v1/model-configs/{row.pk}/refresh/").status_code == 403
    assert api.post("/api/v1/model-configs/", {"repo": "Org/Other"}, format="json").status_code == 403
    assert not ModelConfig.objects.filter(repo__in=["acme/x", "Org/Other"]).exists()


def test_an_editor_sees_the_upload_form_and_the_refresh_buttons(user, team, row):
    page = Client()
    page.force_login(user)
    listing = page.get("/models/").content.decode()
    assert 'id="upload-config"' in listing and "Refresh model config" in listing
    assert "Refresh model config" in page.get(f"/models/{row.pk}/").content.decode()
