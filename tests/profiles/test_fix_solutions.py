"""Issue 32, item 10: Apply-fix lets the user choose among a finding's listed solutions (a radio list on the
fix page; the API takes the solution's index) instead of always applying one of them."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from profiles.models import Profile
from profiles.services import ProfileInput, profile_create
from profiles.services.rechecks import recheck_run_inline
from tests.conftest import SEED_COMMAND
from validation.selectors import release_get
from validation.services.fleet import fleet_set_release

pytestmark = pytest.mark.django_db

RULE = "sampling-replay-no-speculative"


@pytest.fixture
def turned_invalid(user, staff, team):
    """The seed profile following the fleet on 0.32.0; the fleet then moves to 0.31.0, which refuses it."""
    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    data = {"name": "teacher", "kind": "collection", "command": SEED_COMMAND}
    profile, _ = profile_create(actor=user, team=team, data=ProfileInput.from_mapping(data))
    recheck_run_inline(fleet_set_release(release=release_get("0.31.0"), actor=staff).pk)
    return Profile.objects.get(pk=profile.pk)


@pytest.fixture
def page_client(user):
    client = Client()
    client.force_login(user)
    return client


def radios(body: str) -> list[tuple[str, bool, bool, str]]:
    """(value, checked, disabled, label text) of each solution on the fix page."""
    found = re.findall(
        r'<input type="radio" name="solution" value="(\d+)"( checked)?( disabled[^>]*)?>\s*([^<]+)', body
    )
    return [(value, bool(checked), bool(disabled), text.strip()) for value, checked, disabled, text in found]


def test_the_fix_page_lists_all_four_solutions_and_saves_the_one_chosen(page_client, turned_invalid):
    url = reverse("profiles:fix", args=[turned_invalid.pk, RULE])
    body = page_client.get(url).content.decode()
    listed = radios(body)
    assert [value for value, *_ in listed] == ["0", "1", "2", "3"]
    assert listed[0][1] and not listed[0][2]  # the rule's own fix is chosen first, as before
    assert listed[1][2] and "Run two deployments" in listed[1][3]  # by hand: disabled, with the editor
    assert "done by hand" in body
    assert "Upgrade to vLLM 0.32.0" in listed[2][3] and "pins the profile to vLLM 0.32.0" in body
    assert "disable return_sampling_mask" in listed[3][3]

    chosen = page_client.get(url, {"solution": "3"}).content.decode()
    assert [checked for _, checked, *_ in radios(chosen)] == [False, False, False, True]
    assert "return_sampling_mask" in chosen and "processed_logprobs" in chosen
    assert "Other errors remain: saving will be refused." in chosen  # said before saving, for this choice
    upgrade = page_client.get(url, {"solution": "2"}).content.decode()
    assert 'name="solution" value="2"' in upgrade.split('method="post"', 1)[1]
    assert "Save solution 3 as revision 2" in upgrade
    saved = page_client.post(url, {"revision": turned_invalid.revision, "solution": "2"})
    assert saved.status_code == 302
    turned_invalid.refresh_from_db()
    assert turned_invalid.vllm_release.version == "0.32.0" and turned_invalid.revision == 2
    assert turned_invalid.engine_args["speculative_config"]  # not solution 0's change
    assert turned_invalid.verdict.state != "invalid"


def test_the_api_lists_the_solutions_and_applies_the_one_given_by_index(api, turned_invalid):
    url = f"/api/v1/profiles/{turned_invalid.pk}/fix/"
    listed = api.get(url, {"rule": RULE}).json()
    assert [s["index"] for s in listed["solutions"]] == [0, 1, 2, 3]
    assert listed["solutions"][1]["fix"] is None
    assert listed["solutions"][2]["fix"] == {"release": "0.32.0"}
    assert api.get(url, {"rule": RULE, "solution": 2}).json()["state"] != "invalid"
    by_hand = api.post(url, {"rule": RULE, "solution": 1}, format="json")
    assert by_hand.status_code == 400 and "solution 1" in str(by_hand.json())
    missing = api.post(url, {"rule": RULE, "solution": 7}, format="json")
    assert missing.status_code == 400 and "no solution 7: this finding lists 4 (0 to 3)" in str(
        missing.json()
    )
    refused = api.post(url, {"rule": RULE, "solution": 3}, format="json")
    assert refused.status_code == 400 and refused.json()["valid"] is False  # another error remains
    removed = api.post(url, {"rule": RULE, "solution": 0, "revision": 1}, format="json")
    assert removed.status_code == 200, removed.content
    body = removed.json()
    assert "speculative_config" not in body["engine_args"] and body["revision"] == 2
    assert body["vllm_version"] == "" and body["state"] != "invalid"  # still follows the fleet
