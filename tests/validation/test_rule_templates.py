"""Rule message templates through the product: the rule-set editor, the API and record import accept a template
and refuse one that does not compile (naming rule and slot, like a bad condition); a published template fills
the message that the API and the profile page show. The rule's fields have one definition."""

from __future__ import annotations

import json

import pytest

from fleet.api.serializers import RuleSerializer
from fleet.forms import RuleForm
from profiles.services import ProfileInput, profile_create
from validation.models import Rule
from validation.services import rulesets
from vllmcheck.engine.rules import RULE_FIELDS, RULE_KEYS

pytestmark = pytest.mark.django_db

TEMPLATED = {
    "id": "org-max-seqs",
    "category": "policy",
    "severity": "error",
    "message": "max_num_seqs ({self.max_num_seqs}) must be at most 64 on {version}",
    "message_template": "max_num_seqs ({{ effective.max_num_seqs }}) must be at most 64 on {{ vllm.version | !r }}",
    "when": "effective.max_num_seqs > 64",
}


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def draft(staff):
    return rulesets.ruleset_draft_create(actor=staff)


def test_rule_fields_have_one_definition():
    model_fields = {f.name for f in Rule._meta.get_fields()}
    assert set(RULE_FIELDS) <= model_fields
    assert {"id", *RULE_FIELDS} == RULE_KEYS
    assert list(RuleSerializer().fields) == ["id", *RULE_FIELDS]
    assert list(RuleForm().fields) == ["id", *RULE_FIELDS]


def test_api_saves_a_template_and_refuses_one_that_does_not_compile(staff_api, draft):
    url = f"/api/v1/rulesets/{draft.pk}/rules/"
    saved = staff_api.post(url, TEMPLATED, format="json")
    assert saved.status_code == 200, saved.json()
    assert saved.json()["message_template"] == TEMPLATED["message_template"]
    assert draft.rules.get(rule_id="org-max-seqs").message_template == TEMPLATED["message_template"]

    bad = staff_api.post(
        url,
        {**TEMPLATED, "message_template": "max_num_seqs ({{ effective.max_num_seqs | :q }})"},
        format="json",
    )
    assert bad.status_code == 400
    body = json.dumps(bad.json())
    assert "message_template" in body and "org-max-seqs" in body and "slot 1" in body
    unbalanced = staff_api.post(
        url, {**TEMPLATED, "message_template": "({{ effective.max_num_seqs )"}, format="json"
    )
    assert unbalanced.status_code == 400 and "never closes" in json.dumps(unbalanced.json())
    # The refused edits changed nothing.
    assert draft.rules.get(rule_id="org-max-seqs").message_template == TEMPLATED["message_template"]


def test_editor_shows_a_template_error_on_its_field(staff_client, draft):
    form = {**TEMPLATED, "message_template": "seqs {{ effective.max_num_seqs + }}", "enabled": "on"}
    response = staff_client.post(f"/rulesets/{draft.number}/rules/new/", form)
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert list(errors) == ["message_template"]
    assert "org-max-seqs" in errors["message_template"][0] and "slot 1" in errors["message_template"][0]
    assert not draft.rules.filter(rule_id="org-max-seqs").exists()

    ok = staff_client.post(f"/rulesets/{draft.number}/rules/new/", {**TEMPLATED, "enabled": "on"})
    assert ok.status_code == 302
    edit = staff_client.get(f"/rulesets/{draft.number}/rules/org-max-seqs/").content.decode()
    assert "{{ effective.max_num_seqs }}" in edit  # the template typed, shown back for editing


def test_record_import_refuses_a_template_that_does_not_compile(staff_client, draft):
    record = {"errorMessage": "x ({self.x})", "messageTemplate": "x ({{ args.x | !q }})", "slug": "rec-x"}
    response = staff_client.post(f"/rulesets/{draft.number}/import/", {"records": json.dumps(record)})
    assert response.status_code == 400
    error = response.context["form"].errors["records"][0]
    assert "line 1" in error and "rec-x" in error and "unknown conversion !q" in error
    good = {**record, "messageTemplate": "x ({{ args.x | !r }})"}
    assert (
        staff_client.post(f"/rulesets/{draft.number}/import/", {"records": json.dumps(good)}).status_code
        == 302
    )
    assert draft.rules.get(rule_id="rec-x").message_template == "x ({{ args.x | !r }})"


def test_a_published_template_fills_the_message_of_api_and_page(staff, api, user, team, client, draft):
    rulesets.rule_save(ruleset=draft, data={**TEMPLATED, "severity": "warning"}, actor=staff)
    rulesets.ruleset_publish(ruleset=draft, actor=staff)

    response = api.post(
        "/api/v1/validate/",
        {"kind": "serving", "vllm_version": "0.31.0", "command": "vllm serve m --max-num-seqs 128"},
        format="json",
    )
    finding = next(f for f in response.json()["findings"] if f["rule"] == "org-max-seqs")
    assert finding["message"] == "max_num_seqs (128) must be at most 64 on '0.31.0'"
    assert finding["message_source"] == TEMPLATED["message"]
    assert finding["message_rendered"] is True

    data = ProfileInput.from_mapping(
        {
            "name": "big",
            "kind": "serving",
            "command": "vllm serve m --max-num-seqs 96",
            "vllm_version": "0.31.0",
        }
    )
    profile, _ = profile_create(actor=user, team=team, data=data)
    client.force_login(user)
    page = client.get(f"/profiles/{profile.pk}/").content.decode()
    assert "max_num_seqs (96) must be at most 64 on &#x27;0.31.0&#x27;" in page
    assert "{{" not in page.split('class="message"', 1)[1].split("</p>", 1)[0]
