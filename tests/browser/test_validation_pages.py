"""The rule-set, release and alert pages in a real Chromium: draft a rule (a CEL typo is shown on its field),
look at the impact, publish after the confirmation, watch the re-check reach done, then the releases,
upgrade preview and alerts pages. Screenshots go to artifacts/screenshots/."""

import re

import pytest
from playwright.sync_api import expect

from profiles.models import Recheck
from profiles.services import ProfileInput, profile_create
from profiles.services.rechecks import recheck_run_inline
from tests.browser.conftest import SCREENSHOTS
from validation.models import RuleSet
from validation.selectors import release_get
from validation.services.fleet import fleet_set_release

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MESSAGE = "production profiles must not disable CUDA graphs (--enforce-eager)"


def viewport_shot(page, name):
    """A rule set's page holds ~130 rules, taller than Chromium can capture at once: the visible part."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def make(actor, team, name, command, kind="serving", version=""):
    data = ProfileInput.from_mapping(
        {"name": name, "kind": kind, "vllm_version": version, "command": command}
    )
    return profile_create(actor=actor, team=team, data=data)[0]


def test_draft_impact_publish_and_live_progress(staff_page, staff, team, screenshot):
    page = staff_page
    for i in range(3):
        make(staff, team, f"eager-{i}", "vllm serve meta-llama/Llama-3.1-8B-Instruct --enforce-eager")
    make(staff, team, "plain", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192")

    page.goto("/rulesets/")
    expect(page.locator("table")).to_contain_text("current")
    page.get_by_label("Notes").fill("no eager mode in production")
    page.get_by_role("button", name="Create draft").click()
    draft = RuleSet.objects.get(status="draft")
    expect(page).to_have_url(re.compile(rf"/rulesets/{draft.number}/$"))

    # A CEL typo stays on the form, on the "when" field, and nothing is saved.
    page.get_by_role("link", name="Add a rule").click()
    page.get_by_label("Rule id").fill("org-no-enforce-eager")
    page.locator("details.more-fields > summary").click()  # the fields past the first four
    page.get_by_label("Category").select_option("policy")
    page.get_by_label("Severity").select_option("error")
    page.get_by_label("Message").fill(MESSAGE)
    page.get_by_label("When (CEL)").fill("has(args.enforce_eager) &&& args.enforce_eager")
    page.get_by_label("serving").check()
    page.get_by_label("Solutions").fill("Remove --enforce-eager")
    page.get_by_role("button", name="Save rule").click()
    expect(page.locator("#field-when .errorlist")).to_contain_text("org-no-enforce-eager")
    screenshot(page, "validation-rule-cel-error")
    assert not draft.rules.filter(rule_id="org-no-enforce-eager").exists()

    page.get_by_label("When (CEL)").fill("has(args.enforce_eager) && args.enforce_eager == true")
    page.get_by_role("button", name="Save rule").click()
    rule = page.locator("#rule-org-no-enforce-eager")
    expect(rule).to_contain_text(MESSAGE)
    expect(rule.locator("pre code")).to_contain_text("args.enforce_eager == true")
    rule.scroll_into_view_if_needed()
    viewport_shot(page, "validation-ruleset-draft")

    page.get_by_role("link", name="Impact on stored profiles").click()
    expect(page.locator("#count-invalid strong")).to_have_text("3")
    expect(page.locator("main")).to_contain_text("ml-platform/eager-0")
    screenshot(page, "validation-impact")

    page.get_by_role("link", name=re.compile(r"Publish rule set")).click()
    expect(page.locator("#publish-summary")).to_contain_text("3 profiles will become invalid")
    screenshot(page, "validation-publish-confirm")
    page.get_by_role("button", name=f"Publish rule set {draft.number}").click()
    expect(page).to_have_url(re.compile(r"/rechecks/\d+/$"))
    recheck = Recheck.objects.get(ruleset=draft)
    progress = page.locator(f"#recheck-{recheck.pk}")
    expect(progress).to_have_attribute("data-state", re.compile("pending|running"))

    # The worker's part, in this process; the page polls the fragment until it says done.
    recheck_run_inline(recheck.pk)
    expect(progress).to_have_attribute("data-state", "done", timeout=60_000)
    expect(progress).to_contain_text("4 / 4")
    expect(progress).to_contain_text("3 newly invalid")
    screenshot(page, "validation-recheck-done")

    # The rule set is now current and read-only.
    page.goto(f"/rulesets/{draft.number}/")
    expect(page.locator("h1")).to_contain_text("current")
    expect(page.get_by_role("link", name="Add a rule")).to_have_count(0)
    viewport_shot(page, "validation-ruleset")

    # The owner's alerts.
    page.goto("/alerts/")
    expect(page.locator("table")).to_contain_text(MESSAGE)
    expect(page.locator("table")).to_contain_text("rule set published")
    page.get_by_role("button", name="Turn e-mail alerts off").click()
    expect(page.locator("#email-alerts-state")).to_have_text("off")
    screenshot(page, "validation-alerts")


def test_releases_upgrade_preview_equals_the_fleet_change_with_a_pinned_profile(
    staff_page, staff, team, screenshot
):
    """The upgrade preview with a profile pinned to another release present predicts exactly what the
    confirmed fleet change then does; the re-check page names and links the profile that changed."""
    page = staff_page
    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    Recheck.objects.all().delete()
    seed = (
        "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve meta-llama/Llama-3.1-8B-Instruct --return-sampling-mask "
        "--logprobs-mode processed_logprobs "
        '--speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\''
    )
    teacher = make(staff, team, "teacher", seed, kind="collection")
    make(staff, team, "pinned-teacher", seed, kind="collection", version="0.32.0")
    make(staff, team, "follower", "vllm serve meta-llama/Llama-3.1-8B-Instruct")

    page.goto("/releases/")
    expect(page.locator("#release-0\\.31\\.0")).to_contain_text("imported")
    screenshot(page, "validation-releases")

    page.locator("#release-0\\.31\\.0").get_by_role("link", name="upgrade preview").click()
    expect(page.locator("#count-invalid strong")).to_have_text("1")
    expect(page.locator("#count-not-affected strong")).to_have_text("1")
    expect(page.locator("main")).to_contain_text(
        "sampling distribution replay does not support speculative decoding"
    )
    expect(page.locator("#not-affected + p + table")).to_contain_text("ml-platform/pinned-teacher")
    predicted = {
        href
        for href in page.locator("h2:has-text('Would become invalid') + table a").evaluate_all(
            "links => links.map(a => a.getAttribute('href'))"
        )
    }
    assert predicted == {f"/profiles/{teacher.pk}/"}
    screenshot(page, "validation-upgrade-preview")

    page.goto("/releases/diff/?old=0.31.0&new=0.32.0")
    expect(page.locator("h1")).to_contain_text("0.31.0 → 0.32.0")
    screenshot(page, "validation-release-diff")

    page.goto("/releases/0.32.0/coverage/")
    expect(page.locator("main")).to_contain_text("raise-sites")
    screenshot(page, "validation-release-coverage")

    # Staff move the fleet: first a confirmation with the preview's counts, nothing changed yet.
    page.goto("/releases/")
    page.get_by_label("Fleet default vLLM release").select_option("0.31.0")
    page.get_by_role("button", name="Change the fleet default").click()
    expect(page).to_have_url(re.compile(r"/releases/fleet/confirm/\?release=0\.31\.0$"))
    summary = page.locator("#fleet-summary")
    expect(summary).to_contain_text("1 will become invalid")
    expect(summary).to_contain_text("1 profile pinned to another release is not re-checked and not moved")
    assert not Recheck.objects.exists()
    screenshot(page, "validation-fleet-confirm")
    page.get_by_role("button", name="Move the fleet to vLLM 0.31.0").click()
    expect(page).to_have_url(re.compile(r"/rechecks/\d+/$"))
    recheck = Recheck.objects.get(cause="release")
    recheck_run_inline(recheck.pk)
    expect(page.locator(f"#recheck-{recheck.pk}")).to_have_attribute("data-state", "done", timeout=60_000)
    expect(page.locator(f"#recheck-{recheck.pk}")).to_contain_text("1 newly invalid")

    # The re-check page names the changed profile and links to it: the same one the preview named.
    page.reload()
    changes = page.locator("#changes")
    expect(changes).to_contain_text("ml-platform/teacher")
    outcome = set(changes.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))"))
    assert outcome == predicted
    screenshot(page, "validation-recheck-changes")
    changes.get_by_role("link", name="ml-platform/teacher").click()
    expect(page).to_have_url(re.compile(rf"/profiles/{teacher.pk}/$"))
    expect(page.locator("header.site")).to_contain_text("0.31.0")
