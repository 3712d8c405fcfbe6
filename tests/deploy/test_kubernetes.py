"""The Kubernetes base renders, every object passes the Kubernetes schema, and the probes it uses answer."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from django.test import override_settings

BASE = Path(__file__).resolve().parents[2] / "deploy" / "kubernetes" / "base"
KUBERNETES_VERSION = "1.30.0"


def render() -> list[dict]:
    """`kubectl kustomize` where kubectl exists; else the base's resources as listed (it has no patches)."""
    if shutil.which("kubectl"):
        out = subprocess.run(
            ["kubectl", "kustomize", str(BASE)], check=True, capture_output=True, text=True, timeout=60
        ).stdout
        return [d for d in yaml.safe_load_all(out) if d]
    kustomization = yaml.safe_load((BASE / "kustomization.yaml").read_text())
    assert set(kustomization) <= {"apiVersion", "kind", "labels", "resources", "images"}, (
        "patches need kubectl"
    )
    docs = []
    for resource in kustomization["resources"]:
        docs.extend(d for d in yaml.safe_load_all((BASE / resource).read_text()) if d)
    return docs


@pytest.fixture(scope="module")
def objects():
    return {(d["kind"], d["metadata"]["name"]): d for d in render()}


def test_every_object_is_valid_against_the_kubernetes_schema(objects):
    assert len(objects) == 6
    for obj in objects.values():
        kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)  # raises naming the field


def test_web_worker_beat_and_migration(objects):
    web = objects[("Deployment", "vllm-profiles-web")]["spec"]["template"]["spec"]["containers"][0]
    assert web["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert web["livenessProbe"]["httpGet"]["path"] == "/healthz"
    beat = objects[("Deployment", "vllm-profiles-beat")]["spec"]
    assert beat["replicas"] == 1 and beat["strategy"] == {"type": "Recreate"}  # never two beats
    job = objects[("Job", "vllm-profiles-migrate")]["spec"]["template"]["spec"]["containers"][0]
    assert job["command"] == ["python", "manage.py", "migrate", "--noinput"]
    for (kind, _), obj in objects.items():
        if kind in ("Deployment", "Job"):
            for container in obj["spec"]["template"]["spec"]["containers"]:
                assert {"secretRef": {"name": "vllm-profiles"}} in container[
                    "envFrom"
                ]  # secrets from the env
                assert container["resources"]["requests"], container["name"]


def test_healthz_answers_while_the_process_runs(client):
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_readyz_checks_the_database_and_the_broker(client):
    response = client.get("/readyz")
    assert response.status_code == 200, response.json()
    assert response.json()["checks"] == {"database": "ok", "broker": "ok"}
    # a broker nobody listens on (a real refused connection, not a stand-in)
    with override_settings(CELERY_BROKER_URL="redis://127.0.0.1:1/0"):
        response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable" and body["checks"]["database"] == "ok"
    assert body["checks"]["broker"].startswith("error: ")
