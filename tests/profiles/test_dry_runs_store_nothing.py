"""Issue 32, item 1: a dry run stores nothing. POST /api/v1/validate/, a refused save (API and form), the
form's live check and `manage.py lint` leave the row count of every table as it was; the model configs they
fetch are kept in Django's cache, and stored (listed on the Models page) only with a profile that is saved."""

import io

import pytest
from django.apps import apps
from django.core.management import call_command
from django.test import Client

from hub.models import ModelConfig
from tests.conftest import SEED_COMMAND

pytestmark = pytest.mark.django_db


def table_counts() -> dict[str, int]:
    """The row count of every table of the project and the frameworks it uses (through tables too)."""
    return {
        model._meta.db_table: model._base_manager.count()
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    }


@pytest.fixture
def form_client(user):
    client = Client()
    client.force_login(user)  # the session row is written here, before anything is counted
    return client


BROKEN = {"kind": "collection", "vllm_version": "0.31.0", "command": SEED_COMMAND}  # an error on 0.31.0


def test_validate_refused_saves_live_checks_and_lint_change_no_table(api, team, form_client, tmp_path):
    before = table_counts()
    assert len(before) > 30  # every table, not a few

    for model in ("m", "x"):  # the report: these two became rows on the Models page
        answer = api.post(
            "/api/v1/validate/", {"kind": "serving", "command": f"vllm serve {model} -tp 2"}, format="json"
        )
        assert answer.status_code == 200, answer.content
        assert answer.json()["valid"] is True
    assert table_counts() == before

    refused = api.post("/api/v1/profiles/", {**BROKEN, "team": team.slug, "name": "teacher"}, format="json")
    assert refused.status_code == 400 and refused.json()["valid"] is False
    assert table_counts() == before

    form = {**BROKEN, "team": team.slug, "name": "teacher", "source": BROKEN["command"]}
    page = form_client.post("/profiles/new/", form)
    assert page.status_code == 200 and "Not saved: the profile has errors" in page.content.decode()
    assert table_counts() == before

    live = form_client.post("/profiles/validate/", {**form, "name": ""})
    assert 'data-state="invalid"' in live.content.decode()
    assert table_counts() == before

    profile_file = tmp_path / "teacher.sh"
    profile_file.write_text(SEED_COMMAND.replace("meta-llama/Llama-3.1-8B-Instruct", "org/linted") + "\n")
    out = io.StringIO()
    with pytest.raises(SystemExit):  # an invalid file: lint's exit status says so
        call_command("lint", str(profile_file), vllm_version="0.31.0", kind="collection", stdout=out)
    assert "INVALID" in out.getvalue()
    assert table_counts() == before
    listed = api.get("/api/v1/model-configs/").json()
    assert (listed["results"] if isinstance(listed, dict) else listed) == []  # the Models page lists none


def test_a_save_that_goes_through_stores_the_model_config_its_dry_run_fetched(api, team):
    assert (
        api.post(
            "/api/v1/validate/", {"kind": "serving", "command": "vllm serve org/kept"}, format="json"
        ).status_code
        == 200
    )
    assert not ModelConfig.objects.exists()
    saved = api.post(
        "/api/v1/profiles/",
        {"team": team.slug, "name": "kept", "kind": "serving", "command": "vllm serve org/kept"},
        format="json",
    )
    assert saved.status_code == 201, saved.content
    assert list(ModelConfig.objects.values_list("repo", flat=True)) == ["org/kept"]
    assert saved.json()["model_source"]["repo"] == "org/kept"
