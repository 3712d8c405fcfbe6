"""Issue 32 ("Daily use, second pass"), items 1, 9 and 10, as a new user meets them in Chromium."""

import re

import pytest
from django.apps import apps
from playwright.sync_api import expect

from profiles.models import Profile, Recheck
from profiles.services import ProfileInput, profile_create
from profiles.services.rechecks import recheck_run_inline
from tests.browser.conftest import htmx_settled
from tests.conftest import SEED_COMMAND, SEED_MESSAGE_031
from validation.selectors import release_get
from validation.services.fleet import fleet_set_release

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LLAMA = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096"


def table_counts() -> dict[str, int]:
    return {
        model._meta.db_table: model._base_manager.count()
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    }


def make(actor, team, name, command=LLAMA, kind="serving", version=""):
    data = {"name": name, "kind": kind, "vllm_version": version, "command": command}
    return profile_create(actor=actor, team=team, data=ProfileInput.from_mapping(data))[0]


def test_typing_into_the_new_profile_form_and_a_refused_save_store_nothing(user_page, screenshot):
    """Item 1: the live check while typing, and a save refused for an error, leave every table as it was."""
    page = user_page
    page.goto("/profiles/new/")
    before = table_counts()
    page.get_by_label("Kind").select_option("collection")
    page.get_by_label("Target vLLM release").select_option("0.31.0")
    page.get_by_label("Command or YAML").press_sequentially(SEED_COMMAND.replace("meta-llama", "org-typed"))
    live = page.locator("#live")
    expect(live).to_contain_text(SEED_MESSAGE_031)
    htmx_settled(page)
    assert table_counts() == before
    page.get_by_label("Name").fill("teacher")
    page.get_by_role("button", name="Create profile").click()
    expect(page.locator("form .error")).to_contain_text("Not saved")
    assert table_counts() == before
    screenshot(page, "daily2-dry-run-stores-nothing")
    page.goto("/models/")
    expect(page.locator("main")).not_to_contain_text("org-typed")


def test_the_release_select_says_what_pinning_means_and_the_fleet_move_counts_add_up(
    staff_page, staff, team, screenshot
):
    """Item 9: the form explains pinning; the confirmation's numbers are the re-check's; its button is the
    page's primary action, red when profiles will break."""
    page = staff_page
    page.goto("/profiles/new/")
    select = page.get_by_label("Target vLLM release")
    expect(select).to_have_value("")
    expect(select.locator("option:checked")).to_have_text(re.compile(r"^follow the fleet \("))
    expect(select.locator("option[value='0.33.0']")).to_have_text("0.33.0 (pinned: not moved with the fleet)")
    expect(page.locator("#id_vllm_version-help")).to_contain_text("out of the fleet's re-checks")
    screenshot(page, "daily2-release-select")

    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    Recheck.objects.all().delete()
    make(staff, team, "teacher", SEED_COMMAND, kind="collection")
    make(staff, team, "follower")
    make(staff, team, "pinned-away", version="0.32.0")
    page.goto("/releases/fleet/confirm/?release=0.31.0")
    summary = page.locator("#fleet-summary")
    expect(summary).to_contain_text("The move re-checks 2 profiles on vLLM 0.31.0: 2 that follow the fleet.")
    expect(summary).to_contain_text("1 will become invalid")
    expect(summary).to_contain_text("1 will stay as they are")
    expect(page.locator("#count-checked strong")).to_have_text("2")
    button = page.locator("#fleet-move")
    expect(button).to_have_text("Move the fleet to vLLM 0.31.0: 1 profile will break")
    expect(button).to_have_class("primary danger")
    assert button.evaluate("b => getComputedStyle(b).backgroundColor") == "rgb(176, 0, 32)"
    screenshot(page, "daily2-fleet-confirm")
    button.click()
    expect(page).to_have_url(re.compile(r"/rechecks/\d+/$"))
    recheck = Recheck.objects.get(cause="release")
    recheck_run_inline(recheck.pk)
    progress = page.locator(f"#recheck-{recheck.pk}")
    expect(progress).to_have_attribute("data-state", "done", timeout=60_000)
    expect(progress).to_contain_text("2 / 2")
    expect(progress).to_contain_text("1 newly invalid")


def test_a_missing_name_is_offered_from_the_model_and_a_fix_solution_is_chosen(
    user_page, user, staff, team, screenshot
):
    """Item 10: no "cannot parse" for a missing name, a name made from the model in one click; on the fix
    page the user picks which of the listed solutions is applied."""
    page = user_page
    page.goto("/profiles/new/")
    page.get_by_label("Command or YAML").fill(LLAMA)
    live = page.locator("#live")
    expect(live.locator("#name-suggestion")).to_contain_text("No name yet: llama-3-1-8b-instruct")
    expect(live).not_to_contain_text("cannot parse")
    expect(live.locator("[data-state]")).to_have_text("valid")
    screenshot(page, "daily2-name-suggestion")
    live.get_by_role("button", name="Use llama-3-1-8b-instruct").click()
    expect(page.get_by_label("Name")).to_have_value("llama-3-1-8b-instruct")
    expect(live.locator("#name-suggestion")).to_have_count(0)
    page.get_by_role("button", name="Create profile").click()
    expect(page).to_have_url(re.compile(r"/profiles/\d+/$"))
    assert Profile.objects.filter(name="llama-3-1-8b-instruct").exists()

    # The seed profile follows the fleet on 0.32.0; the fleet moves to 0.31.0, which refuses it.
    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    teacher = make(user, team, "teacher", SEED_COMMAND, kind="collection")
    recheck_run_inline(fleet_set_release(release=release_get("0.31.0"), actor=staff).pk)
    page.goto(f"/profiles/{teacher.pk}/fix/sampling-replay-no-speculative/")
    solutions = page.locator("#solutions input[type=radio]")
    expect(solutions).to_have_count(4)
    expect(solutions.nth(0)).to_be_checked()
    expect(solutions.nth(1)).to_be_disabled()  # "Run two deployments": done by hand
    upgrade = page.locator("#solutions label").nth(2)
    expect(upgrade).to_contain_text("Upgrade to vLLM 0.32.0")
    expect(upgrade).to_contain_text("pins the profile to vLLM 0.32.0: not moved with the fleet")
    solutions.nth(2).check()
    page.get_by_role("button", name="Show what this solution changes").click()
    expect(page).to_have_url(re.compile(r"\?solution=2$"))
    expect(page.locator("#solutions input[type=radio]").nth(2)).to_be_checked()
    screenshot(page, "daily2-fix-solutions")
    page.get_by_role("button", name=re.compile(r"^Save solution 3 as revision 2")).click()
    expect(page).to_have_url(re.compile(rf"/profiles/{teacher.pk}/$"))
    teacher.refresh_from_db()
    assert teacher.vllm_release.version == "0.32.0" and "speculative_config" in teacher.engine_args
