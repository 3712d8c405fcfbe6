"""Creating a profile writes its rows in one transaction: the answer is what a GET gives, the rows are those of a
save, a refused save leaves none, and a save checks against the team as it is now."""

import json

import pytest
from django.db import connection

from accounts.models import AuditEvent
from hub.models import NodeType
from profiles.models import (
    Profile,
    ProfileRevision,
    Team,
    TeamMembership,
    Verdict,
    VerdictChange,
    VerdictCheck,
    VerdictRule,
)
from profiles.services import team_add_member, team_create
from tests.conftest import SEED_COMMAND
from vllmcheck.engine.types import Finding

# JSON values that PostgreSQL's jsonb stores differently from how Python wrote them: its own key order,
# 1e20 as an integer, -0.0 as 0.0. The answer must show them as stored, as a later GET does.
ODD_JSON = {
    "team": "ml-platform",
    "name": "odd-json",
    "kind": "serving",
    "model": "meta-llama/Llama-3.1-8B-Instruct",
    "vllm_version": "0.33.0",
    "engine_args": {
        "max_model_len": 4096,
        "hf_overrides": {"zz": 1e20, "a": -0.0, "list": [1.5e-7, 1e16, 12345678901234567890.0]},
        "gpu_memory_utilization": 0.9,
    },
    "env": {"B": "1", "A": "x"},
    "hardware": {"gpu_count": 8, "gpu": "H100"},
    "model_config": {"num_hidden_layers": 32, "architectures": ["LlamaForCausalLM"], "hidden_size": 4096},
}
WITH_FINDINGS = {
    "team": "ml-platform",
    "name": "seed",
    "kind": "collection",
    "vllm_version": "0.32.0",
    "command": SEED_COMMAND,
}


def _created_then_read(api, body):
    created = api.post("/api/v1/profiles/", body, format="json")
    assert created.status_code == 201, created.content
    read = api.get(f"/api/v1/profiles/{created.json()['id']}/")
    assert read.status_code == 200
    return created, read


def _answer_is_a_get(api):
    for body in (ODD_JSON, WITH_FINDINGS):
        created, read = _created_then_read(api, body)
        assert created.json() == read.json()
        assert created["ETag"] == read["ETag"]
    stored = Profile.objects.get(name="odd-json").engine_args["hf_overrides"]
    if connection.vendor == "postgresql":  # jsonb's numbers (the embedded SQLite keeps the JSON text)
        assert stored == {"zz": 10**20, "a": 0.0, "list": [1.5e-7, 10**16, 12345678901234567000]}
    assert Profile.objects.get(name="seed").verdict.findings  # the case with findings has some


@pytest.mark.django_db
def test_the_answer_is_what_a_get_gives_inside_a_transaction(api, team):
    _answer_is_a_get(api)


@pytest.mark.django_db(transaction=True)
def test_the_answer_is_what_a_get_gives_in_autocommit(api, team):
    _answer_is_a_get(api)


@pytest.mark.django_db
def test_a_new_profile_has_the_rows_of_a_save(api, team, user):
    created = api.post("/api/v1/profiles/", WITH_FINDINGS, format="json")
    assert created.status_code == 201, created.content
    profile = Profile.objects.get(pk=created.json()["id"])
    verdict = Verdict.objects.get(profile=profile)
    active = [f for f in verdict.findings if Finding.active_in(f)]
    assert active and verdict.profile_revision == 1
    assert (profile.state, profile.error_count, profile.warning_count) == (
        verdict.state,
        verdict.error_count,
        verdict.warning_count,
    )
    assert verdict.rule_ids == sorted({f["rule"] for f in active})
    assert sorted(VerdictRule.objects.filter(profile=profile).values_list("rule_id", flat=True)) == (
        verdict.rule_ids
    )
    check = VerdictCheck.objects.get(verdict=verdict)
    assert check.release.version == "0.32.0" and check.ruleset is not None and check.pending_recheck is None
    assert check.release_catalog_sha256 == check.release.catalog_sha256 and check.computed_at
    (change,) = VerdictChange.objects.filter(profile=profile)
    assert (change.from_state, change.to_state, change.cause) == ("", verdict.state, "created")
    assert change.actor == user and change.ruleset == check.ruleset and change.release == check.release
    assert change.appeared == active and change.disappeared == [] and change.profile_revision == 1
    (revision,) = ProfileRevision.objects.filter(profile=profile)
    assert revision.revision == 1 and revision.author == user and revision.data["name"] == "seed"
    assert revision.data["engine_args"] == profile.engine_args and revision.data["team"] == "ml-platform"
    entry = AuditEvent.objects.get(action="profile.create")
    assert (entry.object_type, entry.object_id, entry.object_repr) == (
        "profile",
        str(profile.pk),
        "ml-platform/seed",
    )
    assert entry.actor == user and entry.team_id == team.pk and entry.team_slug == "ml-platform"
    assert entry.before is None and entry.after == {**revision.data, "revision": 1}
    assert profile.created_at <= revision.created_at <= entry.at <= change.created_at


@pytest.mark.django_db(transaction=True)
def test_a_taken_name_in_autocommit_is_refused_and_writes_nothing(api, team):
    assert api.post("/api/v1/profiles/", WITH_FINDINGS, format="json").status_code == 201
    counts = [m.objects.count() for m in (Profile, ProfileRevision, AuditEvent, Verdict, VerdictChange)]
    again = api.post("/api/v1/profiles/", WITH_FINDINGS, format="json")
    assert again.status_code == 400
    assert "already has a profile named 'seed'" in str(again.json())
    assert [
        m.objects.count() for m in (Profile, ProfileRevision, AuditEvent, Verdict, VerdictChange)
    ] == counts
    assert (
        VerdictCheck.objects.count() == counts[3]
        and VerdictRule.objects.filter(profile__name="seed").exists()
    )


def _two_gpus(name: str) -> dict:
    """A profile over two GPUs: a team whose default node has one GPU refuses it; without a node type,
    whether it fits cannot be verified (an info finding) and it is saved."""
    return {
        "team": "ml-platform",
        "name": name,
        "kind": "serving",
        "vllm_version": "0.33.0",
        "command": "vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2",
    }


WORLD_SIZE = "World size (2) is larger than the number of available GPUs (1)"


@pytest.mark.django_db
def test_a_save_never_relies_on_a_team_changed_since_this_process_read_it(api, team):
    """Another process changes the team's default node type: a save checks against the team as it is now,
    whether the team as it was would have accepted it or refused."""
    one_gpu = NodeType.objects.create(name="one-gpu", gpu="L4", gpus_per_node=1, gpu_memory_gb=24)
    assert api.post("/api/v1/profiles/", _two_gpus("first"), format="json").status_code == 201
    Team.objects.filter(pk=team.pk).update(default_node_type=one_gpu)
    refused = api.post("/api/v1/profiles/", _two_gpus("second"), format="json")
    assert refused.status_code == 400 and WORLD_SIZE in json.dumps(refused.json())
    assert not Profile.objects.filter(name="second").exists()
    Team.objects.filter(pk=team.pk).update(default_node_type=None)
    saved = api.post("/api/v1/profiles/", _two_gpus("third"), format="json")
    assert saved.status_code == 201, saved.content
    assert WORLD_SIZE not in json.dumps(saved.json())
    assert saved.json() == api.get(f"/api/v1/profiles/{saved.json()['id']}/").json()


@pytest.mark.django_db
def test_a_team_renamed_since_this_process_read_it_is_not_found_under_its_old_slug(api, staff, user, team):
    assert api.post("/api/v1/profiles/", _two_gpus("first"), format="json").status_code == 201
    Team.objects.filter(pk=team.pk).update(slug="renamed")
    gone = api.post("/api/v1/profiles/", _two_gpus("second"), format="json")
    assert gone.status_code == 400 and gone.json() == {"team": ["no team with slug 'ml-platform'"]}
    assert Profile.objects.filter(team=team).count() == 1
    again = team_create(actor=staff, slug="ml-platform", name="ML platform, again")
    team_add_member(actor=staff, team=again, user=user, role=TeamMembership.Role.EDITOR)
    created = api.post("/api/v1/profiles/", _two_gpus("second"), format="json")
    assert created.status_code == 201, created.content
    assert Profile.objects.get(name="second").team == again
