"""The import page: paste or upload Kubernetes manifests or production-stack values (server-rendered forms)."""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile

from profiles.models import Profile
from tests.profiles.test_manifest_import import STACK_VALUES, TEACHER


def test_paste_values_creates_both_profiles(client, user, team):
    client.force_login(user)
    page = client.get("/profiles/import/")
    assert page.status_code == 200 and b"Import from Kubernetes or Helm" in page.content
    response = client.post("/profiles/import/", {"team": team.slug, "manifest": STACK_VALUES, "kind": ""})
    assert response.status_code == 302 and response["Location"] == f"/?team={team.slug}"
    assert sorted(Profile.objects.filter(team=team).values_list("name", flat=True)) == ["llama3", "mistral"]


def test_upload_a_refused_manifest_shows_vllms_message_and_stores_nothing(client, user, team):
    client.force_login(user)
    upload = SimpleUploadedFile("teacher.yaml", TEACHER.encode(), content_type="application/yaml")
    response = client.post("/profiles/import/", {"team": team.slug, "upload": upload})
    assert response.status_code == 200
    body = response.content.decode()
    assert "Nothing was imported" in body
    assert "sampling distribution replay does not support speculative decoding" in body
    assert "Deployment/teacher" in body
    assert not Profile.objects.filter(team=team).exists()


def test_nothing_given_is_a_clear_error(client, user, team):
    client.force_login(user)
    response = client.post("/profiles/import/", {"team": team.slug, "manifest": "  "})
    assert "paste the YAML or choose a file" in response.content.decode()


def test_outsiders_cannot_import(client, outsider):
    client.force_login(outsider)
    assert client.get("/profiles/import/").status_code == 403
