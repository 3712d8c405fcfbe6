"""Daily use, second pass, in a real Chromium: charts that read at a glance (axes, ticks, a numeric position
for every label, values on the columns), the re-check page filling in by itself, "try it" in the rule editor,
the import result linking to what it created, and the API docs reachable from the header and back.
Screenshots go to artifacts/screenshots/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from profiles.services import ProfileInput, profile_create
from profiles.services.rechecks import recheck_run_inline, recheck_start
from tests.browser.conftest import SCREENSHOTS
from validation.selectors import release_get
from validation.services import rulesets
from validation.services.fleet import fleet_set_release

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def make(actor, team, name, command, kind="serving", version=""):
    data = ProfileInput.from_mapping(
        {"name": name, "kind": kind, "vllm_version": version, "command": command}
    )
    return profile_create(actor=actor, team=team, data=data)[0]


def assert_readable_chart(chart) -> None:
    """Every label at a numeric position (none at y="", which drew them all at the top), and two axes."""
    texts = chart.locator("text")
    assert texts.count() > 0
    positions = texts.evaluate_all("els => els.map(e => [e.getAttribute('x'), e.getAttribute('y')])")
    for x, y in positions:
        assert x is not None and NUMBER.match(x), positions
        assert y is not None and NUMBER.match(y), positions
    assert chart.locator("line.axis-line").count() >= 2
    assert chart.locator("text.tick").count() >= 2


def test_charts_have_axes_and_labels_and_the_recheck_page_updates_itself(
    staff_page, staff, user, team, screenshot
):
    from tests.conftest import SEED_COMMAND

    page = staff_page
    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    make(user, team, "teacher", SEED_COMMAND, kind="collection")
    for i in range(3):
        make(user, team, f"plain-{i}", "vllm serve meta-llama/Llama-3.1-8B-Instruct")
    for _ in range(2):
        recheck_run_inline(recheck_start(cause="manual").pk)

    # The re-check page: opened while the re-check waits, it fills in by itself when the re-check is done.
    recheck = fleet_set_release(release=release_get("0.31.0"), actor=staff)
    page.goto(f"/rechecks/{recheck.pk}/")
    expect(page.locator("#recheck-changes")).to_contain_text("fills in by itself")
    recheck_run_inline(recheck.pk)
    expect(page.locator(f"#recheck-{recheck.pk}")).to_have_attribute("data-state", "done")
    expect(page.locator("#changes")).to_contain_text(f"{team.slug}/teacher")
    expect(page.locator("#tab-invalid .badge")).to_have_text("1")
    screenshot(page, "daily-recheck-updated")

    page.goto("/releases/")
    chart = page.locator("svg.recheck-bars")
    expect(chart).to_be_visible()
    assert_readable_chart(chart)
    expect(chart.locator("text.value").first).to_have_text(re.compile(r"^\d+(\.\d+)? s$"))
    page.locator("#h-rechecks").scroll_into_view_if_needed()
    screenshot(page, "daily-recheck-chart")

    # The alerts chart of the user whose profile became invalid.
    page.context.clear_cookies()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill("pw")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    page.goto("/alerts/")
    weeks = page.locator("svg.week-bars")
    expect(weeks).to_be_visible()
    assert_readable_chart(weeks)
    expect(weeks.locator("g.week-bar").last.locator("text.value")).to_have_text("1")
    screenshot(page, "daily-alerts-chart")


def test_try_a_condition_on_a_stored_profile_in_the_rule_editor(staff_page, staff, team, screenshot):
    page = staff_page
    make(staff, team, "big-batch", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 512")
    draft = rulesets.ruleset_draft_create(actor=staff)
    page.goto(f"/rulesets/{draft.number}/rules/new/")
    expect(page.locator("details.more-fields")).not_to_have_attribute("open", "")
    page.get_by_label("Rule id").fill("org-max-seqs")
    page.get_by_label("Message").fill("keep max_num_seqs at 256 or below")
    page.get_by_label("When (CEL)").fill("has(args.max_num_seqs) && args.max_num_seqs > 256")
    page.get_by_label("Stored profile").select_option(label=f"{team.slug}/big-batch")
    page.get_by_role("button", name="Try it").click()
    outcome = page.locator("#try-outcome")
    expect(outcome).to_have_attribute("data-outcome", "true")
    expect(outcome).to_contain_text("keep max_num_seqs at 256 or below")
    outcome.locator("summary", has_text="The document it read").click()
    expect(page.locator("#try-document")).to_contain_text('"max_num_seqs": 512')
    screenshot(page, "daily-rule-try-true")

    page.get_by_label("When (CEL)").fill("has(args.max_num_seqs) && args.max_num_seqs > 1024")
    page.get_by_role("button", name="Try it").click()
    expect(page.locator("#try-outcome")).to_have_attribute("data-outcome", "false")
    assert not draft.rules.filter(rule_id="org-max-seqs").exists()  # trying saves nothing

    with page.context.expect_page() as opened:
        page.get_by_role("link", name="the profile document").click()
    reference = opened.value
    expect(reference.locator("#doc-args")).to_contain_text("args.max_num_seqs")
    expect(reference.locator("#doc-derived")).to_contain_text("derived.")
    reference.screenshot(path=str(SCREENSHOTS / "daily-document-reference.png"))  # its first screen


def test_import_result_links_to_the_imported_profile(user_page, team, screenshot):
    from tests.profiles.test_import_page import HF_SECRET

    page = user_page
    page.goto("/profiles/import/")
    page.get_by_label("Manifests or Helm values").fill(HF_SECRET)
    page.get_by_role("button", name="Import").click()
    result = page.locator("#imported")
    expect(result).to_contain_text("Imported 1 profile")
    expect(result).to_contain_text("HF_TOKEN comes from Secret hf-secret, key token: value not visible here")
    screenshot(page, "daily-import-result")
    result.get_by_role("link", name=f"{team.slug}/chat").click()
    expect(page.locator("h1")).to_contain_text("chat")
    expect(page.locator("#node-type")).to_contain_text("comes from the manifest")
    screenshot(page, "daily-imported-profile")


def test_header_links_to_the_api_docs_and_back_and_the_token_form_is_open(staff_page, screenshot):
    page = staff_page  # the longest header: staff, with the audit link and a team it administers
    header = page.locator("header.site")
    box = header.bounding_box()
    assert box is not None and box["height"] < 60, box  # one line at 1360 px
    screenshot(page, "daily-header")
    page.get_by_role("link", name="API tokens").click()
    expect(page.locator("details#new-token")).to_have_attribute("open", "")  # no token yet
    header.get_by_role("link", name="API docs").click()
    expect(page).to_have_url(re.compile(r"/api/docs/$"))
    expect(page.get_by_text("vLLM Profiles API").first).to_be_visible()
    expect(page.locator(".swagger-ui .opblock").first).to_be_visible()  # the operations, not the spinner
    screenshot(page, "daily-api-docs")
    page.get_by_role("link", name="← vLLM Profiles").click()
    expect(page.locator("header.site")).to_be_visible()
