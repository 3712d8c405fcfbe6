"""The validation pages (rule sets, drafts, impact, publish, re-checks, releases, alerts) through Django's
test client: every page renders, staff-only actions are refused to others, errors land on their form field,
and query counts stay flat as data grows (N+1 guards)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.utils.html import escape

from profiles.models import Alert, AlertPreference, Recheck
from profiles.services import ProfileInput, profile_create
from profiles.services.rechecks import recheck_run_inline
from tests.conftest import SEED_MESSAGE_031
from tests.examples import EAGER_RULE, rule_form_data
from validation.models import FleetSettings, Rule, RuleSet, VllmRelease
from validation.selectors import catalog_for
from validation.services import rulesets

pytestmark = pytest.mark.django_db
# Queries every signed-in page makes: session, user, and base.html's header (fleet release, the user's teams).
BASE = 4
SEED_RECORD = Path(__file__).resolve().parents[1] / "fixtures" / "error-record-seed.json"

EAGER_FORM = rule_form_data(EAGER_RULE)


def make_profile(owner, team, name, command="vllm serve m", kind="serving", version=""):
    data = ProfileInput.from_mapping(
        {"name": name, "kind": kind, "command": command, "vllm_version": version}
    )
    profile, _ = profile_create(actor=owner, team=team, data=data)
    return profile


@pytest.fixture
def user_client(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def draft(staff):
    return rulesets.ruleset_draft_create(actor=staff)


def current():
    return RuleSet.objects.filter(status="published").order_by("-number").first()


# ---- rule sets ---------------------------------------------------------------------------------------


def test_pages_need_a_login(client):
    for url in ("/rulesets/", "/releases/", "/alerts/", f"/rulesets/{current().number}/"):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], url


def test_ruleset_list_shows_versions_and_counts(user_client, draft, django_assert_max_num_queries):
    with django_assert_max_num_queries(BASE + 3):  # rule sets with counts, the two version pickers
        response = user_client.get("/rulesets/")
    assert response.status_code == 200
    body = response.content.decode()
    number = current().number
    assert f"rule set {number}</a>" in body and "current" in body and "draft" in body
    assert str(current().rules.count()) in body
    assert "Create draft" not in body  # staff only


def test_ruleset_detail_shows_rules_with_their_help(user_client, django_assert_max_num_queries):
    """Rows are collapsed: the page lists every rule; a rule's condition, solutions and source come with its
    body (loaded when the row opens, or on its own page)."""
    ruleset = current()
    rule = ruleset.rules.exclude(source="").exclude(solutions=[]).first()
    # rule set, its rules, the current one, its re-check, the filters' tags and releases, the unwritten rules
    with django_assert_max_num_queries(BASE + 7):
        response = user_client.get(f"/rulesets/{ruleset.number}/")
    assert response.status_code == 200
    body = response.content.decode()
    assert f'id="rule-{rule.rule_id}"' in body and f"/rules/{rule.rule_id}/body/" in body
    assert "Edit</a>" not in body  # a published rule set, and not staff
    full = user_client.get(f"/rulesets/{ruleset.number}/rules/{rule.rule_id}/body/").content.decode()
    assert "<pre><code>" in full and rule.source[:40] in full and escape(rule.solutions[0]) in full
    fragment = user_client.get(
        f"/rulesets/{ruleset.number}/rules/{rule.rule_id}/body/", HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "<html" not in fragment and rule.source[:40] in fragment


def test_ruleset_detail_filters(user_client):
    ruleset = current()
    total = ruleset.rules.count()
    one = ruleset.rules.exclude(tags=[]).first()
    response = user_client.get(f"/rulesets/{ruleset.number}/", {"q": one.rule_id})
    assert [r.rule_id for r in response.context["rules"]][:1] == [one.rule_id]
    assert f"of {total} rules match" in response.content.decode()
    errors = user_client.get(f"/rulesets/{ruleset.number}/", {"severity": "error", "category": "vllm"})
    assert {(r.severity, r.category) for r in errors.context["rules"]} == {("error", "vllm")}
    on_031 = user_client.get(f"/rulesets/{ruleset.number}/", {"release": "0.31.0"}).context["rules"]
    assert 0 < len(on_031) < total
    tagged = user_client.get(f"/rulesets/{ruleset.number}/", {"tag": one.tags[0]}).context["rules"]
    assert tagged and all(one.tags[0] in r.tags for r in tagged)


def test_ruleset_detail_queries_do_not_grow_with_rules(staff_client, draft, django_assert_max_num_queries):
    for i in range(30):
        rulesets.rule_save(ruleset=draft, data={**EAGER_RULE, "id": f"extra-{i}"})
    with django_assert_max_num_queries(BASE + 6):
        response = staff_client.get(f"/rulesets/{draft.number}/")
    assert response.status_code == 200 and "extra-29" in response.content.decode()


def test_staff_create_a_draft_others_are_refused(staff_client, client, user):
    response = staff_client.post("/rulesets/drafts/", {"notes": "eager policy"})
    draft = RuleSet.objects.get(status="draft")
    assert response.status_code == 302 and response["Location"] == f"/rulesets/{draft.number}/"
    assert draft.based_on == current() and draft.rules.count() == current().rules.count()

    client.force_login(user)
    assert client.post("/rulesets/drafts/", {}).status_code == 403
    assert RuleSet.objects.filter(status="draft").count() == 1


def test_add_edit_disable_delete_a_rule(staff_client, draft):
    base = f"/rulesets/{draft.number}/rules/"
    assert staff_client.get(base + "new/").status_code == 200
    response = staff_client.post(base + "new/", EAGER_FORM)
    assert response.status_code == 302, response.content.decode()
    rule = draft.rules.get(rule_id="org-no-enforce-eager")
    assert rule.solutions == ["Remove --enforce-eager", "Or use a collection profile"]
    assert rule.kinds == ["serving"] and rule.fields == ["enforce_eager"] and rule.enabled

    edit = staff_client.get(base + "org-no-enforce-eager/")
    assert edit.status_code == 200 and "has(args.enforce_eager)" in edit.content.decode()
    # The id is fixed on edit: a changed id in the post is ignored.
    response = staff_client.post(
        base + "org-no-enforce-eager/", {**EAGER_FORM, "id": "x", "severity": "warning"}
    )
    assert response.status_code == 302
    assert draft.rules.get(rule_id="org-no-enforce-eager").severity == "warning"
    assert not draft.rules.filter(rule_id="x").exists()

    assert staff_client.post(base + "org-no-enforce-eager/toggle/").status_code == 302
    assert draft.rules.get(rule_id="org-no-enforce-eager").enabled is False
    assert staff_client.post(base + "org-no-enforce-eager/delete/").status_code == 302
    assert not draft.rules.filter(rule_id="org-no-enforce-eager").exists()


def test_cel_syntax_error_is_shown_on_the_when_field(staff_client, draft):
    response = staff_client.post(
        f"/rulesets/{draft.number}/rules/new/", {**EAGER_FORM, "when": "args.enforce_eager &&& true"}
    )
    assert response.status_code == 400
    form = response.context["form"]
    assert list(form.errors) == ["when"] and "org-no-enforce-eager" in form.errors["when"][0]
    body = response.content.decode()
    field = body[body.index('id="field-when"') :]
    field = field[: field.index('id="field-versions"')]
    assert 'class="errorlist' in field and "&amp;&amp;&amp;" in field  # the error and the text typed
    assert not draft.rules.filter(rule_id="org-no-enforce-eager").exists()


def test_bad_version_range_and_fix_are_shown_on_their_fields(staff_client, draft):
    response = staff_client.post(
        f"/rulesets/{draft.number}/rules/new/", {**EAGER_FORM, "versions": ">=banana"}
    )
    assert response.status_code == 400 and list(response.context["form"].errors) == ["versions"]
    response = staff_client.post(f"/rulesets/{draft.number}/rules/new/", {**EAGER_FORM, "fix": "{nope"})
    assert response.status_code == 400 and list(response.context["form"].errors) == ["fix"]


def test_rule_actions_are_staff_only_and_drafts_only(client, user, staff_client, draft):
    published = current()
    rule = published.rules.first()
    # A published rule set cannot be edited, even by staff.
    assert staff_client.get(f"/rulesets/{published.number}/rules/new/").status_code == 404
    assert staff_client.post(f"/rulesets/{published.number}/rules/{rule.rule_id}/delete/").status_code == 404
    client.force_login(user)
    for method, url in [
        ("get", f"/rulesets/{draft.number}/rules/new/"),
        ("post", f"/rulesets/{draft.number}/rules/new/"),
        ("post", f"/rulesets/{draft.number}/rules/{rule.rule_id}/toggle/"),
        ("post", f"/rulesets/{draft.number}/rules/{rule.rule_id}/delete/"),
        ("post", f"/rulesets/{draft.number}/import/"),
        ("get", f"/rulesets/{draft.number}/publish/"),
        ("post", f"/rulesets/{draft.number}/publish/"),
        ("post", "/releases/fleet/"),
    ]:
        assert getattr(client, method)(url, EAGER_FORM if "rules/new" in url else {}).status_code == 403, url
    assert draft.rules.filter(rule_id=rule.rule_id).exists()


def test_import_error_records(staff_client, draft):
    record = json.dumps(json.loads(SEED_RECORD.read_text()))
    response = staff_client.post(f"/rulesets/{draft.number}/import/", {"records": record})
    assert response.status_code == 302
    imported = draft.rules.get(message=SEED_MESSAGE_031, when="")
    assert imported.enabled is False

    bad = staff_client.post(f"/rulesets/{draft.number}/import/", {"records": "{not json"})
    assert bad.status_code == 400 and "line 1: not JSON" in bad.context["form"].errors["records"][0]


def test_impact_publish_confirmation_and_progress(staff_client, staff, user, team, draft):
    make_profile(user, team, "plain")
    eager = make_profile(user, team, "eager", command="vllm serve m --enforce-eager")
    make_profile(user, team, "eager-2", command="vllm serve m --enforce-eager")
    rulesets.rule_save(ruleset=draft, data=dict(EAGER_RULE))

    impact = staff_client.get(f"/rulesets/{draft.number}/impact/")
    assert impact.status_code == 200
    assert impact.context["preview"]["counts"]["would_become_invalid"] == 2
    body = impact.content.decode()
    assert f"/profiles/{eager.pk}/" in body and EAGER_RULE["message"] in body

    confirm = staff_client.get(f"/rulesets/{draft.number}/publish/")
    assert confirm.status_code == 200
    assert "2 profiles will become invalid" in confirm.content.decode()
    assert RuleSet.objects.get(pk=draft.pk).status == "draft"  # looking publishes nothing

    published = staff_client.post(f"/rulesets/{draft.number}/publish/")
    recheck = Recheck.objects.get(ruleset=draft)
    assert published.status_code == 302 and published["Location"] == f"/rechecks/{recheck.pk}/"
    assert current() == RuleSet.objects.get(pk=draft.pk)

    page = staff_client.get(f"/rechecks/{recheck.pk}/")
    assert page.status_code == 200
    body = page.content.decode()
    assert 'hx-trigger="every 1s"' in body and f'hx-get="/rechecks/{recheck.pk}/progress/"' in body
    assert "0 / 3" in body

    recheck_run_inline(recheck.pk)
    fragment = staff_client.get(f"/rechecks/{recheck.pk}/progress/")
    body = fragment.content.decode()
    assert fragment.status_code == 200 and "<html" not in body
    assert ">done<" in body and "3 / 3" in body and "2 newly invalid" in body
    assert "hx-trigger" not in body  # done: the fragment stops polling
    # The published rule set's page shows the same progress, and its rules are no longer editable.
    detail = staff_client.get(f"/rulesets/{draft.number}/").content.decode()
    assert "2 newly invalid" in detail and "Edit</a>" not in detail


def test_publish_refused_with_a_reason_when_a_rule_has_no_condition(staff_client, draft):
    record = json.dumps(json.loads(SEED_RECORD.read_text()))
    rulesets.ruleset_import_records(ruleset=draft, text=record)
    rule = draft.rules.get(message=SEED_MESSAGE_031, when="")
    rulesets.rule_save(ruleset=draft, data={"id": rule.rule_id, "enabled": True})
    response = staff_client.post(f"/rulesets/{draft.number}/publish/")
    assert response.status_code == 400 and rule.rule_id in response.content.decode()
    assert RuleSet.objects.get(pk=draft.pk).status == "draft" and not Recheck.objects.exists()


def test_compare_two_versions(user_client, draft):
    rulesets.rule_save(ruleset=draft, data=dict(EAGER_RULE))
    changed = current().rules.first()
    rulesets.rule_save(ruleset=draft, data={"id": changed.rule_id, "severity": "info"})
    response = user_client.get("/rulesets/compare/", {"old": current().number, "new": draft.number})
    assert response.status_code == 200
    comparison = response.context["comparison"]
    assert comparison["added"] == ["org-no-enforce-eager"]
    assert [c["id"] for c in comparison["changed"]] == [changed.rule_id]
    assert "org-no-enforce-eager" in response.content.decode()
    assert user_client.get("/rulesets/compare/", {"old": 999, "new": draft.number}).status_code == 400


# ---- releases ----------------------------------------------------------------------------------------


def test_release_list(user_client, django_assert_max_num_queries):
    # releases, fleet, latest re-check, two release pickers; the fleet chart's cache key: the current rule
    # set, waivers, and the fingerprint's profile, verdict and catalog aggregates; the re-check chart
    with django_assert_max_num_queries(BASE + 12):
        response = user_client.get("/releases/")
    assert response.status_code == 200
    body = response.content.decode()
    release = VllmRelease.objects.get(version="0.31.0")
    assert 'id="release-0.31.0"' in body and release.source["commit"] in body
    assert ">311<" in body  # its argument count
    assert "Change the fleet default" not in body  # staff only


def test_fleet_change_starts_a_recheck(staff_client, user, team):
    make_profile(user, team, "follows-fleet")
    assert "Change the fleet default" in staff_client.get("/releases/").content.decode()
    response = staff_client.post("/releases/fleet/", {"release": "0.31.0"})
    recheck = Recheck.objects.get(cause="release")
    assert response.status_code == 302 and response["Location"] == f"/rechecks/{recheck.pk}/"
    assert FleetSettings.objects.get().default_release.version == "0.31.0"
    assert recheck.total == 1 and recheck.release.version == "0.31.0"
    # The same release again changes nothing and says so.
    again = staff_client.post("/releases/fleet/", {"release": "0.31.0"}, follow=True)
    assert Recheck.objects.filter(cause="release").count() == 1 and "already runs" in again.content.decode()
    # A release without a catalog is not offered.
    bad = staff_client.post("/releases/fleet/", {"release": "9.9.9"}, follow=True)
    assert "valid choice" in bad.content.decode()


def test_upgrade_preview_names_the_errors_that_appear(user_client, user, staff, team):
    """The profiles that follow the fleet are previewed on the release; one pinned to another release is
    listed apart as not affected (a fleet change leaves it alone)."""
    from validation.selectors import release_get
    from validation.services.fleet import fleet_set_release

    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    seed = (
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --return-sampling-mask --logprobs-mode processed_logprobs "
        '--speculative-config \'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\''
    )
    profile = make_profile(user, team, "teacher", command=seed, kind="collection")
    pinned = make_profile(user, team, "pinned", command=seed, kind="collection", version="0.32.0")
    response = user_client.get("/releases/0.31.0/preview/")
    assert response.status_code == 200
    preview = response.context["preview"]
    assert preview["counts"]["would_become_invalid"] == 1
    assert preview["would_become_invalid"][0]["id"] == profile.pk
    assert [p["id"] for p in preview["not_affected"]] == [pinned.pk]
    body = response.content.decode()
    assert SEED_MESSAGE_031 in body
    assert "Not affected: pinned to another release (1)" in body and f'href="/profiles/{pinned.pk}/"' in body
    assert user_client.get("/releases/7.7.7/preview/").status_code == 404


def test_release_without_catalog_is_said_so(user_client):
    bare = VllmRelease.objects.create(version="0.99.0", major=0, minor=99)
    body = user_client.get(f"/releases/{bare.version}/preview/").content.decode()
    assert "has no argument catalog" in body
    body = user_client.get(f"/releases/{bare.version}/coverage/").content.decode()
    assert "Not available" in body and "import_vllm_release" in body


def test_release_diff(user_client):
    response = user_client.get("/releases/diff/", {"old": "0.31.0", "new": "0.32.0"})
    assert response.status_code == 200
    diff = response.context["diff"]
    assert diff["from"] == "0.31.0" and diff["to"] == "0.32.0"
    body = response.content.decode()
    assert "vLLM 0.31.0 → 0.32.0" in body
    # Values as vLLM's CLI writes them, and words where a side has none.
    assert "<code>False</code>" not in body and "<code>True</code>" not in body
    sides = [c for a in diff["arguments"]["changed"] for c in a["changes"].values()]
    assert any(c["to"] is None for c in sides) and '<em class="absent">removed</em>' in body
    assert any(c["to"] is True for c in sides) and "<code>true</code>" in body  # deprecated: False -> True
    assert user_client.get("/releases/diff/", {"old": "0.31.0", "new": "nope"}).status_code == 400
    assert user_client.get("/releases/diff/").status_code == 200  # the empty form


def test_release_coverage(user_client):
    response = user_client.get("/releases/0.31.0/coverage/")
    assert response.status_code == 200
    summary = response.context["coverage"]["summary"]
    assert f"{summary['covered']} of {summary['raise_sites']}" in response.content.decode()


# ---- alerts ------------------------------------------------------------------------------------------


def _alerts_for(user, team, staff, count):
    for i in range(count):
        make_profile(user, team, f"eager-{i}", command="vllm serve m --enforce-eager")
    draft = rulesets.ruleset_draft_create(actor=staff)
    rulesets.rule_save(ruleset=draft, data=dict(EAGER_RULE))
    recheck = rulesets.ruleset_publish(ruleset=draft, actor=staff)
    recheck_run_inline(recheck.pk)


def test_alert_list_shows_profile_state_cause_and_errors(
    user_client, user, team, staff, django_assert_max_num_queries
):
    _alerts_for(user, team, staff, 2)
    Alert.objects.filter(recipient=user).update(state="failed", last_error="SMTPServerDisconnected: gone")
    with django_assert_max_num_queries(BASE + 4):  # count, page of alerts with joins, preference, per week
        response = user_client.get("/alerts/")
    body = response.content.decode()
    assert response.status_code == 200
    assert "ml-platform/eager-0" in body and "ml-platform/eager-1" in body
    assert EAGER_RULE["message"] in body and "rule set published" in body
    assert "SMTPServerDisconnected: gone" in body and "invalid" in body


def test_alert_list_queries_do_not_grow(user_client, user, team, staff, django_assert_max_num_queries):
    _alerts_for(user, team, staff, 12)
    assert Alert.objects.filter(recipient=user).count() == 12
    with django_assert_max_num_queries(BASE + 4):  # + the alerts-per-week chart
        assert user_client.get("/alerts/").status_code == 200


def test_alert_preference_toggle(user_client, user):
    assert "E-mail alerts are <strong" in user_client.get("/alerts/").content.decode()
    response = user_client.post("/alerts/preference/", {})
    assert response.status_code == 302 and AlertPreference.objects.get(user=user).email_alerts is False
    user_client.post("/alerts/preference/", {"email_alerts": "on"})
    assert AlertPreference.objects.get(user=user).email_alerts is True
    # With htmx the fragment comes back alone.
    fragment = user_client.post("/alerts/preference/", {}, HTTP_HX_REQUEST="true")
    assert fragment.status_code == 200 and "<html" not in fragment.content.decode()
    assert ">off<" in fragment.content.decode()


def test_rule_model_untouched_by_views(staff_client, draft):
    """A re-rendered form after an error keeps what was typed, and nothing is stored."""
    before = Rule.objects.count()
    staff_client.post(f"/rulesets/{draft.number}/rules/new/", {**EAGER_FORM, "category": "bogus"})
    assert Rule.objects.count() == before


def test_impact_counts_identical_profiles_each_and_respects_waivers(staff_client, staff, user, team, draft):
    """The preview evaluates each distinct document once; every copy is still counted, a waiver still counts."""
    from datetime import timedelta

    from django.utils import timezone

    from profiles.models import Waiver

    copies = [
        make_profile(user, team, f"eager-{i}", command="vllm serve m --enforce-eager") for i in range(4)
    ]
    Waiver.objects.create(
        profile=copies[0],
        rule_id=EAGER_RULE["id"],
        reason="load test rig",
        granted_by=staff,
        expires_at=timezone.now() + timedelta(days=1),
    )
    rulesets.rule_save(ruleset=draft, data=dict(EAGER_RULE))
    preview = staff_client.get(f"/rulesets/{draft.number}/impact/").context["preview"]
    assert preview["total"] == 4 and preview["counts"]["would_become_invalid"] == 3
    assert preview["distinct_documents"] == 2  # with and without the waiver
    assert {p["id"] for p in preview["would_become_invalid"]} == {p.pk for p in copies[1:]}


def test_kept_impact_follows_every_change_of_its_inputs(staff_client, staff, user, team, draft):
    """The publish confirmation reuses the impact's outcome only while profiles, verdicts, waivers and the
    draft's rules are unchanged."""
    from profiles.services import profile_update

    make_profile(user, team, "eager-0", command="vllm serve m --enforce-eager")
    rulesets.rule_save(ruleset=draft, data=dict(EAGER_RULE))
    url = f"/rulesets/{draft.number}/impact/"

    def invalid():
        return staff_client.get(url).context["preview"]["counts"]["would_become_invalid"]

    assert invalid() == 1
    second = make_profile(user, team, "eager-1", command="vllm serve m --enforce-eager")
    assert invalid() == 2  # a new profile
    profile_update(
        actor=user,
        profile=second,
        data=ProfileInput.from_mapping({"command": "vllm serve m"}),
        expected_revision=1,
    )
    assert invalid() == 1  # an edited profile
    rulesets.rule_save(ruleset=draft, data={"id": EAGER_RULE["id"], "severity": "warning"})
    assert invalid() == 0  # an edited rule
    confirm = staff_client.get(f"/rulesets/{draft.number}/publish/").content.decode()
    assert "0 profiles will become invalid" in confirm


@pytest.mark.django_db
def test_large_fleet_previews_are_computed_by_a_worker_and_the_page_polls(
    settings, staff, django_capture_on_commit_callbacks
):
    """Above PREVIEW_INLINE_PROFILES, impact, publish confirmation and upgrade preview answer at once with
    an "evaluating" page and schedule one task; once the task has run, the same URLs show the result."""
    from django.core.cache import cache
    from django.test import Client

    from profiles.services import ProfileInput, profile_create, team_create
    from profiles.tasks import preview_task
    from validation.services import rulesets

    cache.clear()
    settings.PREVIEW_INLINE_PROFILES = 0
    team = team_create(actor=staff, slug="big", name="Big")
    profile_create(
        actor=staff,
        team=team,
        data=ProfileInput.from_mapping(
            {
                "name": "eager",
                "kind": "serving",
                "command": "vllm serve m --enforce-eager",
                "vllm_version": "0.32.0",
            }
        ),
    )
    draft = rulesets.ruleset_draft_create(actor=staff)
    client = Client()
    client.force_login(staff)
    url = f"/rulesets/{draft.number}/impact/"
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first = client.get(url)
        again = client.get(url)
    assert first.status_code == 200 and b"Evaluating every stored profile" in first.content
    assert b'hx-trigger="every 2s"' in first.content and b'http-equiv="refresh"' in first.content
    assert b"Evaluating every stored profile" in again.content
    assert len(callbacks) == 1  # scheduled once, not once per look
    preview_task(draft.pk, None)
    ready = client.get(url)
    assert b"Evaluating" not in ready.content and b" checked</div>" in ready.content
    confirm = client.get(f"/rulesets/{draft.number}/publish/")
    assert b"will become invalid" in confirm.content
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        upgrade = client.get("/releases/0.31.0/preview/")
    assert b"Evaluating every stored profile" in upgrade.content and len(callbacks) == 1


def test_fleet_change_is_confirmed_with_the_previews_counts(staff_client, user, team):
    """The release list's form leads to a confirmation stating what the change will do; only its POST moves
    the fleet."""
    make_profile(user, team, "follows-fleet", command="vllm serve m --enforce-eager")
    make_profile(user, team, "pinned", version="0.32.0")
    before = FleetSettings.objects.get().default_release.version
    page = staff_client.get("/releases/fleet/confirm/", {"release": "0.31.0"})
    assert page.status_code == 200
    body = page.content.decode()
    assert f"Move the fleet from vLLM {before} to vLLM 0.31.0?" in body
    assert "1 profile pinned to another release is not re-checked and not moved" in body
    assert 'action="/releases/fleet/"' in body and 'value="0.31.0"' in body
    assert FleetSettings.objects.get().default_release.version == before  # nothing changed yet
    assert not Recheck.objects.exists()
    bad = staff_client.get("/releases/fleet/confirm/", {"release": "9.9.9"}, follow=True)
    assert "valid choice" in bad.content.decode()


def test_rule_path_typo_is_refused_with_a_did_you_mean_and_a_partial_path_warned(staff_client, draft):
    form = {**EAGER_FORM, "id": "org-max-seqs", "when": "has(args.max_num_seq) && args.max_num_seq > 512"}
    response = staff_client.post(f"/rulesets/{draft.number}/rules/new/", form)
    assert response.status_code == 400
    errors = response.context["form"].errors["when"]
    assert "did you mean args.max_num_seqs?" in errors[0]
    assert not draft.rules.filter(rule_id="org-max-seqs").exists()

    # An argument that only the newer releases of the rule's range know: saved, warned on its field.
    newest = VllmRelease.objects.exclude(catalog_sha256="").order_by("major", "minor", "patch")
    names = {v.version: set(catalog_for(v).by_name) for v in newest}
    versions = list(names)
    added = sorted(names[versions[-1]] - names[versions[0]])[0]
    form = {**EAGER_FORM, "id": "org-new-arg", "when": f"has(args.{added})", "versions": ""}
    saved = staff_client.post(f"/rulesets/{draft.number}/rules/new/", form)
    assert saved.status_code == 302 and saved["Location"].endswith("/rules/org-new-arg/")
    page = staff_client.get(saved["Location"]).content.decode()
    assert f"args.{added} is not an argument of vLLM {versions[0]}" in page


def test_release_list_charts_recheck_durations(user_client, user, team):
    from profiles.services.rechecks import recheck_start

    for i in range(3):
        make_profile(user, team, f"p{i}")
    recheck = recheck_start(cause="manual")
    recheck_run_inline(recheck.pk)
    recheck.refresh_from_db()
    body = user_client.get("/releases/").content.decode()
    assert f'data-recheck="{recheck.pk}"' in body
    seconds = (recheck.finished_at - recheck.started_at).total_seconds()
    assert f"Re-check {recheck.pk} (manual): 3 profiles in {round(max(seconds, 0.001), 2)} s" in body


def test_alerts_page_charts_alerts_per_week(user, staff, team):
    from django.test import Client

    from validation.selectors import release_get
    from validation.services.fleet import fleet_set_release

    fleet_set_release(release=release_get("0.32.0"), actor=staff)
    from tests.conftest import SEED_COMMAND

    make_profile(user, team, "teacher", command=SEED_COMMAND, kind="collection")
    recheck = fleet_set_release(release=release_get("0.31.0"), actor=staff)
    recheck_run_inline(recheck.pk)
    client = Client()
    client.force_login(user)
    response = client.get("/alerts/")
    weeks = response.context["per_week"]
    assert len(weeks) == 12 and weeks[-1]["count"] == 1 and sum(w["count"] for w in weeks) == 1
    body = response.content.decode()
    assert f'data-week="{weeks[-1]["week"]:%Y-%m-%d}" data-count="1"' in body
