"""Profiles on old releases (0.8-0.19) are stored and checked; their upgrade path to a newer release."""

import pytest

from profiles.models import Profile

pytestmark = pytest.mark.django_db

V0_COMMAND = (
    "vllm serve m --enable-reasoning --reasoning-parser deepseek_r1 --num-scheduler-steps 8 "
    "--max-seq-len-to-capture 8192"
)


def create(api, **fields):
    body = {"team": "ml-platform", "name": "old", "kind": "serving", **fields}
    return api.post("/api/v1/profiles/", body, format="json")


def test_a_0_8_5_profile_is_stored_and_checked_against_0_8_5(api, team):
    response = create(api, command=V0_COMMAND, vllm_version="0.8.5")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["vllm_version"] == "0.8.5"
    assert body["engine_args"]["num_scheduler_steps"] == 8 and body["engine_args"]["enable_reasoning"] is True
    assert Profile.objects.get().verdict.release.version == "0.8.5"


def test_a_0_9_2_profile_with_an_argument_0_9_2_lacks_is_refused(api, team):
    # --speculative-model went in 0.8.3: 0.9.2 does not know it
    response = create(api, command="vllm serve m --speculative-model d", vllm_version="0.9.2")
    assert response.status_code == 400
    document = response.json()
    assert document["vllm_version"] == "0.9.2" and document["valid"] is False
    assert any(
        "--speculative-model" in f["message"] for f in document["findings"] if f["severity"] == "error"
    )


def test_upgrade_path_of_a_profile_names_each_flag_its_release_and_replacement(api, team):
    pk = create(api, command=V0_COMMAND, vllm_version="0.8.5").json()["id"]
    response = api.get(f"/api/v1/profiles/{pk}/upgrade-path/?to=0.34.0")
    assert response.status_code == 200, response.json()
    path = response.json()
    assert path["from"] == "0.8.5" and path["to"] == "0.34.0" and path["refused_at"] == "0.10.0"
    found = {(c["release"], c["flag"], c["kind"]) for r in path["releases"] for c in r["changes"]}
    assert {
        ("0.9.0", "--enable-reasoning", "deprecated"),
        ("0.10.0", "--enable-reasoning", "removed"),
        ("0.10.1", "--num-scheduler-steps", "removed"),
        ("0.11.0", "--max-seq-len-to-capture", "removed"),
    } <= found
    assert path["revision"]["command"] == "vllm serve m --reasoning-parser deepseek_r1"


def test_upgrade_path_to_an_unknown_or_older_release_names_the_field(api, team):
    pk = create(api, command="vllm serve m --max-model-len 4096", vllm_version="0.9.2").json()["id"]
    response = api.get(f"/api/v1/profiles/{pk}/upgrade-path/?to=0.7.0")
    assert response.status_code == 400
    assert "0.7.0" in str(response.json()) and "to" in str(response.json())
    response = api.get(f"/api/v1/profiles/{pk}/upgrade-path/?to=0.8.5")
    assert response.status_code == 400 and "not newer" in str(response.json())


def test_fleet_upgrade_table_is_profiles_by_releases(api, team):
    create(api, command=V0_COMMAND, vllm_version="0.8.5", name="v0")
    create(api, command="vllm serve m --max-model-len 4096", vllm_version="0.9.2", name="plain")
    response = api.get("/api/v1/profiles/upgrade-path/?to=0.11.0")
    assert response.status_code == 200, response.json()
    table = response.json()
    rows = {row["profile"]: row for row in table["rows"]}
    assert rows["ml-platform/v0"]["cells"]["0.9.0"] == "deprecated"
    assert rows["ml-platform/v0"]["cells"]["0.10.0"] == "refused"
    assert set(rows["ml-platform/plain"]["cells"].values()) == {"ok"}
    assert table["releases"][0] == "0.8.5" and table["releases"][-1] == "0.11.0"


def test_profile_page_has_the_upgrade_section_and_its_fragment_lists_the_changes(client, user, api, team):
    pk = create(api, command=V0_COMMAND, vllm_version="0.8.5").json()["id"]
    client.force_login(user)
    page = client.get(f"/profiles/{pk}/").content.decode()
    assert 'id="upgrade-path"' in page and f"/profiles/{pk}/upgrade/" in page
    fragment = client.get(f"/profiles/{pk}/upgrade/", {"to": "0.34.0"}, headers={"HX-Request": "true"})
    body = fragment.content.decode()
    assert "<html" not in body
    assert "refused from 0.10.0" in body and "unrecognized arguments: --enable-reasoning" in body
    assert "<code>--num-scheduler-steps</code>" in body and "none: drop it" in body
    assert "vllm serve m --reasoning-parser deepseek_r1" in body
    standalone = client.get(f"/profiles/{pk}/upgrade/", {"to": "0.7.0"}).content.decode()
    assert "<html" in standalone and "no catalog for vLLM release &#x27;0.7.0&#x27;" in standalone
