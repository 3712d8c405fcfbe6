"""The profiles dashboard in a real Chromium: log in, paste a command, live findings, save, split, re-check."""

import re

import pytest
from playwright.sync_api import expect

from profiles.models import Profile
from profiles.services import ProfileInput, profile_create
from tests.browser.conftest import htmx_settled
from tests.conftest import SEED_COMMAND, SEED_MESSAGE_031

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PLAIN = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"


def make(actor, team, name, command, kind="serving", version="0.32.0"):
    data = ProfileInput.from_mapping(
        {"name": name, "kind": kind, "vllm_version": version, "command": command}
    )
    return profile_create(actor=actor, team=team, data=data)[0]


def test_log_in_and_out(browser_page, login, user, team, screenshot):
    browser_page.goto("/")
    expect(browser_page).to_have_url(re.compile(r"/accounts/login/"))
    screenshot(browser_page, "login")
    login(browser_page, user)
    header = browser_page.locator("header.site")
    expect(header).to_contain_text("ada")
    expect(header).to_contain_text("ml-platform")
    expect(header).to_contain_text("fleet vLLM")
    header.get_by_role("button", name="Log out").click()
    expect(browser_page).to_have_url(re.compile(r"/accounts/login/"))


def test_create_by_pasting_a_command_with_live_errors(user_page, screenshot):
    page = user_page
    page.goto("/profiles/new/")
    page.get_by_label("Name").fill("teacher")
    page.get_by_label("Kind").select_option("collection")
    page.get_by_label("Target vLLM release").select_option("0.31.0")
    page.get_by_label("Command or YAML").fill(SEED_COMMAND)
    live = page.locator("#live")
    expect(live).to_contain_text(SEED_MESSAGE_031)  # appears while typing, nothing saved
    expect(live.locator("tr[data-arg='speculative_config']")).to_have_class(re.compile("flag-error"))
    screenshot(page, "create-live-error")
    assert not Profile.objects.exists()

    # Saving is refused while the error remains.
    page.get_by_role("button", name="Create profile").click()
    expect(page.locator("form .error")).to_contain_text("Not saved")
    assert not Profile.objects.exists()

    # Removing speculative decoding makes the error disappear, then the profile saves.
    source = page.get_by_label("Command or YAML")
    source.fill(SEED_COMMAND.split(" --speculative-config")[0])
    expect(live).not_to_contain_text(SEED_MESSAGE_031)
    htmx_settled(page)
    expect(live.locator("[data-state]")).not_to_have_text("invalid")
    page.get_by_role("button", name="Create profile").click()
    expect(page.locator("h1")).to_contain_text("teacher")
    expect(page.locator(".messages")).to_contain_text("Created ml-platform/teacher")
    profile = Profile.objects.get(name="teacher")
    assert (
        profile.engine_args["return_sampling_mask"] is True
        and "speculative_config" not in profile.engine_args
    )
    screenshot(page, "profile-detail")


def test_edit_shows_live_error_and_saves_revision(user_page, user, team, screenshot):
    page = user_page
    profile = make(user, team, "chat", PLAIN)
    page.goto(f"/profiles/{profile.pk}/edit/")
    source = page.get_by_label("Command or YAML")
    source.fill(PLAIN + " --tensor-parallel-size zero")
    expect(page.locator("#live")).to_contain_text("cannot parse")
    source.fill(PLAIN.replace("8192", "4096"))
    expect(page.locator("#live")).not_to_contain_text("cannot parse")
    htmx_settled(page)
    screenshot(page, "edit")
    page.get_by_role("button", name="Save revision 2").click()
    expect(page.locator(".messages")).to_contain_text("Saved revision 2")
    page.locator("details.revision summary").first.click()
    expect(page.locator("table.diff").first).to_contain_text("args.max_model_len")


def test_list_filters_update_the_table_in_place(user_page, user, team, screenshot):
    page = user_page
    make(user, team, "chat", PLAIN)
    make(user, team, "teacher", SEED_COMMAND, kind="collection")
    page.goto("/")
    rows = page.locator("#results tbody tr")
    expect(rows).to_have_count(2)
    screenshot(page, "profiles-list")
    page.get_by_label("Search").fill("teach")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("teacher")
    expect(page).to_have_url(re.compile(r"q=teach"))  # hx-push-url keeps the filter in the address
    page.get_by_label("Kind").select_option("serving")
    expect(page.locator("#results")).to_contain_text("No profile matches")


def test_split_a_mixed_profile(user_page, user, team, screenshot):
    page = user_page
    mixed = make(user, team, "teacher", SEED_COMMAND, kind="collection")
    page.goto(f"/profiles/{mixed.pk}/")
    page.get_by_role("link", name=re.compile("Split into serving")).click()
    expect(page.locator(".split-part")).to_have_count(2)
    screenshot(page, "split")
    page.get_by_role("button", name="Create both profiles").click()
    expect(page.locator(".messages")).to_contain_text("teacher-serving")
    expect(page.locator("#results tbody tr")).to_have_count(2)
    serving = Profile.objects.get(name="teacher-serving")
    collection = Profile.objects.get(name="teacher-collection")
    assert "speculative_config" in serving.engine_args and "return_sampling_mask" not in serving.engine_args
    assert collection.engine_args["logprobs_mode"] == "processed_logprobs"
    assert "speculative_config" not in collection.engine_args


def test_profile_turns_invalid_when_the_fleet_moves_then_gets_fixed(user_page, user, staff, team, screenshot):
    from profiles.services.rechecks import recheck_run_inline
    from validation.selectors import release_get
    from validation.services.fleet import fleet_set_release

    page = user_page
    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    profile = make(user, team, "teacher", SEED_COMMAND, kind="collection", version="")
    page.goto(f"/profiles/{profile.pk}/")
    expect(page.locator("#profile-state")).not_to_have_text("invalid")

    recheck = fleet_set_release(release=release_get("0.31.0"), actor=staff)
    recheck_run_inline(recheck.pk)
    page.reload()
    expect(page.locator("#profile-state")).to_have_text("invalid")
    expect(page.locator(".findings-group.sev-error")).to_contain_text(SEED_MESSAGE_031)
    expect(page.locator("table.history")).to_contain_text("vLLM release changed")
    screenshot(page, "profile-invalid")

    page.goto("/?state=invalid")
    expect(page.locator("#results tbody tr")).to_have_count(1)

    page.goto(f"/profiles/{profile.pk}/")
    page.locator("article[data-rule='sampling-replay-no-speculative']").get_by_role(
        "link", name="Apply fix…"
    ).click()
    expect(page.locator("table.diff")).to_contain_text("speculative_config")
    screenshot(page, "fix-preview")
    page.get_by_role("button", name="Save solution 1 as revision 2").click()
    expect(page.locator("#profile-state")).not_to_have_text("invalid")
