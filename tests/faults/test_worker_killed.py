"""A Celery worker killed (SIGKILL) in the middle of a re-check batch: the other worker finishes the re-check
(the sweep revives the lost batch), each profile is checked once, and each alert is mailed once."""

from __future__ import annotations

import re

import pytest

from tests.processes import wait_for

from . import servers
from .conftest import assert_each_profile_checked_once_and_alerted_once

pytestmark = pytest.mark.faults


def test_worker_killed_mid_batch(stack):
    victim = stack.second_worker
    log = servers.LOGS / f"faults-{stack.procs.label_of(victim)}.log"

    def mid_batch() -> bool:
        text = log.read_text()
        received = re.findall(r"recheck_batch\[([\w-]+)\] received", text)
        return bool(received) and f"recheck_batch[{received[-1]}] succeeded" not in text

    held = stack.hold_back()  # the re-check cannot finish before the kill, however fast the workers are
    recheck_id = stack.publish_eager_rule()
    wait_for(mid_batch, timeout=60, interval=0.02, what="the second worker to be inside a batch")
    stack.procs.kill(victim)
    assert stack.recheck(recheck_id)["state"] != "done"
    held.close()

    recheck = stack.wait_recheck(recheck_id)
    assert_each_profile_checked_once_and_alerted_once(stack, recheck)
