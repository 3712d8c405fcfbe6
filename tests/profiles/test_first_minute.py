"""Issue 32, items 9 and 10: what a new user meets in the first minute of the new-profile form (a missing
name, the release select) and the API's word for the same."""

import re

import pytest
from django.test import Client

from profiles.models import Profile

pytestmark = pytest.mark.django_db

LLAMA = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096"


@pytest.fixture
def form_client(user):
    client = Client()
    client.force_login(user)
    return client


def form(team, **values):
    return {"team": team.slug, "name": "", "kind": "serving", "vllm_version": "", "source": LLAMA, **values}


def test_live_check_without_a_name_shows_the_verdict_and_offers_a_name_from_the_model(form_client, team):
    page = form_client.post("/profiles/validate/", form(team)).content.decode()
    assert "cannot parse" not in page
    assert 'data-state="valid"' in page
    assert re.search(r"No name yet: <strong>llama-3-1-8b-instruct</strong>", page)
    # "Use llama-3-1-8b-instruct" puts the form's name input in place, filled in
    field = form_client.post("/profiles/name-field/", form(team)).content.decode()
    assert 'name="name"' in field and 'id="id_name"' in field and 'value="llama-3-1-8b-instruct"' in field
    # with a name typed, nothing is offered
    named = form_client.post("/profiles/validate/", form(team, name="mine")).content.decode()
    assert "No name yet" not in named


def test_saving_without_a_name_is_an_error_on_the_name_with_the_model_s_name_filled_in(form_client, team):
    page = form_client.post("/profiles/new/", form(team))
    body = page.content.decode()
    assert page.status_code == 200 and not Profile.objects.exists()
    error = re.search(r'<p class="field-error" id="id_name-error">([^<]+)</p>', body)
    assert error and "A profile needs a name. &#x27;llama-3-1-8b-instruct&#x27; is filled in" in error.group(
        1
    )
    assert re.search(r'<input type="text" name="name" value="llama-3-1-8b-instruct"', body)
    assert "cannot parse" not in body
    saved = form_client.post("/profiles/new/", form(team, name="llama-3-1-8b-instruct"))
    assert saved.status_code == 302
    # a second one gets a name not taken yet in the team
    again = form_client.post("/profiles/new/", form(team)).content.decode()
    assert 'value="llama-3-1-8b-instruct-2"' in again


def test_the_api_names_the_field_and_suggests_a_name(api, team):
    answer = api.post(
        "/api/v1/profiles/", {"team": team.slug, "kind": "serving", "command": LLAMA}, format="json"
    )
    assert answer.status_code == 400
    assert "a profile needs a name ('llama-3-1-8b-instruct' would do, made from its model)" in str(
        answer.json()
    )
    assert "name" in str(answer.json())
    dry = api.post("/api/v1/validate/", {"kind": "serving", "command": LLAMA}, format="json")
    assert dry.status_code == 200 and dry.json()["valid"] is True  # a dry run needs no name


def test_the_release_select_says_what_pinning_means_and_follows_the_fleet_by_default(form_client, team):
    page = form_client.get("/profiles/new/").content.decode()
    select = page.split('name="vllm_version"', 1)[1].split("</select>", 1)[0]
    options = re.findall(r'<option value="([^"]*)"( selected)?>([^<]+)</option>', select)
    assert options[0][0] == "" and options[0][1] == " selected"
    assert options[0][2].startswith("follow the fleet (")
    assert ("0.33.0", "", "0.33.0 (pinned: not moved with the fleet)") in options
    help_text = re.search(r'<p class="help" id="id_vllm_version-help">([^<]+)</p>', page).group(1)
    assert "Pick a release to pin it" in help_text and "out of the fleet&#x27;s re-checks" in help_text
    assert 'aria-describedby="id_vllm_version-help"' in page
