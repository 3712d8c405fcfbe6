"""Notification targets end to end: a rule publish makes a profile newly invalid; a real Celery worker posts
one signed CloudEvent to a generic webhook and one Slack-format message to a Slack target, both real HTTPS
receivers on 127.0.0.1 (allow-listed for the test). The worker is SIGKILLed while the webhook's receiver holds
the post unanswered: a new worker posts it again with the same idempotency key, so the receiver keeps one."""

from __future__ import annotations

import json

import pytest
from cryptography.fernet import Fernet
from django.contrib.auth import get_user_model

from notifications.models import Delivery
from notifications.services import target_create
from profiles.models import TeamMembership
from tests.bulk import bulk_profiles
from tests.notifications.receiver import Receiver, verify
from tests.processes import wait_for

from .test_pipeline import client_for, publish_eager_rule, wait_recheck

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def receiver(tmp_path, monkeypatch, settings):
    server = Receiver(tmp_path)
    # One vault key for this process (which stores the targets' URLs) and the workers (which read them).
    key = Fernet.generate_key().decode()
    monkeypatch.setenv("GIT_CREDENTIALS_KEY", key)
    settings.GIT_CREDENTIALS_KEY = key
    # The workers' settings (their environment): the receiver allow-listed, its certificate trusted, a
    # claim abandoned by a killed worker released after 3 s, the sweep every second.
    monkeypatch.setenv("NOTIFY_ALLOWED_HOSTS", "127.0.0.1")
    monkeypatch.setenv("NOTIFY_CA_BUNDLE", str(server.cert))
    monkeypatch.setenv("NOTIFY_CLAIM_TIMEOUT_SECONDS", "3")
    monkeypatch.setenv("NOTIFY_SWEEP_SECONDS", "1")
    monkeypatch.setenv("NOTIFY_TIMEOUT", "60")  # the held post waits for the kill, not for a time-out
    yield server
    server.close()


def test_newly_invalid_profile_posts_one_signed_webhook_and_one_slack_message_despite_a_worker_kill(
    workers, smtp, staff, team, receiver
):
    owner = get_user_model().objects.create_user("owner", "owner@example.com")
    TeamMembership.objects.create(team=team, user=owner, role="editor")
    bulk_profiles(team, [owner], 4)
    (broken,) = bulk_profiles(team, [owner], 1, eager_every=1, start=4)
    webhook, secret = target_create(
        actor=staff,
        team=team,
        name="ci",
        kind="webhook",
        url=receiver.url("/hook"),
        transitions=["newly_invalid"],
    )
    target_create(actor=staff, team=team, name="chat", kind="slack", url=receiver.url("/slack"))
    receiver.hold = "/hook"
    victim = workers.start("w1")
    staff_client = client_for(staff)

    recheck = wait_recheck(staff_client, publish_eager_rule(staff_client))
    assert recheck["newly_invalid"] == 1
    assert receiver.held.wait(60), "the webhook was never posted"
    workers.kill(victim)  # mid-delivery: posted, unanswered, not marked sent
    assert Delivery.objects.get(target=webhook).state == "sending"
    receiver.released.set()
    workers.start("w2")

    wait_for(
        lambda: (
            set(Delivery.objects.values_list("state", flat=True)) == {"sent"}
            and Delivery.objects.count() == 2
        ),
        timeout=90,
        what="both deliveries sent",
    )
    posts = receiver.to("/hook")
    assert len(posts) == 2  # the post the killed worker made, and the one after it
    events = [verify(secret, post) for post in posts]  # each signature verifies with the target's secret
    keys = {post["headers"]["Idempotency-Key"] for post in posts}
    assert keys == {event["id"] for event in events} and len(keys) == 1  # one event the receiver keeps
    event = events[0]
    assert (event["specversion"], event["type"]) == ("1.0", "io.vllm-profiles.profile.invalid")
    assert event["data"]["profile"]["id"] == broken.pk and event["data"]["transition"] == "newly_invalid"
    assert [f["rule"] for f in event["data"]["findings"]] == ["org-no-enforce-eager"]
    slack = receiver.to("/slack")
    assert len(slack) == 1
    text = json.loads(slack[0]["body"])["text"]
    assert broken.name in text and "became invalid" in text and "org-no-enforce-eager" in text
