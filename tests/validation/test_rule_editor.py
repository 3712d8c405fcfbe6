"""The rule editor's second pass: a short form first (id, severity, condition, message) with the rest under
"more"; "try it" runs the typed condition on a stored profile or a pasted command through the engine's CEL
(true, false or an error, the message it would render, the document it read); a reference page of that
document, walked from what the engine builds, linked from the editor."""

from __future__ import annotations

import html
import re

import pytest

from profiles.services import ProfileInput, profile_create
from validation.services import rulesets

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def draft(staff):
    return rulesets.ruleset_draft_create(actor=staff)


def make_profile(owner, team, name, command):
    data = ProfileInput.from_mapping(
        {"name": name, "kind": "serving", "command": command, "vllm_version": ""}
    )
    return profile_create(actor=owner, team=team, data=data)[0]


class _Answer:
    def __init__(self, response):
        self.content = html.unescape(response.content.decode()).encode()


def _try(client, draft, **data):
    return _Answer(client.post(f"/rulesets/{draft.number}/try/", data, HTTP_HX_REQUEST="true"))


def test_the_editor_shows_four_fields_first_and_the_rest_under_more(staff_client, draft):
    page = staff_client.get(f"/rulesets/{draft.number}/rules/new/").content.decode()
    head, more = page.split('<details class="more-fields"', 1)
    for name in ("id", "severity", "when", "message"):
        assert f'name="{name}"' in head
    for name in ("title", "category", "versions", "message_template", "fix", "solutions", "docs"):
        assert f'name="{name}"' not in head and f'name="{name}"' in more
    assert f'href="/rulesets/{draft.number}/document/"' in head  # the reference, next to the condition


def test_try_on_a_stored_profile_says_true_or_false_with_the_message(staff_client, staff, team, draft):
    profile = make_profile(staff, team, "big", "vllm serve m --max-num-seqs 512")
    fired = _try(
        staff_client,
        draft,
        id="org-max-seqs",
        when="has(args.max_num_seqs) && args.max_num_seqs > 256",
        message="max_num_seqs over 256",
        message_template="max_num_seqs is {{ args.max_num_seqs }}, over 256",
        try_profile=profile.pk,
    ).content.decode()
    assert 'data-outcome="true"' in fired
    assert f"{team.slug}/big" in fired
    assert "max_num_seqs is 512, over 256" in fired
    assert '"max_num_seqs": 512' in fired  # the document it read

    quiet = _try(
        staff_client, draft, when="args.max_num_seqs > 1024", try_profile=profile.pk
    ).content.decode()
    assert 'data-outcome="false"' in quiet


def test_try_reports_errors_of_the_condition(staff_client, staff, team, draft):
    profile = make_profile(staff, team, "small", "vllm serve m")
    syntax = _try(staff_client, draft, when="args.max_num_seqs >", try_profile=profile.pk).content.decode()
    assert 'data-outcome="error"' in syntax and "Syntax error" in syntax
    missing = _try(staff_client, draft, when="args.max_num_seqs > 1", try_profile=profile.pk).content.decode()
    assert 'data-outcome="error"' in missing and "does not give max_num_seqs" in missing
    not_bool = _try(staff_client, draft, when="1 + 1", try_profile=profile.pk).content.decode()
    assert "the condition gave 2, not true or false" in not_bool
    costly = "[1].all(a, [1].all(b, [1].all(c, [1].all(d, true))))"
    over = _try(staff_client, draft, when=costly, try_profile=profile.pk).content.decode()
    assert "cost over the limit" in over
    nothing = _try(staff_client, draft, when="true").content.decode()
    assert "choose a stored profile or paste a command" in nothing


def test_try_on_a_pasted_command_uses_the_fleet_release_and_its_defaults(staff_client, draft):
    body = _try(
        staff_client,
        draft,
        when="effective.tensor_parallel_size == 1 && args.enforce_eager",
        try_command="vllm serve meta-llama/Llama-3.1-8B-Instruct --enforce-eager",
    ).content.decode()
    assert 'data-outcome="true"' in body and "the pasted command" in body
    assert re.search(r'"effective": \{\s*"tensor_parallel_size": 1\s*\}', body)
    broken = _try(
        staff_client, draft, when="true", try_command="vllm serve m --max-num-seqs lots"
    ).content.decode()
    assert 'data-outcome="error"' in broken


def test_try_without_javascript_shows_the_editor_again_with_the_outcome(staff_client, staff, team, draft):
    profile = make_profile(staff, team, "plain", "vllm serve m")
    response = staff_client.post(
        f"/rulesets/{draft.number}/try/", {"when": "true", "try_profile": profile.pk}
    )
    body = response.content.decode()
    assert response.status_code == 200 and 'id="rule-form"' in body and 'data-outcome="true"' in body


def test_try_is_staff_only(client, user, draft):
    client.force_login(user)
    assert client.post(f"/rulesets/{draft.number}/try/", {"when": "true"}).status_code == 403


def test_document_reference_is_walked_from_the_engine(staff_client, draft):
    from validation.selectors import catalog_for, fleet_release

    page = staff_client.get(f"/rulesets/{draft.number}/document/").content.decode()
    for root in ("kind", "vllm", "model", "args", "effective", "env", "hardware", "derived", "values"):
        assert f'id="doc-{root}"' in page
    catalog = catalog_for(fleet_release())
    assert f"<code>args.{sorted(catalog.by_name)[0]}</code>" in page
    assert "<code>args.max_num_seqs</code></th><td>int" in page
    assert "<code>derived.model_max_len</code>" in page
    assert "<code>hardware.gpus_per_node</code>" in page
    assert "<code>model.config.num_attention_heads</code>" in page  # a config.json key the rules read
