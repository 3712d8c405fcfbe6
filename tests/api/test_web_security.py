"""Web security: the deploy checks pass with the README's production environment; HTTPS, HSTS and cookie
flags as a browser receives them; a Content Security Policy that allows our own static files and nothing
inline; login lock-out after repeated failures; every user-written string escaped in pages and e-mails."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html import escape
from pathlib import Path

import pytest
from django.test import Client
from rest_framework.test import APIClient

from profiles.services import ProfileInput, alerts, profile_create, team_create
from profiles.services.rechecks import recheck_run_inline
from tests.conftest import SEED_COMMAND
from tests.examples import EAGER_RULE
from validation.selectors import release_get
from validation.services.fleet import fleet_set_release

ROOT = Path(__file__).resolve().parents[2]
PAYLOAD = '<script>alert("pwned")</script>'

# README "Pointing the same processes at PostgreSQL, Redis and SMTP" / "Security": the production variables.
PRODUCTION = {
    "SECRET_KEY": "x7Qp2-production-like-secret-key-with-enough-length-and-variety-0123456789",
    "DEBUG": "false",
    "ALLOWED_HOSTS": "profiles.example.com",
    "SITE_URL": "https://profiles.example.com",
    "HTTPS": "true",
}


def _production(script: str) -> subprocess.CompletedProcess:
    # The browser tests' conftest sets DJANGO_ALLOW_ASYNC_UNSAFE for Playwright in this process; a production
    # process never has it, so the child does not inherit it.
    inherited = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {**inherited, **PRODUCTION, "DJANGO_SETTINGS_MODULE": "config.settings"}
    return subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def test_check_deploy_is_clean_with_the_production_environment():
    result = _production(
        "import django, sys; django.setup(); from django.core.management import call_command; "
        "call_command('check', deploy=True, fail_level='WARNING')"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout + result.stderr


def test_production_redirects_to_https_sends_hsts_and_secure_cookies():
    result = _production(
        """
import django, json
django.setup()
from django.test import Client
client = Client(HTTP_HOST="profiles.example.com")
plain = client.get("/accounts/login/")
tls = client.get("/accounts/login/", secure=True)
cookie = tls.cookies["csrftoken"]
print(json.dumps({
    "plain": [plain.status_code, plain.headers.get("Location")],
    "hsts": tls.headers.get("Strict-Transport-Security"),
    "csrf": {"secure": cookie["secure"], "httponly": cookie["httponly"], "samesite": cookie["samesite"]},
}))
"""
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["plain"] == [301, "https://profiles.example.com/accounts/login/"]
    assert seen["hsts"] == "max-age=31536000; includeSubDomains; preload"
    assert seen["csrf"] == {"secure": True, "httponly": True, "samesite": "Lax"}


@pytest.mark.django_db
def test_session_cookie_is_httponly_and_samesite(user):
    client = Client()
    client.get("/accounts/login/")
    response = client.post("/accounts/login/", {"username": "ada", "password": "pw"})
    assert response.status_code == 302
    session = response.cookies["sessionid"]
    assert session["httponly"] is True and session["samesite"] == "Lax"


@pytest.mark.django_db
def test_pages_send_a_csp_that_allows_only_our_static_files(user):
    client = Client()
    client.force_login(user)
    for url in ("/accounts/login/", "/", "/api/docs/"):
        response = client.get(url)
        assert response.status_code == 200, url
        policy = response.headers["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "style-src 'self'" in policy, policy
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert "frame-ancestors 'none'" in policy
        html = response.content.decode()
        # nothing inline that the policy would block: every <script> has a src, no <style>, no on*= handler
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), url
        assert "<style" not in html and not re.search(r"\son[a-z]+=", html), url


def test_the_csp_follows_the_settings_and_report_only_and_exempt_prefixes(user, settings):
    client = Client()
    client.force_login(user)
    assert "object-src 'none'" in client.get("/").headers["Content-Security-Policy"]
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"default-src": ["'self'"], "img-src": ["'self'"]}}
    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = {
        "DIRECTIVES": {"default-src": ["'none'"]},
        "EXCLUDE_URL_PREFIXES": ["/api/"],
    }
    page = client.get("/")
    directives = {"default-src 'self'", "img-src 'self'"}  # django-csp writes them in no fixed order
    assert set(page.headers["Content-Security-Policy"].split("; ")) == directives
    assert page.headers["Content-Security-Policy-Report-Only"] == "default-src 'none'"
    api = client.get("/api/v1/profiles/")
    assert set(api.headers["Content-Security-Policy"].split("; ")) == directives
    assert "Content-Security-Policy-Report-Only" not in api.headers


def test_templates_hold_no_inline_script_style_or_handler():
    offenders = []
    for path in (ROOT / "templates").rglob("*.html"):
        if "email" in path.parts:
            continue  # e-mail clients need inline styles, and no CSP applies to them
        text = path.read_text()
        if re.search(r"<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=", text):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


@pytest.mark.django_db
def test_login_is_locked_out_after_five_failures(user):
    client = Client()
    for _ in range(5):
        failed = client.post("/accounts/login/", {"username": "ada", "password": "wrong"})
        assert failed.status_code in (200, 429)
    locked = client.post("/accounts/login/", {"username": "ada", "password": "pw"})
    assert locked.status_code == 429
    assert "Too many failed log-ins" in locked.content.decode()
    assert "_auth_user_id" not in client.session
    # another user name from the same address is not locked
    other = Client()
    assert other.post("/accounts/login/", {"username": "ada2", "password": "x"}).status_code == 200


@pytest.mark.django_db
def test_user_written_strings_are_escaped_in_pages_and_emails(staff, user, mailoutbox):
    team = team_create(actor=staff, slug="evil", name=PAYLOAD)
    from profiles.services import team_add_member

    team_add_member(actor=staff, team=team, user=user, role="editor")
    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    profile, _ = profile_create(
        actor=user,
        team=team,
        data=ProfileInput.from_mapping(
            {"name": PAYLOAD, "description": PAYLOAD, "kind": "collection", "command": SEED_COMMAND}
        ),
    )
    staff_api = APIClient()
    staff_api.force_authenticate(staff)
    created = staff_api.post("/api/v1/rulesets/", {}, format="json").json()
    draft, number = created["id"], created["number"]
    rule = {**EAGER_RULE, "id": "org-evil", "message": PAYLOAD, "solutions": [PAYLOAD]}
    assert staff_api.post(f"/api/v1/rulesets/{draft}/rules/", rule, format="json").status_code == 200
    waiver = {"rule_id": "org-evil", "reason": PAYLOAD, "expires_at": "2999-01-01T00:00:00Z"}
    api = APIClient()
    api.force_authenticate(user)
    assert api.post(f"/api/v1/profiles/{profile.pk}/waivers/", waiver, format="json").status_code == 201

    client = Client()
    client.force_login(staff)
    for url in ("/", f"/profiles/{profile.pk}/", "/teams/", "/teams/evil/", f"/rulesets/{number}/"):
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert PAYLOAD not in html, url
        assert escape(PAYLOAD, quote=False).replace('"', "&quot;") in html or "&lt;script&gt;" in html, url

    recheck = fleet_set_release(release=release_get("0.31.0"), actor=staff)
    recheck_run_inline(recheck.pk)
    for recipient in alerts.pending_recipients(recheck.pk):
        alerts.alerts_send_digest(recipient_id=recipient, recheck_id=recheck.pk)
    assert mailoutbox, "the profile became invalid: its owner gets a digest"
    for mail in mailoutbox:
        html = mail.alternatives[0][0]
        assert PAYLOAD not in html and "&lt;script&gt;" in html
