"""The published OpenAPI schema is the contract: schemathesis drives a live server (Django's, on the test
PostgreSQL) through every operation of /api/schema/ (its examples, generated input and the stateful links
between operations) and checks that no answer is a server error and that every answer (errors included)
conforms to the schema. Bounded (a fixed seed, few examples per operation) to stay near a minute and a half."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from profiles.services import ProfileInput, profile_create, team_create
from tests.conftest import SEED_COMMAND

pytestmark = pytest.mark.django_db(transaction=True)

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")


def _api_key(username: str) -> str:
    out = io.StringIO()
    call_command("create_api_token", username, stdout=out)
    return out.getvalue().strip().split()[-1]


def test_schemathesis_finds_no_failure(live_server, tmp_path):
    staff = get_user_model().objects.create_user("sam", "sam@example.com", "pw", is_staff=True)
    team = team_create(actor=staff, slug="ml-platform", name="ML platform")
    profile_create(
        actor=staff,
        team=team,
        data=ProfileInput.from_mapping(
            {"name": "llama", "kind": "serving", "vllm_version": "0.32.0", "command": SEED_COMMAND}
        ),
    )
    key = _api_key("sam")
    result = subprocess.run(
        [
            str(SCHEMATHESIS),
            "run",
            f"{live_server.url}/api/schema/",
            "--header",
            f"Authorization: Token {key}",
            "--checks",
            "not_a_server_error,response_schema_conformance",
            "--phases",
            "examples,fuzzing,stateful",
            "--max-examples",
            "6",
            "--seed",
            "20261202",
            "--generation-database",
            "none",
            "--workers",
            "2",
            "--request-timeout",
            "120",
            "--no-color",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,  # schemathesis keeps a cache in .schemathesis/ of its working directory
    )
    print(result.stdout[-20000:])
    assert result.returncode == 0, result.stdout[-20000:] + result.stderr[-5000:]
    counts = re.search(r"(\d+) generated, (\d+) passed", result.stdout)
    assert counts and counts[1] == counts[2] and int(counts[1]) > 150, result.stdout[-3000:]
