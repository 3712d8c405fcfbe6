"""The pages platform engineers live in, in a real Chromium: teams (create, add a member, change a role),
a typo'd CEL path warned with a did-you-mean, the rule-set page filtered to one rule, apply-fix on the edit
form, and a profile's release matrix. Screenshots go to artifacts/screenshots/."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from playwright.sync_api import expect

from profiles.models import TeamMembership
from profiles.services import ProfileInput, profile_create
from profiles.services import matrix as matrix_service
from profiles.tasks import fleet_matrix_task
from tests.browser.conftest import htmx_settled
from tests.conftest import SEED_COMMAND, SEED_MESSAGE_031
from validation.models import FleetSettings, VllmRelease
from validation.services import rulesets

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def make(actor, team, name, command, kind="serving", version=""):
    data = ProfileInput.from_mapping(
        {"name": name, "kind": kind, "vllm_version": version, "command": command}
    )
    return profile_create(actor=actor, team=team, data=data)[0]


def test_teams_page_create_add_member_change_role(staff_page, staff, screenshot):
    page = staff_page
    get_user_model().objects.create_user("grace", "grace@example.com", "pw")

    page.get_by_role("link", name="Teams").click()
    expect(page.locator("#teams")).to_contain_text("ml-platform")
    page.get_by_label("Slug").fill("inference")
    page.locator("#id_name").fill("Inference")
    page.get_by_role("button", name="Create team").click()
    expect(page).to_have_url(re.compile(r"/teams/inference/$"))
    expect(page.locator("#members")).to_contain_text("sam")

    # A user name that does not exist is named on its field; nothing is added.
    page.get_by_label("User name").fill("nobody")
    page.get_by_role("button", name="Add member").click()
    expect(page.locator("#field-username")).to_contain_text("no user named 'nobody'")

    page.get_by_label("User name").fill("grace")
    page.locator("#id_role").select_option("viewer")
    page.get_by_role("button", name="Add member").click()
    row = page.locator("tr[data-username='grace']")
    expect(row.get_by_label("Role of grace")).to_have_value("viewer")
    expect(row).to_contain_text("own profiles only")

    row.get_by_label("Role of grace").select_option("editor")
    row.get_by_role("button", name="Change role").click()
    expect(page.locator(".messages")).to_contain_text("grace: editor")
    row = page.locator("tr[data-username='grace']")
    expect(row.get_by_label("Role of grace")).to_have_value("editor")
    row.get_by_role("button", name="Watch the team").click()
    expect(page.locator("tr[data-username='grace']")).to_contain_text("watches the team")
    membership = TeamMembership.objects.get(team__slug="inference", user__username="grace")
    assert (membership.role, membership.watch) == ("editor", True)

    # The last admin cannot step down: the team would have no one to manage it.
    sam = page.locator("tr[data-username='sam']")
    sam.get_by_label("Role of sam").select_option("viewer")
    sam.get_by_role("button", name="Change role").click()
    expect(page.locator(".messages")).to_contain_text("sam is the last admin of inference")
    assert TeamMembership.objects.get(team__slug="inference", user__username="sam").role == "admin"
    screenshot(page, "dashboard-team")

    page.goto("/teams/")
    expect(page.locator("#team-inference")).to_contain_text("2")
    screenshot(page, "dashboard-teams")


def test_release_matrix_of_a_profile_and_the_fleet_chart(user_page, user, team, screenshot):
    """One evaluation of every release per process and rule set is the slow part (about a minute here), so
    the profile's matrix, the fleet's chart and its cache are checked in one test."""
    page = user_page
    teacher = make(user, team, "teacher", SEED_COMMAND, kind="collection")
    make(user, team, "plain", "vllm serve meta-llama/Llama-3.1-8B-Instruct")

    page.goto(f"/profiles/{teacher.pk}/")
    page.get_by_role("link", name="Check it on every release").click()
    matrix = page.locator("#release-matrix table")
    expect(matrix).to_be_visible(timeout=120_000)
    expect(page.locator("#matrix-0\\.31\\.0")).to_have_attribute("data-state", "invalid")
    expect(page.locator("#matrix-0\\.31\\.0 td.first")).to_contain_text(SEED_MESSAGE_031)
    expect(page.locator("#matrix-0\\.32\\.0")).not_to_have_attribute("data-state", "invalid")
    fleet = FleetSettings.objects.get().default_release.version
    expect(page.locator(f"#matrix-{fleet.replace('.', chr(92) + '.')}")).to_contain_text("runs today")
    with_catalog = VllmRelease.objects.exclude(catalog_sha256="").count()
    expect(matrix.locator("tbody tr")).to_have_count(with_catalog)
    page.locator("#release-matrix").scroll_into_view_if_needed()
    screenshot(page, "dashboard-profile-release-matrix")

    # The fleet's chart is the worker's: the page says so and polls until the matrix is in the cache.
    page.goto("/releases/")
    expect(page.locator("#matrix-pending")).to_contain_text("on a worker")
    assert fleet_matrix_task() == 2  # the worker's part, in this process
    bars = page.locator("svg.release-bars g.release-bar")
    expect(bars).to_have_count(with_catalog, timeout=60_000)
    expect(page.locator("g.release-bar[data-release='0.31.0'] > title")).to_contain_text("invalid")
    screenshot(page, "dashboard-releases-chart")
    outcome = matrix_service.fleet_release_matrix()
    assert outcome["total"] == 2
    assert all(r["valid"] + r["warning"] + r["invalid"] == 2 for r in outcome["releases"])
    assert {r["release"]: r for r in outcome["releases"]}["0.31.0"]["invalid"] >= 1
    # The worker's task finds it under the same fingerprint; a new profile moves the fingerprint.
    with CaptureQueriesContext(connection) as queries:
        assert fleet_matrix_task() == 2
    assert len(queries) < 12
    make(user, team, "third", "vllm serve meta-llama/Llama-3.1-8B-Instruct")
    assert matrix_service.fleet_release_matrix()["total"] == 3


def test_typod_cel_path_is_refused_with_did_you_mean_then_the_rule_set_filtered_to_it(
    staff_page, staff, screenshot
):
    page = staff_page
    draft = rulesets.ruleset_draft_create(actor=staff)
    page.goto(f"/rulesets/{draft.number}/rules/new/")
    page.get_by_label("Rule id").fill("org-max-seqs")
    page.locator("details.more-fields > summary").click()  # the fields past the first four
    page.get_by_label("Category").select_option("policy")
    page.get_by_label("Severity").select_option("warning")
    page.get_by_label("Message").fill("keep max_num_seqs at 512 or below on shared nodes")
    page.get_by_label("When (CEL)").fill("has(args.max_num_seq) && args.max_num_seq > 512")
    page.get_by_role("button", name="Save rule").click()
    expect(page.locator("#field-when .errorlist")).to_contain_text("did you mean args.max_num_seqs?")
    screenshot(page, "dashboard-rule-cel-path-typo")
    assert not draft.rules.filter(rule_id="org-max-seqs").exists()

    page.get_by_label("When (CEL)").fill("has(args.max_num_seqs) && args.max_num_seqs > 512")
    page.get_by_role("button", name="Save rule").click()
    rule = page.locator("#rule-org-max-seqs")
    expect(rule).to_have_attribute("open", "")  # the saved rule is opened; the others stay collapsed
    total = draft.rules.count()
    assert total > 131
    expect(page.locator("details.rule")).to_have_count(total)
    expect(page.locator("details.rule[open]")).to_have_count(1)

    # Filter to one rule: a search and a category narrow the ~130 rules to the policy rule just written.
    page.get_by_label("Search").fill("max_num_seqs")
    page.locator("#id_category").select_option("policy")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("#rule-count")).to_have_text(f"1 of {total} rules match.")
    expect(page.locator("details.rule")).to_have_count(1)
    expect(page.locator("details.rule pre code")).to_contain_text("args.max_num_seqs > 512")
    screenshot(page, "dashboard-ruleset-filtered")
    page.locator("#id_category").select_option("")
    page.locator("#id_severity").select_option("error")
    page.locator("#id_release").select_option("0.31.0")
    page.get_by_label("Search").fill("")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("#rule-count")).to_contain_text(f"of {total} rules match.")
    errors = draft.rules.filter(severity="error").count()
    assert 0 < page.locator("details.rule").count() < errors


def test_apply_fix_on_the_edit_form_rewrites_my_own_command(user_page, user, team, screenshot):
    page = user_page
    profile = make(user, team, "teacher", SEED_COMMAND, kind="collection", version="0.32.0")
    mine = (
        "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve meta-llama/Llama-3.1-8B-Instruct "
        "--return-sampling-mask --max-model-len 4096"
    )
    page.goto(f"/profiles/{profile.pk}/edit/")
    page.get_by_label("Command or YAML").fill(mine)
    finding = page.locator("#live article[data-rule='sampling-replay-requires-processed-logprobs']")
    expect(finding).to_be_visible()
    finding.get_by_role("button", name="Apply fix to my command…").click()
    after = page.locator("#source-fix-after")
    expect(after).to_contain_text("--logprobs-mode processed_logprobs")
    for kept in ("VLLM_USE_V2_MODEL_RUNNER=1", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len 4096"):
        expect(after).to_contain_text(kept)  # the user's own command, not the rule's generic example
    expect(page.locator("#source-fix-before")).to_have_text(mine)
    expect(page.locator("#source-fix table.diff")).to_contain_text("logprobs_mode")
    screenshot(page, "dashboard-edit-apply-fix")

    page.get_by_role("button", name="Use the fixed command").click()
    expect(page.get_by_label("Command or YAML")).to_have_value(
        re.compile("--logprobs-mode processed_logprobs")
    )
    expect(page.locator("#live")).not_to_contain_text("sampling-replay-requires-processed-logprobs")
    htmx_settled(page)
    page.get_by_role("button", name="Save revision 2").click()
    expect(page.locator(".messages")).to_contain_text("Saved revision 2")
    profile.refresh_from_db()
    assert profile.engine_args["logprobs_mode"] == "processed_logprobs"
    assert profile.engine_args["max_model_len"] == 4096


def test_profiles_by_state_over_time_chart(user_page, user, team, screenshot):
    from datetime import timedelta

    from django.utils import timezone

    from profiles.models import VerdictChange

    states = ("valid", "warning", "invalid")
    now = timezone.now()
    for n in range(6):
        profile, _ = profile_create(
            actor=user,
            team=team,
            data=ProfileInput.from_mapping(
                {"name": f"p{n}", "kind": "serving", "vllm_version": "0.32.0", "command": SEED_COMMAND}
            ),
        )
        VerdictChange.objects.filter(profile=profile).delete()
        for step, days_ago in enumerate((28 - 4 * n, 14 - 2 * n, 3)):
            change = VerdictChange.objects.create(
                profile=profile, to_state=states[(n + step) % 3], cause="edit"
            )
            VerdictChange.objects.filter(pk=change.pk).update(created_at=now - timedelta(days=days_ago))
    page = user_page
    page.goto("/")
    page.get_by_role("link", name="States over time").click()
    expect(page.get_by_role("heading", name="Profiles by state over time")).to_be_visible()
    chart = page.locator("svg.state-columns")
    expect(chart).to_be_visible()
    expect(chart.locator("g.state-column")).to_have_count(30)
    today = chart.locator("g.state-column").last
    assert sum(int(today.get_attribute(f"data-{s}")) for s in (*states, "unverified")) == 6
    assert chart.locator("rect.seg-invalid").count() > 0
    screenshot(page, "dashboard-profile-states")
