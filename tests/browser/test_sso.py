"""Single sign-on in a real Chromium: a user clicks "Sign in with ...", logs in at the test's OpenID Connect
provider (node-oidc-provider, tests/oidc_provider.py) and lands signed in, a member of the team its groups claim
maps to, with the mapped role. Screenshots go to artifacts/screenshots/."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from profiles.services import team_create, team_set_sso_groups

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_user_signs_in_at_the_provider_and_lands_in_the_team_of_their_group(
    sso, browser_page, live_server, staff, screenshot
):
    platform = team_create(actor=staff, slug="ml-platform", name="ML platform")
    team_set_sso_groups(actor=staff, team=platform, groups={"ml-platform-editors": "editor"})
    research = team_create(actor=staff, slug="research", name="Research")
    team_set_sso_groups(actor=staff, team=research, groups={"research": "viewer"})
    sso.set_users({"lin": {"email": "lin@corp.example", "name": "Lin", "groups": ["ml-platform-editors"]}})
    page = browser_page

    page.goto("/accounts/login/")
    screenshot(page, "sso-login-page")
    page.get_by_role("link", name="Sign in with Test IdP").click()
    page.wait_for_url(f"{sso.issuer}/**")  # at the provider
    page.locator('input[name="login"]').fill("lin")
    page.locator('input[name="password"]').fill("whatever the provider checks")
    page.get_by_role("button", name="Sign-in").click()
    page.get_by_role("button", name="Continue").click()  # the provider's consent
    page.wait_for_url(re.compile("^" + re.escape(live_server.url)))
    expect(page.get_by_role("button", name="Log out")).to_be_visible()

    page.goto("/teams/")
    expect(page.get_by_role("link", name="ml-platform")).to_be_visible()
    expect(page.get_by_role("link", name="research")).to_have_count(0)
    page.goto("/teams/ml-platform/")
    row = page.locator('#members tr[data-username="lin@corp.example"]')
    expect(row.locator(".member-role")).to_have_text("editor")
    expect(row).to_contain_text("single sign-on")
    screenshot(page, "sso-team-after-sign-in")
    user = get_user_model().objects.get(email="lin@corp.example")
    assert list(user.memberships.values_list("team__slug", "role")) == [("ml-platform", "editor")]
