"""The REST API of profiles, as automation (CI pipelines, GitOps) uses it."""

import pytest
from django.urls import reverse

from profiles.models import Profile, ProfileRevision, Verdict, VerdictChange
from tests.conftest import MRV2_MESSAGE, SEED_COMMAND, SEED_MESSAGE_031

pytestmark = pytest.mark.django_db


def create(api, **fields):
    body = {"team": "ml-platform", "name": "teacher", "kind": "collection", **fields}
    return api.post("/api/v1/profiles/", body, format="json")


def messages(document, severity="error"):
    return [f["message"] for f in document["findings"] if f["severity"] == severity]


def test_seed_profile_on_031_is_refused_with_vllms_words_and_nothing_is_saved(api, team):
    response = create(api, command=SEED_COMMAND, vllm_version="0.31.0")
    assert response.status_code == 400
    document = response.json()
    assert document["valid"] is False and document["vllm_version"] == "0.31.0"
    assert SEED_MESSAGE_031 in messages(document)
    assert isinstance(document["ruleset"], int)
    assert (
        not Profile.objects.exists() and not Verdict.objects.exists() and not ProfileRevision.objects.exists()
    )


def test_seed_profile_on_032_is_saved_with_state_and_findings(api, team):
    response = create(api, command=SEED_COMMAND, vllm_version="0.32.0")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["state"] in ("valid", "warning")
    assert body["engine_args"]["return_sampling_mask"] is True
    assert body["engine_args"]["speculative_config"]["method"] == "ngram"
    assert body["env"] == {"VLLM_USE_V2_MODEL_RUNNER": "1"}
    assert body["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert body["vllm_version"] == "0.32.0" and body["revision"] == 1
    profile = Profile.objects.get()
    assert profile.verdict.release.version == "0.32.0" and profile.verdict.profile_revision == 1
    assert VerdictChange.objects.filter(profile=profile, cause="created").count() == 1


def test_without_env_assignment_031_needs_model_runner_v2(api, team):
    command = SEED_COMMAND.replace("VLLM_USE_V2_MODEL_RUNNER=1 ", "")
    response = create(api, command=command, vllm_version="0.31.0")
    assert response.status_code == 400
    assert MRV2_MESSAGE in messages(response.json())


def test_engine_args_and_env_are_accepted(api, team):
    response = create(
        api,
        model="meta-llama/Llama-3.1-8B-Instruct",
        kind="serving",
        name="chat",
        vllm_version="0.31.0",
        engine_args={"tensor-parallel-size": 2, "max_model_len": 8192},
        env={"VLLM_LOGGING_LEVEL": "INFO"},
    )
    assert response.status_code == 201, response.json()
    assert response.json()["engine_args"] == {"tensor_parallel_size": 2, "max_model_len": 8192}


def test_warnings_are_saved_and_returned(api, team):
    # A serving profile that returns sampling masks pays for collection on production traffic.
    command = (
        "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve m --return-sampling-mask --logprobs-mode processed_logprobs"
    )
    response = create(api, command=command, vllm_version="0.32.0", kind="serving", name="mixed")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["state"] == "warning"
    assert any(f["category"] == "policy" and f["severity"] == "warning" for f in body["findings"])


def test_empty_vllm_version_follows_the_fleet_default(api, team):
    response = create(api, command="vllm serve m", vllm_version="", kind="serving")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["vllm_version"] == ""
    fleet = api.get("/api/v1/fleet/").json()["vllm_version"]
    assert body["effective_vllm_version"] == fleet


def test_malformed_command_is_a_400_naming_the_token(api, team):
    response = create(
        api, command="vllm serve m --speculative-config '{\"method\": ngram}'", vllm_version="0.31.0"
    )
    assert response.status_code == 400
    assert "speculative" in str(response.json()["command"]).lower()
    assert not Profile.objects.exists()


def test_unknown_release_and_unknown_team_are_400(api, team):
    response = create(api, command="vllm serve m", vllm_version="0.19.9")
    assert response.status_code == 400 and "0.19.9" in response.json()["vllm_version"][0]
    response = create(api, command="vllm serve m", vllm_version="0.31.0", team="nope")
    assert response.status_code == 400 and "nope" in response.json()["team"][0]


def test_outsider_cannot_create_or_see(api, team, outsider):
    from rest_framework.test import APIClient

    assert create(api, command="vllm serve m", vllm_version="0.31.0", kind="serving").status_code == 201
    client = APIClient()
    client.force_authenticate(outsider)
    assert create(client, command="vllm serve m", vllm_version="0.31.0", name="x").status_code == 403
    assert client.get("/api/v1/profiles/").json()["count"] == 0


def test_update_with_errors_is_refused_and_leaves_the_profile_as_it_was(api, team):
    created = create(api, command=SEED_COMMAND, vllm_version="0.32.0").json()
    response = api.patch(f"/api/v1/profiles/{created['id']}/", {"vllm_version": "0.31.0"}, format="json")
    assert response.status_code == 400
    assert SEED_MESSAGE_031 in messages(response.json())
    profile = Profile.objects.get()
    assert profile.vllm_release.version == "0.32.0" and profile.revision == 1


def test_update_bumps_revision_and_detects_concurrent_edits(api, team):
    created = create(api, command="vllm serve m", vllm_version="0.31.0", kind="serving").json()
    url = f"/api/v1/profiles/{created['id']}/"
    first = api.patch(url, {"engine_args": {"max_model_len": 4096}, "revision": 1}, format="json")
    assert first.status_code == 200 and first.json()["revision"] == 2
    stale = api.patch(url, {"engine_args": {"max_model_len": 2048}, "revision": 1}, format="json")
    assert stale.status_code == 409
    assert Profile.objects.get().engine_args == {"max_model_len": 4096}
    assert ProfileRevision.objects.count() == 2


def test_list_filters_search_and_pagination(api, team):
    assert (
        create(
            api, command="vllm serve org/alpha", vllm_version="0.31.0", kind="serving", name="a"
        ).status_code
        == 201
    )
    masks = "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve org/beta --return-sampling-mask --logprobs-mode processed_logprobs"
    assert create(api, command=masks, vllm_version="0.32.0", kind="serving", name="b").status_code == 201
    assert create(api, command=masks, vllm_version="0.32.0", kind="collection", name="c").status_code == 201

    def names(query):
        response = api.get(f"/api/v1/profiles/?{query}")
        assert response.status_code == 200
        return sorted(p["name"] for p in response.json()["results"])

    assert names("kind=collection") == ["c"]
    assert names("state=warning") == ["b"]
    assert names("release=0.32.0") == ["b", "c"]
    assert names("search=alpha") == ["a"]
    assert names("team=ml-platform") == ["a", "b", "c"]
    page = api.get("/api/v1/profiles/?page_size=1").json()
    assert page["count"] == 3


def test_delete(api, team):
    created = create(api, command="vllm serve m", vllm_version="0.31.0", kind="serving").json()
    assert api.delete(f"/api/v1/profiles/{created['id']}/").status_code == 204
    assert not Profile.objects.exists()


def test_export_and_import_round_trip(api, team):
    created = create(api, command=SEED_COMMAND, vllm_version="0.32.0").json()
    command = api.get(f"/api/v1/profiles/{created['id']}/export/?format=command").content.decode()
    assert command.startswith("VLLM_USE_V2_MODEL_RUNNER=1 vllm serve meta-llama/Llama-3.1-8B-Instruct")
    yaml_text = api.get(f"/api/v1/profiles/{created['id']}/export/?format=yaml").content.decode()
    assert "return-sampling-mask: true" in yaml_text or "return_sampling_mask: true" in yaml_text
    for name, field, text in (("from-command", "command", command), ("from-yaml", "config", yaml_text)):
        body = {
            "team": "ml-platform",
            "name": name,
            "kind": "collection",
            "vllm_version": "0.32.0",
            field: text,
        }
        response = api.post("/api/v1/profiles/import/", body, format="json")
        assert response.status_code == 201, response.json()
        assert response.json()["engine_args"] == created["engine_args"]
        assert response.json()["model"] == created["model"]
    bad = api.get(f"/api/v1/profiles/{created['id']}/export/?format=toml")
    assert bad.status_code == 400


def test_history_lists_state_changes(api, team):
    created = create(api, command="vllm serve m", vllm_version="0.32.0", kind="serving").json()
    masks = (
        "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve m --return-sampling-mask --logprobs-mode processed_logprobs"
    )
    assert (
        api.put(
            f"/api/v1/profiles/{created['id']}/",
            {"name": "teacher", "kind": "serving", "command": masks, "vllm_version": "0.32.0"},
            format="json",
        ).status_code
        == 200
    )
    history = api.get(f"/api/v1/profiles/{created['id']}/history/").json()["results"]
    assert [(h["from_state"], h["to_state"], h["cause"]) for h in history] == [
        ("valid", "warning", "edit"),
        ("", "valid", "created"),
    ]
    assert any(f["category"] == "policy" for f in history[0]["appeared"])


def test_token_authentication(team, user):
    from io import StringIO

    from django.core.management import call_command
    from rest_framework.test import APIClient

    out = StringIO()
    call_command("create_api_token", "ada", stdout=out)
    key = out.getvalue().strip()
    client = APIClient()
    anonymous = client.get("/api/v1/profiles/")
    assert anonymous.status_code == 401 and anonymous["WWW-Authenticate"] == "Token"
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/profiles/").status_code == 200
    call_command("create_api_token", "ada", stdout=StringIO())
    assert client.get("/api/v1/profiles/").status_code == 401


def test_put_empties_what_it_leaves_out_and_patch_keeps_it(api, team):
    created = create(
        api,
        kind="serving",
        name="chat",
        command="vllm serve org/m --max-model-len 4096",
        vllm_version="0.32.0",
        description="first",
        hardware={"gpus_per_node": 8},
    ).json()
    url = f"/api/v1/profiles/{created['id']}/"
    patched = api.patch(url, {"description": "second"}, format="json").json()
    assert (patched["description"], patched["engine_args"], patched["hardware"]) == (
        "second",
        {"max_model_len": 4096},
        {"gpus_per_node": 8},
    )
    put = api.put(url, {"name": "chat", "kind": "serving", "command": "vllm serve org/m"}, format="json")
    assert put.status_code == 200, put.json()
    assert (put.json()["description"], put.json()["engine_args"], put.json()["hardware"]) == ("", {}, {})


def test_an_edit_cannot_move_a_profile_to_another_team(api, staff, team):
    from profiles.services import team_create

    team_create(actor=staff, slug="other", name="Other")
    created = create(api, kind="serving", name="chat", command="vllm serve org/m").json()
    response = api.patch(f"/api/v1/profiles/{created['id']}/", {"team": "other"}, format="json")
    assert response.status_code == 400
    assert response.json() == {"team": ["a profile cannot move to another team"]}
    assert Profile.objects.get().team.slug == "ml-platform"


def test_list_filters_by_rule_and_q_as_the_page_does(api, client, user, team):
    masks = "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve org/beta --return-sampling-mask --logprobs-mode processed_logprobs"
    assert (
        create(
            api, command="vllm serve org/alpha", vllm_version="0.32.0", kind="serving", name="a"
        ).status_code
        == 201
    )
    assert create(api, command=masks, vllm_version="0.32.0", kind="serving", name="b").status_code == 201
    rule = Verdict.objects.get(profile__name="b").rule_ids[0]
    assert Verdict.objects.get(profile__name="a").rule_ids == []

    def api_names(query):
        response = api.get(f"/api/v1/profiles/?{query}")
        assert response.status_code == 200
        return sorted(p["name"] for p in response.json()["results"])

    def page_names(query):
        client.force_login(user)
        response = client.get(f"{reverse('profiles:list')}?{query}")
        assert response.status_code == 200
        return sorted(p.name for p in response.context["rows"])

    for query, expected in (
        (f"rule={rule}", ["b"]),
        ("q=beta", ["b"]),  # the model
        ("q=a", ["a", "b"]),  # the name "a", and "a" in both models
        ("search=alpha", ["a"]),
        ("release=0.32.0&kind=serving", ["a", "b"]),
        ("release=fleet", []),
    ):
        assert api_names(query) == page_names(query) == expected, query


def test_list_shows_a_member_their_teams_and_what_they_own_elsewhere_only(api, user, staff, team):
    """The API list names the same profiles as the page: the member's teams, plus profiles they own in a team
    they left; never another team's."""
    from profiles.models import TeamMembership
    from profiles.services import team_add_member, team_create

    research = team_create(actor=staff, slug="research", name="Research")
    team_add_member(actor=staff, team=research, user=user, role=TeamMembership.Role.EDITOR)
    assert (
        create(
            api, team="research", name="left-behind", command="vllm serve org/a", kind="serving"
        ).status_code
        == 201
    )
    assert create(api, name="chat", command="vllm serve org/b", kind="serving").status_code == 201
    other = team_create(actor=staff, slug="other", name="Other")
    staff_client = api.__class__()
    staff_client.force_authenticate(staff)
    body = {"team": "other", "name": "theirs", "kind": "serving", "command": "vllm serve org/c"}
    assert staff_client.post("/api/v1/profiles/", body, format="json").status_code == 201
    TeamMembership.objects.filter(team=research, user=user).delete()

    listed = api.get("/api/v1/profiles/").json()
    assert sorted((p["team"], p["name"]) for p in listed["results"]) == [
        ("ml-platform", "chat"),
        ("research", "left-behind"),
    ]
    assert listed["count"] == 2 and other.slug == "other"


def test_validate_reads_a_docker_run_line_and_says_what_it_found(api, team):
    command = (
        "$ docker run --runtime nvidia --gpus 2 -e VLLM_USE_V2_MODEL_RUNNER=1 -p 8000:8000 "
        "vllm/vllm-openai:v0.32.0 --model meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 0"
    )
    response = api.post("/api/v1/validate/", {"kind": "serving", "command": command}, format="json")
    assert response.status_code == 200, response.json()
    document = response.json()
    # the image tag names the release when none is given
    assert document["vllm_version"] == "0.32.0"
    assert any("--max-num-seqs" in m for m in messages(document))
    found = document["found"]
    (launch,) = found["launches"]
    assert launch["form"] == "docker" and launch["image"] == "vllm/vllm-openai:v0.32.0"
    assert launch["release"] == "0.32.0" and launch["gpus"] == 2
    assert launch["environment"] == {"VLLM_USE_V2_MODEL_RUNNER": "1"}


def test_validate_keeps_a_shell_variable_unknown_and_checks_the_rest(api, team):
    command = "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size $TP --max-num-seqs 0"
    response = api.post(
        "/api/v1/validate/", {"kind": "serving", "command": command, "vllm_version": "0.33.0"}, format="json"
    )
    assert response.status_code == 200, response.json()
    document = response.json()
    assert any("--max-num-seqs" in m for m in messages(document))  # the rest is checked
    infos = messages(document, "info")
    assert "could not verify: `--tensor-parallel-size` is `$TP`, a shell variable" in infos
    assert document["found"]["launches"][0]["variables"]["TP"] == {"unknown": True, "how": "a shell variable"}


def test_the_legacy_api_server_is_refused_as_not_checked(api, team):
    response = api.post(
        "/api/v1/validate/",
        {"kind": "serving", "command": "python -m vllm.entrypoints.api_server --model m"},
        format="json",
    )
    assert response.status_code == 400
    assert "not checked" in str(response.json()) and "legacy" in str(response.json())
