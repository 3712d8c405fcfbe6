"""Previews over the REST API above the inline limit: 202 and a job on the real Redis, then the worker's result.

The preview task is run here as the worker runs it (by id, from the message the API queued), so the test reads
the broker's queue and the shared cache; tests/tasks/test_pipeline.py runs the same through a real worker.
"""

import base64
import json

import pytest
import redis
from django.conf import settings as django_settings

from profiles import tasks
from tests.examples import EAGER_RULE
from tests.validation.test_pipeline_api import create_profile

pytestmark = pytest.mark.django_db


@pytest.fixture
def queue():
    client = redis.Redis.from_url(django_settings.CELERY_BROKER_URL)
    client.flushdb()

    def messages():
        """(task name, its arguments) of each message waiting on the default queue."""
        out = []
        for raw in client.lrange("celery", 0, -1):
            message = json.loads(raw)
            args = json.loads(base64.b64decode(message["body"]))[0]
            out.append((message["headers"]["task"], args))
        return out

    yield messages
    client.flushdb()


def run_queued(messages):
    """Run each queued preview task as the worker would: its name and its arguments, nothing else."""
    for name, args in messages():
        assert name == "validation.preview"
        tasks.preview_task(*args)


def test_impact_above_the_inline_limit_answers_202_until_a_worker_has_computed_it(
    staff_api, api, team, settings, queue, django_capture_on_commit_callbacks
):
    create_profile(api, "plain", command="vllm serve m", kind="serving")
    eager = create_profile(api, "eager", command="vllm serve m --enforce-eager", kind="serving")
    draft = staff_api.post("/api/v1/rulesets/", {}, format="json").json()["id"]
    assert staff_api.post(f"/api/v1/rulesets/{draft}/rules/", EAGER_RULE, format="json").status_code == 200
    url = f"/api/v1/rulesets/{draft}/impact/"
    settings.PREVIEW_INLINE_PROFILES = 1

    with django_capture_on_commit_callbacks(execute=True):
        first = staff_api.get(url)
        again = staff_api.get(url)
    assert first.status_code == 202 and again.status_code == 202
    assert first["Retry-After"] == "1"
    assert first.json()["state"] == "pending" and first.json()["profiles"] == 2
    assert first.json()["poll"].endswith(url)
    assert [name for name, _ in queue()] == ["validation.preview"]  # polling does not queue it twice

    run_queued(queue)
    ready = staff_api.get(url)
    assert ready.status_code == 200
    assert ready.json()["counts"]["would_become_invalid"] == 1
    assert ready.json()["would_become_invalid"][0]["id"] == eager["id"]

    settings.PREVIEW_INLINE_PROFILES = 2000  # the same answer computed inside the request
    assert staff_api.get(url).json() == ready.json()


def test_upgrade_preview_above_the_inline_limit_answers_202_then_the_result(
    staff_api, api, team, settings, queue, django_capture_on_commit_callbacks
):
    assert staff_api.put("/api/v1/fleet/", {"vllm_version": "0.32.0"}, format="json").status_code == 202
    profile = create_profile(api, version="")
    pinned = create_profile(api, "pinned", version="0.32.0")
    settings.PREVIEW_INLINE_PROFILES = 0
    url = "/api/v1/releases/0.31.0/preview/"
    with django_capture_on_commit_callbacks(execute=True):
        assert api.get(url).status_code == 202
    run_queued(queue)
    ready = api.get(url)
    assert ready.status_code == 200 and ready.json()["release"] == "0.31.0"
    assert [p["id"] for p in ready.json()["would_become_invalid"]] == [profile["id"]]
    assert [p["id"] for p in ready.json()["not_affected"]] == [pinned["id"]]
    assert api.get("/api/v1/releases/0.0.1/preview/").status_code == 400
