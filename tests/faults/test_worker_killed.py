"""A Celery worker killed (SIGKILL) in the middle of a re-check: another worker finishes it, each profile is
checked once, and each alert is mailed once."""

from __future__ import annotations

import pytest

from .conftest import assert_each_profile_checked_once_and_alerted_once
from .servers import wait_for

pytestmark = pytest.mark.faults


def test_worker_killed_mid_recheck(stack):
    stack.procs.web()
    first = stack.procs.worker("w1")
    recheck_id = stack.publish_eager_rule()
    wait_for(lambda: stack.recheck(recheck_id)["done"] >= 200, timeout=60, interval=0.05, what="progress")
    stack.procs.kill(first)
    assert stack.recheck(recheck_id)["done"] < stack.seed["profiles"], "finished before the kill"

    stack.procs.worker("w2")
    recheck = stack.wait_recheck(recheck_id)
    assert_each_profile_checked_once_and_alerted_once(stack, recheck)
