"""What the API answers in, by the client's Accept header: JSON for automation (no header, */*, JSON), the
browsable API's HTML for a browser, 406 for a type it cannot give."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

BODY = {"kind": "serving", "vllm_version": "0.33.0", "command": "vllm serve org/model --max-model-len 8192"}


@pytest.mark.parametrize("accept", [None, "*/*", "application/json", " application/json "])
def test_automation_gets_json(api, accept):
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    response = api.post("/api/v1/validate/", BODY, format="json", **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    assert response.json()["valid"] is True


def test_json_with_parameters_is_rendered_as_asked(api):
    response = api.get("/api/v1/profiles/", HTTP_ACCEPT="application/json; indent=4")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.content.startswith(b"{\n    ")


def test_a_browser_gets_the_browsable_api(api):
    response = api.get("/api/v1/profiles/", HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")


def test_a_type_the_api_cannot_give_is_406(api):
    response = api.get("/api/v1/profiles/", HTTP_ACCEPT="application/xml")
    assert response.status_code == 406
