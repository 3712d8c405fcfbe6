"""The admin never writes behind the services' back: every product model is read-only there, except the
waivers' approve/revoke actions and the node types' form, which call the services (permission, second
person, re-check, audit)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import AuditEvent
from hub.models import NodeType
from profiles.models import Recheck, Waiver
from profiles.services import ProfileInput, profile_create
from profiles.services.waivers import waiver_request

pytestmark = pytest.mark.django_db

PRODUCT_APPS = {"accounts", "profiles", "validation", "hub", "sources"}
WRITES_THROUGH_SERVICES = {"hub.nodetype"}  # its form calls hub.services.node_type_save


@pytest.fixture
def root(db):
    return get_user_model().objects.create_superuser("root", "root@example.com", "pw")


@pytest.fixture
def admin_client(root):
    client = Client()
    client.force_login(root)
    return client


def product_models():
    return sorted(
        (m._meta.app_label, m._meta.model_name)
        for m in admin.site._registry
        if m._meta.app_label in PRODUCT_APPS
    )


def test_every_product_model_is_registered_and_read_only(admin_client):
    models = product_models()
    assert ("validation", "rule") in models and ("profiles", "waiver") in models
    writable = []
    for app, name in models:
        if f"{app}.{name}" in WRITES_THROUGH_SERVICES:
            continue
        if admin_client.get(reverse(f"admin:{app}_{name}_add")).status_code != 403:
            writable.append(f"{app}.{name}: add")
    assert not writable, writable


def test_a_published_rule_cannot_be_edited_in_the_admin(admin_client):
    from validation.models import Rule

    rule = Rule.objects.filter(ruleset__status="published").first()
    url = reverse("admin:validation_rule_change", args=[rule.pk])
    assert admin_client.get(url).status_code == 200  # it can be read
    response = admin_client.post(url, {"when": "true", "message": "changed", "severity": "error"})
    assert response.status_code == 403
    rule.refresh_from_db()
    assert rule.when != "true"


@pytest.fixture
def waiver(user, team, staff):
    data = ProfileInput.from_mapping(
        {"name": "chat", "kind": "serving", "vllm_version": "0.32.0", "command": "vllm serve org/m"}
    )
    profile = profile_create(actor=user, team=team, data=data)[0]
    return waiver_request(
        actor=staff,
        profile=profile,
        rule_id="policy-x",
        reason="r",
        expires_at=timezone.now() + timedelta(days=1),
    )


def test_waiver_admin_approves_through_the_service_with_a_second_person(staff, waiver):
    changelist = reverse("admin:profiles_waiver_changelist")
    requester = Client()
    staff.is_superuser = True
    staff.save()
    requester.force_login(staff)
    requester.post(changelist, {"action": "approve_waivers", "_selected_action": [waiver.pk]})
    assert Waiver.objects.get(pk=waiver.pk).pending  # its requester cannot approve it, even in the admin
    change = requester.post(reverse("admin:profiles_waiver_change", args=[waiver.pk]), {"reason": "edited"})
    assert change.status_code == 403 and Waiver.objects.get(pk=waiver.pk).reason == "r"

    other = get_user_model().objects.create_superuser("root2", "root2@example.com", "pw")
    second = Client()
    second.force_login(other)
    second.post(changelist, {"action": "approve_waivers", "_selected_action": [waiver.pk]})
    approved = Waiver.objects.get(pk=waiver.pk)
    assert approved.granted_by == other
    assert Recheck.objects.filter(cause="waiver").exists()  # re-checked, as the service does
    event = AuditEvent.objects.get(action="waiver.approve")
    assert event.via == "admin" and event.actor == other


def test_node_type_admin_saves_through_the_service(admin_client, root):
    node = NodeType.objects.create(name="h100x8", gpu="H100-80GB", gpus_per_node=8, gpu_memory_gb=80)
    url = reverse("admin:hub_nodetype_change", args=[node.pk])
    body = {"name": "h100x8", "gpu": "H100-80GB", "gpus_per_node": 4, "gpu_memory_gb": 80, "interconnect": ""}
    body["description"] = ""
    assert admin_client.post(url, body).status_code == 302
    event = AuditEvent.objects.get(action="node_type.update")
    assert event.via == "admin" and event.actor == root
    assert (event.before["gpus_per_node"], event.after["gpus_per_node"]) == (8, 4)
