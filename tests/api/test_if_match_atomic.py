"""If-Match is atomic with the write it guards: the ETag is checked again by the service under the resource's
row lock. Two writers that read one ETag: the one that waits for the other's transaction gets 412, and its
write is not applied, for rule-set drafts, a profile's waivers, teams and the fleet (profiles: the revision).

Each test holds the row in an open transaction (a concurrent writer between its check and its commit), sends
the stale write over HTTP from another thread, waits until PostgreSQL shows that request waiting for the lock,
then commits: checked only in the view, the request would already have passed its check and would be applied."""

from __future__ import annotations

import datetime as dt
import io
import threading
import time

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone

from profiles.models import TeamMembership, Waiver
from profiles.services import ProfileInput, profile_create, team_add_member
from profiles.services.waivers import waiver_request
from tests.api.test_conditional import _http
from tests.conftest import SEED_COMMAND
from tests.examples import EAGER_RULE
from validation.models import Rule
from validation.selectors import fleet_release, release_get
from validation.services.fleet import fleet_set_release
from validation.services.rulesets import rule_save, ruleset_draft_create

pytestmark = pytest.mark.django_db(transaction=True)


def _key(user) -> str:
    out = io.StringIO()
    call_command("create_api_token", user.username, stdout=out)
    return out.getvalue().strip().split()[-1]


def _blocked_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
        return cursor.fetchone()[0] > 0


def _race(concurrent_change, stale_write):
    """``concurrent_change`` inside an open transaction; ``stale_write`` sent meanwhile; its answer once the
    transaction commits. Asserts that the request did wait for the lock."""
    answers: list = []
    with transaction.atomic():
        concurrent_change()
        thread = threading.Thread(target=lambda: answers.append(stale_write()))
        thread.start()
        deadline = time.monotonic() + 30
        while not _blocked_on_a_lock() and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        waited = thread.is_alive()
    thread.join(60)
    assert answers, "the request did not finish"
    return waited, answers[0]


def test_team_member_added_with_a_stale_etag_waits_then_412(live_server, staff, team, outsider):
    url = f"{live_server.url}/api/v1/teams/{team.slug}/"
    key = _key(staff)
    _, headers, _ = _http("GET", url, key)
    other = type(staff).objects.create_user("bob", "bob@example.com", "pw")

    waited, (code, _, body) = _race(
        lambda: team_add_member(actor=staff, team=team, user=other, role=TeamMembership.Role.VIEWER),
        lambda: _http(
            "POST",
            url + "members/",
            key,
            {"username": outsider.username, "role": "viewer"},
            headers=[("If-Match", headers["ETag"])],
        ),
    )
    assert waited
    assert code == 412, body
    assert not TeamMembership.objects.filter(team=team, user=outsider).exists()
    assert TeamMembership.objects.filter(team=team, user=other).exists()


def test_waiver_requested_with_a_stale_etag_waits_then_412(live_server, staff, team, user):
    profile, _ = profile_create(
        actor=staff,
        team=team,
        data=ProfileInput.from_mapping(
            {"name": "llama", "kind": "serving", "vllm_version": "0.32.0", "command": SEED_COMMAND}
        ),
    )
    url = f"{live_server.url}/api/v1/profiles/{profile.pk}/waivers/"
    key = _key(user)
    _, headers, _ = _http("GET", url, key)
    expires = timezone.now() + dt.timedelta(days=30)

    waited, (code, _, body) = _race(
        lambda: waiver_request(
            actor=staff, profile=profile, rule_id="policy-a", reason="first", expires_at=expires
        ),
        lambda: _http(
            "POST",
            url,
            key,
            {"rule_id": "policy-b", "reason": "second", "expires_at": expires.isoformat()},
            headers=[("If-Match", headers["ETag"])],
        ),
    )
    assert waited
    assert code == 412, body
    assert list(Waiver.objects.filter(profile=profile).values_list("rule_id", flat=True)) == ["policy-a"]


def test_draft_rule_saved_with_a_stale_etag_waits_then_412(live_server, staff):
    draft = ruleset_draft_create(actor=staff)
    url = f"{live_server.url}/api/v1/rulesets/{draft.pk}/"
    key = _key(staff)
    _, headers, _ = _http("GET", url, key)

    waited, (code, _, body) = _race(
        lambda: rule_save(ruleset=draft, data={**EAGER_RULE, "id": "org-first"}, actor=staff),
        lambda: _http("POST", url + "rules/", key, EAGER_RULE, headers=[("If-Match", headers["ETag"])]),
    )
    assert waited
    assert code == 412, body
    assert Rule.objects.filter(ruleset=draft, rule_id="org-first").exists()
    assert not Rule.objects.filter(ruleset=draft, rule_id=EAGER_RULE["id"]).exists()


def test_fleet_moved_with_a_stale_etag_waits_then_412(live_server, staff):
    url = f"{live_server.url}/api/v1/fleet/"
    key = _key(staff)
    _, headers, _ = _http("GET", url, key)
    current = fleet_release().version
    first, second = [v for v in ("0.31.0", "0.33.0", "0.34.0") if v != current][:2]

    waited, (code, _, body) = _race(
        lambda: fleet_set_release(release=release_get(first), actor=staff),
        lambda: _http("PUT", url, key, {"vllm_version": second}, headers=[("If-Match", headers["ETag"])]),
    )
    assert waited
    assert code == 412, body
    assert fleet_release().version == first
