"""Browser tests: Debian's Chromium driven by Playwright for Python against pytest-django's live_server.

Playwright's own browser download cannot work on air-gapped machines, so Chromium is the system one
(`scripts/ensure-chromium.sh` installs it). Every test gets a fresh user-data dir, hence fresh cookies.

Fixtures for other page suites:
- ``browser_page``: a logged-out page whose relative URLs go to the live server (``browser_page.goto("/")``).
- ``login``: ``login(page, user, password="pw")`` logs in through the form and lands on the profiles list.
- ``user_page`` / ``staff_page``: pages logged in as the ``user`` (team member) or ``staff`` fixture.
- ``screenshot``: ``screenshot(page, "name")`` saves artifacts/screenshots/name.png (full page).
- ``htmx_settled(page)``: waits until no htmx request is in flight.

Tests using them need ``pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 30_000

# Playwright's sync API runs an event loop in this thread; the test's own ORM calls are still synchronous.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def playwright_driver():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: run scripts/ensure-chromium.sh")
    # Assertions wait as long as actions do (Playwright's own default is 5 s): pages over hundreds of rules
    # on a loaded two-core machine can take longer than that to settle.
    sync_api.expect.set_options(timeout=TIMEOUT_MS)
    with sync_api.sync_playwright() as driver:
        yield driver


@pytest.fixture
def browser_page(playwright_driver, live_server, tmp_path):
    context = playwright_driver.chromium.launch_persistent_context(
        user_data_dir=str(tmp_path / "chromium-profile"),
        executable_path=CHROMIUM,
        headless=True,
        args=CHROMIUM_ARGS,
        base_url=live_server.url,
        viewport={"width": 1360, "height": 900},
    )
    context.set_default_timeout(TIMEOUT_MS)
    page = context.pages[0] if context.pages else context.new_page()
    yield page
    context.close()


@pytest.fixture
def login():
    def log_in(page, user, password: str = "pw"):
        page.goto("/accounts/login/")
        page.get_by_label("Username").fill(user.username)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(lambda url: "/accounts/login/" not in url)
        return page

    return log_in


@pytest.fixture
def user_page(browser_page, login, user, team):
    return login(browser_page, user)


@pytest.fixture
def staff_page(browser_page, login, staff, team):
    return login(browser_page, staff)


@pytest.fixture
def screenshot():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True, timeout=90_000)  # long pages on a loaded machine
        return path

    return take


def htmx_settled(page, timeout: int = TIMEOUT_MS) -> None:
    """Wait until htmx has no request in flight (it marks requesting elements with .htmx-request)."""
    page.wait_for_function(
        "() => window.htmx !== undefined && document.querySelectorAll('.htmx-request').length === 0",
        timeout=timeout,
    )
