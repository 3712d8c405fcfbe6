"""A new vLLM release arrives by itself: beat on a real worker asks a local package index, imports the
release's catalog and mails staff one digest, once."""

from __future__ import annotations

import time

import pytest

from profiles.services import ProfileInput, profile_create
from tests.processes import wait_for
from tests.release_index import LocalIndex, build_wheel
from validation.models import VllmRelease

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_beat_imports_a_new_release_and_mails_staff_once(
    workers, smtp, staff, user, team, tmp_path, monkeypatch
):
    for name, command in (("small", "vllm serve m -tp 2"), ("seqs", "vllm serve m --max-num-seqs 8")):
        profile_create(
            actor=user,
            team=team,
            data=ProfileInput.from_mapping({"name": name, "kind": "serving", "command": command}),
        )
    index = LocalIndex(tmp_path)
    try:
        index.publish("0.35.0", wheel=build_wheel(tmp_path, "0.35.0"))
        monkeypatch.setenv("VLLM_RELEASE_INDEX_URL", index.url)
        monkeypatch.setenv("VLLM_RELEASE_WATCH_INTERVAL", "2")
        workers.start("w1", beat=True)

        release = wait_for(
            lambda: VllmRelease.objects.filter(version="0.35.0", source__announced_at__isnull=False).first(),
            timeout=120,
            what="vLLM 0.35.0 imported and announced",
        )
        assert release.catalog_sha256
        wait_for(lambda: smtp.messages, timeout=30, what="the staff digest")
        time.sleep(6)  # three more beats: nothing new on the index, nothing more sent
        (message,) = smtp.messages
        assert message["to"] == ["sam@example.com"]
        assert message["subject"].startswith("vLLM 0.35.0 is out: 1 profiles would become invalid")
        (body,) = smtp.bodies("sam@example.com")
        assert "http://profiles.test/releases/0.35.0/preview/" in body
    finally:
        index.close()
