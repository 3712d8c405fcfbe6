"""Redis (the broker and the shared cache) stopped, losing everything it held, while profiles are saved and a
rule set is published: saves are still validated and stored, reads answered, the publish accepted; once Redis
is back the re-check runs, each profile checked once and each alert mailed once."""

from __future__ import annotations

import time

import pytest

from .conftest import assert_each_profile_checked_once_and_alerted_once

pytestmark = pytest.mark.faults

VALID = "vllm serve org/model --max-model-len 8192"


def test_redis_stopped_while_saving_and_publishing(stack):
    stack.redis.stop()
    assert set(stack.reads()) == {200}
    ready = stack.staff.get(stack.url("/readyz"), timeout=30)
    assert ready.status_code == 503 and ready.json()["checks"]["broker"].startswith("error")

    started = time.monotonic()
    saved = stack.save("while-redis-down", VALID)
    assert saved.status_code == 201, saved.text
    assert time.monotonic() - started < 10, "a save waited on the broker"
    recheck_id = stack.publish_eager_rule()
    assert stack.recheck(recheck_id)["state"] == "pending"
    # The new rule set already judges saves: a profile it refuses is not stored.
    refused = stack.save("eager-while-redis-down", VALID + " --enforce-eager")
    assert refused.status_code == 400 and "org-no-enforce-eager" in refused.text, refused.text
    assert stack.one("SELECT count(*) FROM profiles_profile WHERE name LIKE 'eager-%%'") == 0
    assert set(stack.reads(1)) == {200}
    # A draft's impact preview (its cache is Redis too) is computed in the request instead.
    draft = stack.staff.post(stack.url("/api/v1/rulesets/"), json={}, timeout=30).json()["id"]
    impact = stack.staff.get(stack.url(f"/api/v1/rulesets/{draft}/impact/"), timeout=60)
    assert impact.status_code == 200, impact.text
    assert impact.json()["total"] == stack.seed["profiles"] + 1

    stack.redis.start()
    # kombu 5.7 can make a worker exit on the lost connection ("Unrecoverable error: AttributeError" while
    # closing its channel); its supervisor starts it again, as here.
    stack.supervise()
    recheck = stack.wait_recheck(recheck_id)
    assert_each_profile_checked_once_and_alerted_once(stack, recheck, added=1)
