"""New vLLM releases from a package index served by the test (PostgreSQL, real HTTP, in-memory mail)."""

from __future__ import annotations

import pytest
from django.core import mail

from fleet.release_watch import release_watch_run
from profiles.services import ProfileInput, profile_create
from tests.release_index import LocalIndex, build_wheel
from validation.errors import DomainError
from validation.models import VllmRelease


@pytest.fixture
def index(tmp_path):
    served = LocalIndex(tmp_path)
    yield served
    served.close()


@pytest.fixture
def fleet_profiles(team, user):
    for name, command in (("small", "vllm serve m -tp 2"), ("seqs", "vllm serve m --max-num-seqs 8")):
        profile_create(
            actor=user,
            team=team,
            data=ProfileInput.from_mapping({"name": name, "kind": "serving", "command": command}),
        )


def test_new_release_is_imported_previewed_and_announced_once(index, tmp_path, staff, fleet_profiles):
    index.publish("0.20.0", wheel=build_wheel(tmp_path, "0.20.0"))  # older than the newest catalog: ignored
    index.publish("0.36.0rc1", wheel=build_wheel(tmp_path, "0.36.0rc1"))  # a pre-release: ignored
    index.publish("0.35.0", wheel=build_wheel(tmp_path, "0.35.0"))
    (announced,) = release_watch_run(index_url=index.url)
    assert announced.version == "0.35.0"
    release = VllmRelease.objects.get(version="0.35.0")
    assert release.catalog_sha256 and release.source["announced_at"]
    # the synthetic 0.35.0 has --tensor-parallel-size but no --max-num-seqs: one profile would break
    assert announced.would_become_invalid == 1 and announced.total == 2
    (message,) = mail.outbox
    assert message.to == ["sam@example.com"]
    assert message.subject.startswith("vLLM 0.35.0 is out: 1 profiles would become invalid")
    assert "/releases/0.35.0/preview/" in message.body and "new=0.35.0" in message.body
    assert not VllmRelease.objects.filter(version__in=["0.36.0rc1"]).exists()
    # asked again: nothing new, nothing sent
    assert release_watch_run(index_url=index.url) == []
    assert len(mail.outbox) == 1


def test_a_wheel_whose_digest_does_not_match_is_refused(index, tmp_path, staff):
    index.publish("0.35.0", wheel=build_wheel(tmp_path, "0.35.0"), sha256="0" * 64)
    with pytest.raises(DomainError, match="sha256 does not match"):
        release_watch_run(index_url=index.url)
    assert not VllmRelease.objects.filter(version="0.35.0", catalog_sha256__gt="").exists()
    assert mail.outbox == []


def test_an_unreachable_index_is_a_clear_error(db):
    with pytest.raises(
        DomainError, match="cannot reach the package index at http://127.0.0.1:1/pypi/vllm/json"
    ):
        release_watch_run(index_url="http://127.0.0.1:1/pypi", timeout=2)
