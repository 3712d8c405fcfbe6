"""The shipped rule pack reaches a database that already has profiles, and imported records do not block a publish."""

import json
from pathlib import Path

import yaml
from django.core.management import call_command

from profiles.models import Recheck, Verdict
from profiles.services import ProfileInput, profile_create
from profiles.services.rechecks import recheck_run_inline
from tests.examples import EAGER_RULE
from validation.models import RuleSet
from validation.services import rulesets

SEED_RECORD = Path(__file__).resolve().parents[1] / "fixtures" / "error-record-seed.json"


def make_profile(owner, team, name, command):
    profile, _ = profile_create(
        actor=owner,
        team=team,
        data=ProfileInput.from_mapping({"name": name, "kind": "serving", "command": command}),
    )
    return profile


def current():
    return RuleSet.objects.filter(status="published").order_by("-number").first()


def shipped_pack_with(tmp_path, extra_rule):
    pack = yaml.safe_load(rulesets.BUILTIN_PACK.read_text())
    pack["rules"].append(extra_rule)
    path = tmp_path / "builtin.yaml"
    path.write_text(yaml.safe_dump(pack, sort_keys=False))
    return path


def test_migrate_loads_the_shipped_pack_once(db):
    loaded = current()
    assert loaded.builtin_digest == rulesets.builtin_pack_digest()
    call_command("migrate", verbosity=0)
    assert RuleSet.objects.count() == 1 and current() == loaded


def test_a_new_shipped_pack_replaces_an_untouched_one_and_rechecks_the_fleet(db, user, team, tmp_path):
    eager = make_profile(user, team, "eager", command="vllm serve m --enforce-eager")
    before = current()
    path = shipped_pack_with(tmp_path, EAGER_RULE)

    upgraded = rulesets.ruleset_load_builtin(path)

    assert upgraded.status == "published" and current() == upgraded and upgraded.based_on == before
    assert "product upgrade" in upgraded.notes
    recheck = Recheck.objects.get(ruleset=upgraded)
    recheck_run_inline(recheck.pk)
    verdict = Verdict.objects.get(profile=eager)
    assert verdict.state == "invalid"
    assert EAGER_RULE["message"] in json.dumps(verdict.findings)
    # Idempotent: the same shipped pack again changes nothing.
    assert rulesets.ruleset_load_builtin(path) is None and current() == upgraded


def test_a_rule_set_people_made_is_kept_and_the_new_pack_waits_as_a_draft(db, staff, tmp_path):
    draft = rulesets.ruleset_draft_create(actor=staff)
    rulesets.rule_save(
        ruleset=draft,
        data={
            "id": "ours-only",
            "category": "policy",
            "severity": "warning",
            "when": "false",
            "message": "ours",
        },
    )
    some_builtin = draft.rules.exclude(rule_id="ours-only").first().rule_id
    rulesets.rule_save(ruleset=draft, data={"id": some_builtin, "enabled": False})
    rulesets.ruleset_publish(ruleset=draft, actor=staff)
    ours = current()

    offered = rulesets.ruleset_load_builtin(shipped_pack_with(tmp_path, EAGER_RULE))

    assert current() == ours, "a rule set people published is never replaced by an upgrade"
    assert offered.status == "draft" and offered.based_on == ours and "Review and publish" in offered.notes
    rules = {r.rule_id: r for r in offered.rules.all()}
    assert EAGER_RULE["id"] in rules and "ours-only" in rules
    assert rules[some_builtin].enabled is False
    assert rulesets.ruleset_load_builtin(shipped_pack_with(tmp_path, EAGER_RULE)) is None  # offered once


def test_a_draft_holding_imported_records_publishes(db, staff):
    draft = rulesets.ruleset_draft_create(actor=staff)
    imported = rulesets.ruleset_import_records(
        ruleset=draft, text=json.dumps(json.loads(SEED_RECORD.read_text()))
    )
    assert imported and all(not r.enabled and not r.when for r in imported)

    rulesets.ruleset_publish(ruleset=draft, actor=staff)

    published = RuleSet.objects.get(pk=draft.pk)
    assert published.status == "published" and current() == published
    assert published.rules.filter(rule_id=imported[0].rule_id, enabled=False).exists()
