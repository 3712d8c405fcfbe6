"""PostgreSQL restarted (every connection cut) in the middle of a re-check, and while an alert is on its way to
the SMTP server: the re-check finishes with each profile checked once, each alert is mailed once, and the web
process answers reads and validated saves as soon as the database is back, with no failed request."""

from __future__ import annotations

import pytest

from tests.processes import wait_for

from .conftest import assert_each_profile_checked_once_and_alerted_once

pytestmark = pytest.mark.faults

VALID = "vllm serve org/model --max-model-len 8192"
UNKNOWN_FLAG = "vllm serve org/model --max-model-lenn 8192"


def test_postgres_restarted_mid_recheck(stack):
    assert set(stack.reads(1)) == {200}  # every web thread holds a database connection now
    stack.hold_back()  # the restart cuts this connection too, and so lets the last 50 verdicts go
    recheck_id = stack.publish_eager_rule()
    wait_for(lambda: stack.recheck(recheck_id)["done"] >= 200, timeout=60, interval=0.05, what="progress")
    stack.pg.restart()
    assert stack.recheck(recheck_id)["state"] != "done"

    # The web process answers at once: no request fails on a connection the restart broke.
    assert set(stack.reads()) == {200}
    saved = stack.save("after-restart", VALID)
    assert saved.status_code == 201, saved.text
    refused = stack.save("after-restart-bad", UNKNOWN_FLAG)
    assert refused.status_code == 400, refused.text
    assert "--max-model-lenn" in refused.text

    recheck = stack.wait_recheck(recheck_id)
    assert_each_profile_checked_once_and_alerted_once(stack, recheck)


def test_postgres_restarted_while_an_alert_is_being_sent(stack):
    stack.smtp.hold = True  # the first digest waits for the server's answer to its DATA
    recheck = stack.wait_recheck(stack.publish_eager_rule())
    wait_for(lambda: stack.smtp.holding, timeout=30, interval=0.05, what="a digest on its way")
    stack.pg.restart()  # the worker's connection is gone while the SMTP server accepts the message
    stack.smtp.hold = False
    assert_each_profile_checked_once_and_alerted_once(stack, recheck)
