"""Issue 32, item 9: the fleet-move confirmation counts what the move's re-check then counts, from the same
sets (pinned profiles apart), and its button says when profiles will break."""

import re

import pytest

from profiles.models import Recheck
from profiles.selectors import recheck_change_counts
from profiles.services import ProfileInput, profile_create
from profiles.services.rechecks import recheck_run_inline
from tests.conftest import SEED_COMMAND
from validation.selectors import release_get
from validation.services.fleet import fleet_set_release

pytestmark = pytest.mark.django_db


def make(user, team, name, command="vllm serve m", kind="serving", version=""):
    data = {"name": name, "kind": kind, "command": command, "vllm_version": version}
    return profile_create(actor=user, team=team, data=ProfileInput.from_mapping(data))[0]


@pytest.fixture
def fleet(user, team, staff):
    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    Recheck.objects.all().delete()
    make(user, team, "teacher", command=SEED_COMMAND, kind="collection")  # follows: breaks on 0.31.0
    make(user, team, "plain")  # follows: stays as it is
    make(user, team, "pinned-here", version="0.31.0")  # pinned to the target: re-checked, not moved
    make(user, team, "pinned-away", version="0.32.0")  # pinned to another release: left alone


def numbers(text: str) -> dict[str, int]:
    """Every number the confirmation's summary and count boxes show, by what it counts."""
    summary = re.sub(r"\s+", " ", text.split('id="fleet-summary">', 1)[1].split("</p>", 1)[0])
    summary = re.sub(r"<[^>]+>", "", summary)
    found = {
        "checked": r"re-checks (\d+) profile",
        "follows": r"(\d+) that follows? the fleet",
        "pinned_here": r"and (\d+) pinned to vLLM",
        "invalid": r"(\d+) will become invalid",
        "valid": r"(\d+) will become valid",
        "findings": r"(\d+) will have other findings",
        "unchanged": r"(\d+) will stay as they are",
        "not_affected": r"(\d+) profiles? pinned to another release",
    }
    values = {key: int(re.search(pattern, summary).group(1)) for key, pattern in found.items()}
    boxes = {
        "box_" + key: int(re.search(rf'id="count-{key}"><strong[^>]*>(\d+)<', text).group(1))
        for key in ("invalid", "valid", "changed", "unchanged", "checked", "not-affected")
    }
    return {**values, **boxes}


def test_every_number_of_the_fleet_preview_is_the_recheck_s_after_the_move(client, staff, fleet):
    client.force_login(staff)
    page = client.get("/releases/fleet/confirm/", {"release": "0.31.0"}).content.decode()
    shown = numbers(page)
    assert shown == {
        "checked": 3,
        "follows": 2,
        "pinned_here": 1,
        "invalid": 1,
        "valid": 0,
        "findings": 0,
        "unchanged": 2,
        "not_affected": 1,
        "box_invalid": 1,
        "box_valid": 0,
        "box_changed": 0,
        "box_unchanged": 2,
        "box_checked": 3,
        "box_not-affected": 1,
    }
    # The confirm is the page's primary action, red when profiles will break, and says how many.
    button = re.search(r'<button type="submit" class="([^"]+)" id="fleet-move">([^<]+)</button>', page)
    assert button.group(1) == "primary danger"
    assert button.group(2) == "Move the fleet to vLLM 0.31.0: 1 profile will break"

    moved = client.post("/releases/fleet/", {"release": "0.31.0"})
    assert moved.status_code == 302
    recheck = Recheck.objects.get()
    recheck_run_inline(recheck.pk)
    recheck.refresh_from_db()
    changes = recheck_change_counts(recheck)
    assert (recheck.total, recheck.done) == (shown["checked"], shown["checked"])
    assert recheck.newly_invalid == changes["invalid"] == shown["invalid"]
    assert recheck.newly_valid == changes["valid"] == shown["valid"]
    assert changes["findings"] == shown["findings"]
    assert recheck.total - sum(changes.values()) == shown["unchanged"]
    progress = client.get(moved["Location"]).content.decode()
    assert f"{shown['checked']} / {shown['checked']}</span> profiles checked" in progress


def test_the_move_button_is_primary_but_not_red_when_nothing_breaks(client, staff, user, team):
    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    make(user, team, "plain")
    client.force_login(staff)
    page = client.get("/releases/fleet/confirm/", {"release": "0.31.0"}).content.decode()
    button = re.search(r'<button type="submit" class="([^"]+)" id="fleet-move">([^<]+)</button>', page)
    assert (button.group(1), button.group(2)) == ("primary", "Move the fleet to vLLM 0.31.0")
    assert "1 that follows the fleet" in re.sub(r"\s+", " ", page)
