"""Issue 32 items 2, 3, 4 and 10 (issue 26 item 5), in Chromium: findings in words. No expression
(``<unknown:``) and no Python placeholder (``{self.``) on any page of the seed profiles; a long vLLM help text
as its first full sentence with the whole text behind a toggle; a removed flag with the release it went in, what
replaces it and an Apply-fix that rewrites the command."""

import pytest
from playwright.sync_api import expect

from profiles.services import ProfileInput, profile_create
from tests.browser.conftest import htmx_settled
from tests.conftest import SEED_COMMAND

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The profiles the dashboard's own tests seed (tests/conftest.py's SEED_COMMAND, the daily-use profiles), plus
# the two of issue 32: the all2all deprecation on 0.34.0 and a world size with no node type.
SEEDS = [
    ("teacher", "collection", "", SEED_COMMAND),
    ("llama", "serving", "", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096 -tp 2"),
    ("moe", "serving", "0.34.0", "vllm serve deepseek-ai/DeepSeek-V3 --all2all-backend naive"),
]
RAW = ("<unknown:", "{self.", "[Errno")


def make(actor, team, name, kind, version, command):
    data = {"name": name, "kind": kind, "vllm_version": version, "command": command}
    return profile_create(actor=actor, team=team, data=ProfileInput.from_mapping(data))[0]


def assert_no_internals(page):
    html = page.content()
    assert [raw for raw in RAW if raw in html] == [], page.url


def test_no_page_of_the_seed_profiles_shows_an_expression_or_a_python_placeholder(
    user_page, user, team, screenshot
):
    page = user_page
    profiles = [make(user, team, *seed) for seed in SEEDS]
    page.goto("/")
    assert_no_internals(page)
    for profile in profiles:
        page.goto(f"/profiles/{profile.pk}/")
        assert_no_internals(page)
    page.goto(f"/profiles/{profiles[1].pk}/")
    folded = page.locator("details.unverifiable")
    expect(folded).not_to_have_attribute("open", "")
    folded.locator("summary").click()
    world = folded.locator("article[data-rule='world-size-exceeds-node-gpus']")
    expect(world).to_have_count(1)  # once, in the folded panel (not again in the arguments table)
    expect(world.locator(".message")).to_contain_text("(without the number of GPUs per node)")
    expect(world.locator(".message-note")).to_contain_text("choose a node type")
    expect(page.locator("table.args")).not_to_contain_text("could not verify")
    screenshot(page, "finding-words-unverifiable")
    page.goto("/rulesets/")
    assert_no_internals(page)
    link = page.locator("main a[href^='/rulesets/']").first
    link.click()
    page.wait_for_load_state()
    expect(page.locator(".rule-message").first).to_be_visible()
    assert_no_internals(page)
    rule = page.locator("details.rule", has_text="world-size-exceeds-node-gpus").first
    rule.locator("summary").click()
    htmx_settled(page)
    expect(rule.locator(".rule-message-words")).to_contain_text("World size (\u2039world size\u203a)")
    expect(rule.locator("details.message-template")).not_to_have_attribute("open", "")
    assert_no_internals(page)


def test_the_all2all_deprecation_is_a_full_first_sentence_with_vllms_whole_text_behind_a_toggle(
    user_page, user, team, screenshot
):
    page = user_page
    profile = make(user, team, *SEEDS[2])
    page.goto(f"/profiles/{profile.pk}/")
    finding = page.locator("article[data-rule='catalog-deprecated-argument']")
    message = finding.locator(".message")
    expect(message).to_have_text(
        'Some values of --all2all-backend are deprecated in vLLM 0.34.0: "mori_high_throughput" (use "mori"), '
        '"mori_low_latency" (use "mori").'
    )
    detail = finding.locator("details.message-detail")
    expect(detail).not_to_have_attribute("open", "")
    detail.locator("summary").click()
    expect(detail).to_contain_text("(e.g. the FlashInfer MoE-EP megakernels). Bound automatically")
    screenshot(page, "finding-words-all2all")


def test_a_removed_flag_says_when_it_went_and_what_replaces_it_and_its_fix_rewrites_the_command(
    user_page, screenshot
):
    page = user_page
    page.goto("/profiles/new/")
    page.get_by_label("Name").fill("reasoner")
    page.get_by_label("Target vLLM release").select_option("0.33.0")
    page.get_by_label("Command or YAML").fill(
        "vllm serve deepseek-ai/DeepSeek-R1-Distill-Qwen-7B --enable-reasoning --reasoning-parser deepseek_r1"
    )
    page.get_by_label("Command or YAML").press("End")
    live = page.locator("#live")
    finding = live.locator("article[data-rule='catalog-removed-argument']")
    expect(finding.locator(".message")).to_have_text(
        "--enable-reasoning was removed in vLLM 0.10.0 (last present in 0.9.2); vLLM 0.33.0 refuses it as an "
        "unrecognized argument; what replaces it: --reasoning-parser alone enables reasoning"
    )
    htmx_settled(page)
    finding.get_by_role("button", name="Apply fix to my command…").click()
    htmx_settled(page)
    expect(page.locator("#source-fix")).to_contain_text("applied to your own text")
    after = page.locator("#source-fix-after")
    expect(after).to_contain_text("--reasoning-parser deepseek_r1")
    expect(after).not_to_contain_text("--enable-reasoning")
    screenshot(page, "finding-words-removed-flag")
    assert_no_internals(page)
