"""Notification targets: team admins manage them (API and team page), the URL is stored encrypted and shown
masked, and the security rule of docs/security.md holds against a real HTTPS receiver on 127.0.0.1: https://
only, no redirect followed, no loopback/private/link-local/reserved address unless allow-listed."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from notifications import outbound, services
from notifications.models import Delivery, NotificationTarget

from .receiver import verify

pytestmark = pytest.mark.django_db

SLACK_URL = "https://hooks.slack.com/services/T000/B000/XXXXsecretTOKENzzzz"


def _create(api, team, **data):
    return api.post(f"/api/v1/teams/{team.slug}/notification-targets/", data, format="json")


def test_an_admin_adds_a_target_whose_url_is_stored_encrypted_and_shown_masked(staff_api, team):
    response = _create(
        staff_api, team, name="chat", kind="slack", url=SLACK_URL, transitions=["newly_invalid"]
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["url_masked"] == "https://hooks.slack.com/…zzzz" and "url" not in body
    assert body["secret"] is None  # only a generic webhook has a signing secret
    row = NotificationTarget.objects.get()
    assert "secretTOKEN" not in row.url_encrypted and "secretTOKEN" not in json.dumps(
        list(NotificationTarget.objects.values()), default=str
    )
    listed = staff_api.get(f"/api/v1/teams/{team.slug}/notification-targets/")
    assert "secretTOKEN" not in listed.content.decode() and listed.json()[0]["name"] == "chat"

    webhook = _create(staff_api, team, name="ci", kind="webhook", url="https://ci.example.com/hook").json()
    assert len(webhook["secret"]) >= 40  # shown once ...
    again = staff_api.get(f"/api/v1/teams/{team.slug}/notification-targets/{webhook['id']}/").json()
    assert "secret" not in again  # ... never again


def test_an_editor_may_not_see_or_manage_the_targets(api, team):
    assert _create(api, team, name="chat", kind="slack", url=SLACK_URL).status_code == 403
    assert api.get(f"/api/v1/teams/{team.slug}/notification-targets/").status_code == 403


@pytest.mark.parametrize(
    ("url", "field_text"),
    [
        ("http://hooks.slack.com/services/x", "only https:// URLs"),
        ("https://user:pw@hooks.slack.com/x", "user names and passwords"),
        ("ftp://example.com/x", "only https:// URLs"),
    ],
)
def test_a_url_that_breaks_the_rule_is_refused_naming_the_field(staff_api, team, url, field_text):
    response = _create(staff_api, team, name="x", kind="slack", url=url)
    assert response.status_code == 400
    assert field_text in json.dumps(response.json()) and "url" in json.dumps(response.json())


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "10.1.2.3",
        "192.168.0.10",
        "169.254.169.254",
        "::1",
        "::ffff:127.0.0.1",
        "fe80::1",
        "224.0.0.1",
        "0.0.0.0",
        "100.64.0.1",
    ],
)
def test_private_loopback_link_local_multicast_and_reserved_addresses_are_refused(host, settings):
    settings.NOTIFY_ALLOWED_HOSTS = []
    with pytest.raises(outbound.TargetRefused, match="private, loopback"):
        outbound.resolve(host, 443)


def test_a_public_address_is_allowed_and_an_allow_listed_host_may_be_private(settings):
    settings.NOTIFY_ALLOWED_HOSTS = []
    assert outbound.resolve("93.184.215.14", 443) == "93.184.215.14"
    settings.NOTIFY_ALLOWED_HOSTS = ["10.1.2.3"]
    assert outbound.resolve("10.1.2.3", 443) == "10.1.2.3"


def test_a_loopback_receiver_is_not_posted_to_unless_allow_listed(staff, team, receiver, settings):
    target, _ = services.target_create(
        actor=staff, team=team, name="chat", kind="slack", url=receiver.url("/s")
    )
    settings.NOTIFY_ALLOWED_HOSTS = []
    delivery = services.target_send_test(actor=staff, target=target)
    assert services.deliver(delivery.pk) == "failed"
    delivery.refresh_from_db()
    assert "loopback" in delivery.last_error and receiver.requests == []


def test_a_redirect_is_not_followed(staff, team, receiver):
    receiver.redirect = "/r"
    target, _ = services.target_create(
        actor=staff, team=team, name="chat", kind="slack", url=receiver.url("/r")
    )
    delivery = services.target_send_test(actor=staff, target=target)
    assert services.deliver(delivery.pk) == "failed"
    delivery.refresh_from_db()
    assert (delivery.last_status, delivery.last_error) == (302, "redirect not followed")
    assert receiver.to("/landed") == [] and len(receiver.to("/r")) == 1


def test_a_delivery_is_posted_once_even_if_its_task_runs_twice(staff, team, receiver):
    target, secret = services.target_create(
        actor=staff, team=team, name="ci", kind="webhook", url=receiver.url("/hook")
    )
    delivery = services.target_send_test(actor=staff, target=target)
    assert services.deliver(delivery.pk) == "sent"
    assert services.deliver(delivery.pk) == "not pending"
    (post,) = receiver.to("/hook")
    event = verify(secret, post)
    assert post["headers"]["Content-Type"] == "application/cloudevents+json"
    assert event["id"] == post["headers"]["Idempotency-Key"] == str(delivery.event_id)
    assert (event["specversion"], event["type"]) == ("1.0", "io.vllm-profiles.test")
    assert "Cookie" not in post["headers"] and "Authorization" not in post["headers"]


def test_the_team_page_adds_a_target_sends_a_test_and_shows_the_delivery_log(staff, team, receiver):
    client = Client()
    client.force_login(staff)
    page = f"/teams/{team.slug}/"
    post = f"/teams/{team.slug}/notification-targets/"
    added = client.post(
        post, {"action": "create", "name": "chat", "kind": "teams", "url": receiver.url("/t")}
    )
    assert added.status_code == 302
    html = client.get(page).content.decode()
    assert "Notification targets" in html and f"https://127.0.0.1:{receiver.port}/…" in html
    assert receiver.url("/t") not in html  # masked

    target = NotificationTarget.objects.get()
    assert client.post(post, {"action": "test", "target": target.pk}).status_code == 302
    (delivery,) = Delivery.objects.all()
    services.deliver(delivery.pk)  # what the worker does with the task the page queued
    (message,) = receiver.to("/t")
    card = json.loads(message["body"])["attachments"][0]
    assert card["contentType"] == "application/vnd.microsoft.card.adaptive"
    assert "Test message for chat" in card["content"]["body"][0]["text"]
    html = client.get(page).content.decode()
    assert "HTTP 200" in html and ">sent<" in html


def test_an_editor_sees_no_target_section_on_the_team_page(user, team, staff):
    services.target_create(actor=staff, team=team, name="chat", kind="slack", url=SLACK_URL)
    client = Client()
    client.force_login(user)
    html = client.get(f"/teams/{team.slug}/").content.decode()
    assert "Notification targets" not in html and "hooks.slack.com" not in html
