"""Every operation that takes a body shows an example in the schema (the docs page's "Try it out" and
schemathesis's example phase send it), and each example works as given: a 2xx, not a 400."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator

from profiles.services import ProfileInput, profile_create
from tests.conftest import SEED_COMMAND

pytestmark = pytest.mark.django_db


def _operations():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if "requestBody" in operation:
                yield path, method, operation


def test_every_operation_with_a_body_has_an_example_that_works(staff_api, team, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    profile, _ = profile_create(
        actor=team.memberships.get(role="admin").user,
        team=team,
        data=ProfileInput.from_mapping(
            {"name": "p", "kind": "collection", "vllm_version": "0.32.0", "command": SEED_COMMAND}
        ),
    )
    fixable, _ = profile_create(
        actor=team.memberships.get(role="admin").user,
        team=team,
        data=ProfileInput.from_mapping(
            {"name": "fixable", "kind": "collection", "vllm_version": "0.32.0", "command": SEED_COMMAND}
        ),
    )
    draft = staff_api.post("/api/v1/rulesets/", {}, format="json").json()["id"]
    ids = {"{id}": str(draft), "{slug}": team.slug}
    missing, failed = [], []
    created = {}  # collection path -> the id of what its POST example made (for its {id} operations)
    for path, method, operation in _operations():
        examples = operation["requestBody"]["content"]["application/json"].get("examples")
        if not examples:
            missing.append(f"{method.upper()} {path}")
            continue
        url = path.replace("{id}", str(profile.pk)) if path.startswith("/api/v1/profiles/") else path
        collection = path.split("{id}")[0]
        if path.endswith("/fix/"):  # its example names a finding that the other examples' edits remove
            url = path.replace("{id}", str(fixable.pk))
        elif "{id}" in url and collection in created:
            url = url.replace("{id}", str(created[collection]))
        for key, value in ids.items():
            url = url.replace(key, value)
        if path == "/api/v1/admission/":
            continue  # authenticated by the webhook's own bearer token; tests/profiles/test_admission.py
        for example in examples.values():
            response = getattr(staff_api, method)(url, example["value"], format="json")
            if not 200 <= response.status_code < 300:
                failed.append((method.upper(), url, response.status_code, response.content[:300]))
            elif method == "post" and "{" not in path and isinstance(response.json(), dict):
                created.setdefault(path, response.json().get("id"))
    assert missing == []
    assert failed == []
