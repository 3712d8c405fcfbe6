"""Pages and mail: a ``next=`` cannot send a user to another site, a user's string cannot add a mail header,
and an upload larger than API_MAX_BODY_BYTES is refused before it is read."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from hub.models import ModelConfig
from profiles.services import ProfileInput, alerts, profile_create
from profiles.services.rechecks import recheck_run_inline
from tests.conftest import SEED_COMMAND
from validation.selectors import release_get
from validation.services.fleet import fleet_set_release

pytestmark = pytest.mark.django_db
ELSEWHERE = (
    "https://evil.example/",
    "//evil.example/",
    "http://testserver.evil.example/",
    "https:evil.example",
)


@pytest.fixture
def browser(user, team):  # an editor of a team: refreshing a model config is theirs (and staff's)
    client = Client()
    client.force_login(user)
    return client


def test_refresh_goes_back_to_this_site_only(browser):
    row = ModelConfig.objects.create(repo="Org/Model", fetched_at="2026-01-01T00:00Z", error="x")
    url = f"/models/{row.pk}/refresh/"
    for target in ELSEWHERE:
        response = browser.post(url, {"next": target})
        assert response.status_code == 302 and response["Location"] == "/models/", target
    response = browser.post(url, {"next": f"/models/{row.pk}/"})
    assert response["Location"] == f"/models/{row.pk}/"


def test_an_https_site_does_not_send_back_to_its_http_address(browser):
    row = ModelConfig.objects.create(repo="Org/Model", fetched_at="2026-01-01T00:00Z", error="x")
    response = browser.post(f"/models/{row.pk}/refresh/", {"next": "http://testserver/models/"}, secure=True)
    assert response["Location"] == "/models/"


def test_login_never_redirects_to_another_site(user):
    for target in ELSEWHERE:
        response = Client().post(
            f"/accounts/login/?next={target}", {"username": "ada", "password": "pw", "next": target}
        )
        assert response.status_code == 302 and "evil" not in response["Location"], target


def test_a_profile_name_cannot_add_a_mail_header(staff, user, team, mailoutbox):
    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    name = "p\r\nBcc: victim@evil.example"
    profile_create(
        actor=user,
        team=team,
        data=ProfileInput.from_mapping({"name": name, "kind": "collection", "command": SEED_COMMAND}),
    )
    recheck = fleet_set_release(release=release_get("0.31.0"), actor=staff)
    recheck_run_inline(recheck.pk)
    for recipient in alerts.pending_recipients(recheck.pk):
        alerts.alerts_send_digest(recipient_id=recipient, recheck_id=recheck.pk)
    assert mailoutbox, "the profile became invalid: its owner gets a digest"
    for mail in mailoutbox:
        message = mail.message()
        assert message["Bcc"] is None and "victim@evil.example" not in mail.recipients()
        assert "\n" not in message["Subject"]


def test_an_upload_over_the_body_limit_is_refused_before_it_is_read(browser, settings):
    settings.API_MAX_BODY_BYTES = 10_000
    big = SimpleUploadedFile("config.json", b'{"a": "' + b"x" * 20_000 + b'"}')
    response = browser.post("/models/", {"repo": "Org/Big", "config_file": big})
    assert response.status_code == 413
    assert not ModelConfig.objects.filter(repo="Org/Big").exists()
