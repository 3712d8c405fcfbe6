"""The background pipeline end to end: a real Celery worker on the real Redis, real SMTP, PostgreSQL."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from profiles.models import Alert, Recheck, TeamMembership, Verdict, VerdictChange, VerdictCheck
from profiles.services import team_add_member
from tests.bulk import bulk_profiles
from tests.conftest import SEED_COMMAND, SEED_MESSAGE_031
from tests.examples import EAGER_RULE
from tests.processes import wait_for
from validation.models import RuleSet

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


# A rule whose message carries values: vLLM-style text with placeholders, and its template filled per profile.
SPECULATION_RULE = {
    "id": "org-collection-no-speculation-031",
    "category": "policy",
    "severity": "error",
    "message": "collection profiles on vLLM {version} must not speculate (num_speculative_tokens={n})",
    "message_template": "collection profiles on vLLM {{ vllm.version }} must not speculate "
    "(num_speculative_tokens={{ args.speculative_config.num_speculative_tokens }})",
    "when": "has(args.speculative_config)",
    "versions": "<0.32.0",
    "kinds": ["collection"],
}
SPECULATION_MESSAGE_031 = "collection profiles on vLLM 0.31.0 must not speculate (num_speculative_tokens=3)"


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def wait_recheck(client, recheck_id, timeout=120):
    def done():
        body = client.get(f"/api/v1/rechecks/{recheck_id}/").json()
        return body if body["state"] == "done" else None

    return wait_for(done, timeout=timeout, what=f"re-check {recheck_id}")


def publish_eager_rule(staff_client):
    draft = staff_client.post("/api/v1/rulesets/", {}, format="json").json()["id"]
    assert staff_client.post(f"/api/v1/rulesets/{draft}/rules/", EAGER_RULE, format="json").status_code == 200
    response = staff_client.post(f"/api/v1/rulesets/{draft}/publish/")
    assert response.status_code == 202, response.content
    return response.json()["recheck"]


def test_seed_scenario_end_to_end(workers, smtp, staff, user, team):
    workers.start()
    staff_client, owner_client = client_for(staff), client_for(user)
    staff_client.put("/api/v1/fleet/", {"vllm_version": "0.32.0"}, format="json")
    draft = staff_client.post("/api/v1/rulesets/", {}, format="json").json()["id"]
    saved = staff_client.post(f"/api/v1/rulesets/{draft}/rules/", SPECULATION_RULE, format="json")
    assert saved.status_code == 200, saved.content
    published = staff_client.post(f"/api/v1/rulesets/{draft}/publish/")
    wait_recheck(staff_client, published.json()["recheck"])
    created = owner_client.post(
        "/api/v1/profiles/",
        {
            "team": team.slug,
            "name": "teacher",
            "kind": "collection",
            "command": SEED_COMMAND,
            "vllm_version": "",
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    profile_id = created.json()["id"]
    assert created.json()["state"] in ("valid", "warning")

    moved = staff_client.put("/api/v1/fleet/", {"vllm_version": "0.31.0"}, format="json")
    assert moved.status_code == 202
    recheck = wait_recheck(staff_client, moved.json()["recheck"])
    assert (recheck["total"], recheck["newly_invalid"]) == (1, 1)
    profile = owner_client.get(f"/api/v1/profiles/{profile_id}/").json()
    assert profile["state"] == "invalid"
    messages = [f["message"] for f in profile["findings"]]
    assert SEED_MESSAGE_031 in messages and SPECULATION_MESSAGE_031 in messages

    wait_for(lambda: smtp.bodies(user.email), what="the owner's alert e-mail")
    back = staff_client.put("/api/v1/fleet/", {"vllm_version": "0.32.0"}, format="json")
    recheck = wait_recheck(staff_client, back.json()["recheck"])
    assert recheck["newly_valid"] == 1
    assert owner_client.get(f"/api/v1/profiles/{profile_id}/").json()["state"] in ("valid", "warning")

    history = owner_client.get(f"/api/v1/profiles/{profile_id}/history/").json()["results"]
    causes = [(h["cause"], h["cause_detail"], h["to_state"]) for h in history]
    assert causes[0][:2] == ("release", "vLLM release 0.32.0") and causes[0][2] != "invalid"
    assert causes[1] == ("release", "vLLM release 0.31.0", "invalid")

    # Let the sweep run a few times: still exactly one e-mail for the owner, quoting vLLM's message.
    import time

    time.sleep(3)
    bodies = smtp.bodies(user.email)
    assert len(bodies) == 1
    assert SEED_MESSAGE_031 in bodies[0] and f"http://profiles.test/profiles/{profile_id}/" in bodies[0]
    # The e-mail quotes the message with the profile's values filled in, never a placeholder.
    assert SPECULATION_MESSAGE_031 in bodies[0]
    assert "{{" not in bodies[0] and "{n}" not in bodies[0] and "{version}" not in bodies[0]


def test_publish_breaking_3_of_1000_alerts_those_3_only_and_republish_sends_nothing(
    workers, smtp, staff, team
):
    owners = [get_user_model().objects.create_user(f"owner{i}", f"owner{i}@example.com") for i in range(5)]
    for owner in owners:
        team_add_member(actor=staff, team=team, user=owner)
    TeamMembership.objects.filter(team=team, user=staff).update(watch=False)
    profiles = bulk_profiles(team, owners, 997)
    broken = bulk_profiles(team, owners[:3], 3, eager_every=1, start=997)
    workers.start()
    staff_client = client_for(staff)

    recheck = wait_recheck(staff_client, publish_eager_rule(staff_client))
    assert (recheck["total"], recheck["done"], recheck["newly_invalid"]) == (1000, 1000, 3)
    assert set(Alert.objects.values_list("profile_id", flat=True)) == {p.pk for p in broken}
    wait_for(lambda: Alert.objects.filter(state="sent").count() == 3, what="3 alerts sent")
    assert sorted(m["to"][0] for m in smtp.messages) == [
        "owner0@example.com",
        "owner1@example.com",
        "owner2@example.com",
    ]
    assert Verdict.objects.filter(state="invalid").count() == 3 and len(profiles) == 997

    # Publishing the same rules again: a re-check that changes nothing and sends nothing.
    draft = staff_client.post("/api/v1/rulesets/", {}, format="json").json()["id"]
    again = wait_recheck(
        staff_client, staff_client.post(f"/api/v1/rulesets/{draft}/publish/").json()["recheck"]
    )
    assert (again["total"], again["newly_invalid"], again["newly_valid"]) == (1000, 0, 0)
    import time

    time.sleep(2)
    assert len(smtp.messages) == 3 and Alert.objects.count() == 3


def test_killing_the_worker_mid_recheck_of_10000_finishes_each_profile_once_without_duplicate_mail(
    workers, smtp, staff, team
):
    owners = [get_user_model().objects.create_user(f"o{i}", f"o{i}@example.com") for i in range(10)]
    for owner in owners:
        team_add_member(actor=staff, team=team, user=owner)
    TeamMembership.objects.filter(team=team, user=staff).update(watch=False)
    bulk_profiles(team, owners, 10_000, eager_every=99)  # 102 profiles break, spread over the 10 owners
    broken = len(range(0, 10_000, 99))
    first = workers.start("w1")
    staff_client = client_for(staff)
    recheck_id = publish_eager_rule(staff_client)

    wait_for(
        lambda: Recheck.objects.get(pk=recheck_id).done >= 1000, timeout=120, what="the re-check to start"
    )
    workers.kill(first)
    done_at_kill = Recheck.objects.get(pk=recheck_id).done
    assert done_at_kill < 10_000, "the re-check finished before the worker could be killed"

    workers.start("w2")
    recheck = wait_recheck(staff_client, recheck_id, timeout=300)
    assert (recheck["total"], recheck["done"], recheck["newly_invalid"]) == (10_000, 10_000, broken)
    assert not VerdictCheck.objects.filter(pending_recheck__isnull=False).exists()
    current = RuleSet.objects.filter(status="published").order_by("-number").first()
    assert VerdictCheck.objects.filter(ruleset=current).count() == 10_000
    # Each broken profile changed state exactly once, and got one alert.
    changes = VerdictChange.objects.filter(cause="ruleset")
    assert changes.count() == broken and changes.values("profile").distinct().count() == broken
    assert Alert.objects.count() == broken
    wait_for(lambda: Alert.objects.filter(state="sent").count() == broken, timeout=60, what="all alerts sent")
    import time

    time.sleep(2)
    recipients = [m["to"][0] for m in smtp.messages]
    assert sorted(recipients) == sorted(o.email for o in owners), "one digest per owner, none twice"
