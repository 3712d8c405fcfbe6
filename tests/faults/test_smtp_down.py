"""The SMTP server down while alerts are due, for longer than the digest task's retries: no alert is given up,
and once the server is back each owner gets one digest naming each of their newly invalid profiles once."""

from __future__ import annotations

import pytest

from tests.processes import wait_for

from .conftest import assert_each_profile_checked_once_and_alerted_once

pytestmark = pytest.mark.faults

MAX_ATTEMPTS = 5  # profiles.services.alerts.MAX_ATTEMPTS


def test_smtp_down_while_alerts_are_due(stack):
    stack.smtp.stop()
    recheck = stack.wait_recheck(stack.publish_eager_rule())
    wait_for(
        lambda: stack.one("SELECT min(attempts) FROM validation_alert") > MAX_ATTEMPTS,
        timeout=60,
        what="more failed sends than the digest task retries",
    )
    assert stack.one("SELECT count(*) FROM validation_alert WHERE state IN ('sent', 'failed')") == 0
    assert set(stack.reads(1)) == {200}

    stack.smtp.start()
    assert_each_profile_checked_once_and_alerted_once(stack, recheck)
