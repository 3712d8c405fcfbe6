"""The new-profile form's "What was found" panel in a real Chromium: pasting a launch as people publish it
(a `docker run` in a markdown fence, a script with variables, a review diff, the legacy demo server) shows,
before anything is saved, where the launch was found, how it was read, the environment it kept, the
variables left open and the lines that were not read as the launch. The texts are the intake's training
texts (tests/fixtures/intake_training), pasted as they were published."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from profiles.models import Profile
from tests.browser.conftest import htmx_settled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = Path(__file__).resolve().parents[1] / "fixtures" / "intake_training"


def _paste(page, name: str):
    page.goto("/profiles/new/")
    page.get_by_label("Command or YAML").fill((TEXTS / name).read_text())
    panel = page.locator("#live #found")
    expect(panel).to_contain_text("What was found")
    htmx_settled(page)
    return panel


def test_a_docker_run_pasted_with_its_prose_and_fence_shows_where_it_was_found(user_page, screenshot):
    page = user_page
    panel = _paste(page, "sudo-docker-runtime.md")
    launch = panel.locator(".found-launch")
    expect(launch).to_have_attribute("data-form", "docker")
    expect(launch.locator(".found-where")).to_contain_text(
        "Read from a container run (docker run, podman run)"
    )
    expect(launch.locator(".found-lines")).to_have_text("4–10")
    expect(launch.locator(".found-where")).to_contain_text("image vllm/vllm-openai:latest")
    # the environment it kept, a token's value not shown
    expect(launch.locator(".found-env")).to_contain_text("1 variable")
    expect(launch.locator(".found-env")).to_contain_text("HUGGING_FACE_HUB_TOKEN=(hidden)")
    expect(launch.locator(".found-notes")).to_contain_text("--gpus all: the number of GPUs is the host's")
    # the prose line and the fences are not the launch
    expect(panel.locator(".found-ignored")).to_contain_text("lines 1, 3, 11")
    # and the arguments are checked as usual below it
    expect(page.locator("#live")).to_contain_text("mistralai/Mixtral-8x7B-Instruct-v0.1")
    screenshot(page, "intake-panel-docker")
    assert not Profile.objects.exists()


def test_a_script_shows_its_unknown_variables_and_what_it_sourced(user_page):
    panel = _paste(user_page, "script-args-tab.sh")
    launch = panel.locator(".found-launch")
    expect(launch.locator(".found-where")).to_contain_text("Read from a shell script, lines 2–12")
    expect(launch.locator(".found-where")).to_contain_text("2 GPUs")
    expect(launch.locator(".found-env")).to_contain_text("CUDA_VISIBLE_DEVICES=0,1")
    variable = launch.locator("[data-variable='$2']")
    expect(variable).to_contain_text("unknown (a script argument)")
    expect(launch.locator(".found-notes")).to_contain_text("`source .vllm/bin/activate` are not known here")
    expect(panel.locator(".found-ignored")).to_contain_text("line 1")


def test_a_review_diff_is_read_as_the_lines_it_adds_and_keeps(user_page, screenshot):
    page = user_page
    panel = _paste(page, "diff-context-minus-plus.diff")
    launch = panel.locator(".found-launch")
    expect(launch.locator(".found-notes")).to_contain_text("read as a diff")
    expect(launch.locator(".found-command")).to_contain_text("--enable-expert-parallel")
    expect(launch.locator(".found-command")).not_to_contain_text("--enable_expert_parallel")
    screenshot(page, "intake-panel-diff")


def test_a_compose_service_with_an_old_image_tag_names_the_release_it_is_checked_on(user_page):
    panel = _paste(user_page, "compose-fragment-list.md")
    launch = panel.locator(".found-launch")
    expect(launch).to_have_attribute("data-form", "compose")
    expect(launch.locator(".found-where")).to_contain_text("Read from a compose service embeddings")
    expect(launch.locator(".found-release")).to_have_text("0.8.0")
    expect(launch.locator(".found-notes")).to_contain_text("without its `services:` key")
    expect(launch.locator("[data-variable='HF_TOKEN']")).to_contain_text("unknown")


def test_the_legacy_demo_server_says_not_checked(user_page):
    panel = _paste(user_page, "legacy-help-args.md")
    expect(panel.locator(".found-not-checked")).to_contain_text(
        "Not checked: it runs vllm.entrypoints.api_server"
    )
    expect(panel.locator(".found-launch")).to_have_count(0)
