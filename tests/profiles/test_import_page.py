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
    assert sorted(Profile.objects.filter(team=team).values_list("name", flat=True)) == ["llama3", "mistral"]
    # The result links to each profile it created.
    assert response.status_code == 302 and response["Location"].startswith("/profiles/import/?imported=")
    result = client.get(response["Location"]).content.decode()
    assert "Imported 2 profiles" in result
    for profile in Profile.objects.filter(team=team):
        assert f'<a href="/profiles/{profile.pk}/">{team.slug}/{profile.name}</a>' in result


HF_SECRET = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.33.0
          args: [meta-llama/Llama-3.1-8B-Instruct, --tensor-parallel-size, "2"]
          env:
            - name: HF_TOKEN
              valueFrom: {secretKeyRef: {name: hf-secret, key: token}}
            - name: CACHE_DIR
              valueFrom: {configMapKeyRef: {name: vllm-settings, key: cache}}
          resources: {limits: {nvidia.com/gpu: 8}}
"""


def test_an_uploaded_manifest_is_named_in_history_with_its_hidden_env_and_its_hardware(client, user, team):
    client.force_login(user)
    upload = SimpleUploadedFile("chat.yaml", HF_SECRET.encode(), content_type="application/yaml")
    response = client.post("/profiles/import/", {"team": team.slug, "upload": upload})
    assert response.status_code == 302
    profile = Profile.objects.get(team=team, name="chat")
    result = client.get(response["Location"]).content.decode()
    assert "env HF_TOKEN comes from Secret hf-secret, key token: value not visible here" in result
    assert "env CACHE_DIR comes from ConfigMap vllm-settings, key cache: value not visible here" in result

    page = client.get(f"/profiles/{profile.pk}/").content.decode()
    assert "value not visible here" in page
    # One source line (no description repeating it), and the history naming the manifest (an upload, by
    # name and digest), not only who imported it.
    assert "Imported from chat.yaml" not in page and page.count("Deployment/chat, container vllm") == 2
    assert "imported from kubernetes upload chat.yaml (sha256 " in page
    # gpus_per_node came from the manifest: known, not "cannot be verified".
    assert profile.hardware.get("gpus_per_node") == 8
    assert "rules about the node cannot be verified" not in page
    assert "comes from the manifest and is checked as known" in page


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
