"""The scheduled team summary: the team's profiles by state, the next vLLM release's breakage, the waivers
about to expire; mailed to the team's watchers and posted to its targets, once per period."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from notifications import services, summary
from notifications.models import Delivery
from profiles.models import TeamMembership, Waiver
from tests.bulk import bulk_profiles

pytestmark = pytest.mark.django_db


def test_a_weekly_summary_is_mailed_and_posted_once_per_period(staff, user, team, receiver):
    TeamMembership.objects.filter(team=team, user=user).update(watch=True)
    profiles = bulk_profiles(team, [user], 3)
    Waiver.objects.create(
        profile=profiles[0],
        rule_id="org-no-enforce-eager",
        reason="migration",
        requested_by=user,
        granted_by=staff,
        granted_at=timezone.now(),
        expires_at=timezone.now() + timedelta(days=2),
    )
    target, _ = services.target_create(
        actor=staff, team=team, name="chat", kind="slack", url=receiver.url("/s"), transitions=["summary"]
    )
    mail.outbox.clear()

    assert summary.send_all("2026-W49") == 1
    (message,) = mail.outbox
    assert (
        message.bcc == ["ada@example.com", "sam@example.com"]
        and "ml-platform: summary of 2026-W49" in message.subject
    )
    assert "3 profiles (3 valid)" in message.body
    assert f"org-no-enforce-eager for {profiles[0].name}" in message.body
    (delivery,) = Delivery.objects.filter(target=target, event_type="summary")
    assert services.deliver(delivery.pk) == "sent"
    (post,) = receiver.to("/s")
    assert json.loads(post["body"])["text"] == message.body

    assert summary.send_all("2026-W49") == 0  # the same period again: nothing more
    assert len(mail.outbox) == 1 and Delivery.objects.count() == 1
    assert summary.send_all("2026-W50") == 1  # the next one
