"""A Git source synced by beat on a real Celery worker: a repository the test creates and commits to, the real
Redis, PostgreSQL, and real SMTP (aiosmtpd). A commit that makes a profile invalid is named in its history and
in the e-mail its owner gets; a file removed from the repository leaves its profile marked, not silently kept."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from profiles.models import Profile, VerdictChange
from tests.processes import wait_for
from tests.sources.test_git_sync import TEACHER, commit, git

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "deployments"
    (path / "deploy").mkdir(parents=True)
    (path / "profiles").mkdir()
    git(path, "init", "--quiet", "-b", "main")
    git(path, "config", "user.email", "ci@example.com")
    git(path, "config", "user.name", "Platform CI")
    (path / "deploy" / "teacher.yaml").write_text(TEACHER.format(tag="v0.32.0"))
    (path / "profiles" / "small.sh").write_text("# vllm-version: 0.33.0\nvllm serve m --max-num-seqs 8\n")
    git(path, "add", "-A")
    git(path, "commit", "--quiet", "-m", "Teacher on 0.32.0")
    return path


def synced(team, path):
    return Profile.objects.filter(team=team, source__path=path).first()


def test_beat_syncs_a_repository_and_mails_the_commit_that_broke_a_profile(
    workers, smtp, user, team, repo, monkeypatch, git_server
):
    api = APIClient()
    api.force_authenticate(user)
    created = api.post(
        "/api/v1/sources/",
        {
            "team": team.slug,
            "name": "deployments",
            "url": git_server.url("deployments"),
            "paths": ["deploy/*.yaml", "profiles/*.sh"],
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    monkeypatch.setenv("GIT_SYNC_INTERVAL", "1")  # beat asks every second (the worker reads its environment)
    workers.start("w1", beat=True)

    teacher = wait_for(lambda: synced(team, "deploy/teacher.yaml"), timeout=120, what="the first sync")
    assert teacher.state in ("valid", "warning") and teacher.vllm_release.version == "0.32.0"
    wait_for(lambda: synced(team, "profiles/small.sh"), what="the second file")

    sha = commit(repo, "Move the teacher to 0.31.0", **{"deploy/teacher.yaml": TEACHER.format(tag="v0.31.0")})
    wait_for(
        lambda: Profile.objects.get(pk=teacher.pk).state == "invalid", timeout=120, what="the breaking commit"
    )
    change = VerdictChange.objects.filter(profile=teacher).latest("pk")
    assert change.to_state == "invalid"
    assert change.cause_detail == f"git {sha[:12]} deploy/teacher.yaml: Move the teacher to 0.31.0"
    # the worker's save is in the audit log as the worker's, with the version before and after
    from accounts.models import AuditEvent

    edit = AuditEvent.objects.filter(action="profile.update", object_id=str(teacher.pk)).latest("at")
    assert edit.via == "worker" and edit.actor is None
    assert (edit.before["vllm_version"], edit.after["vllm_version"]) == ("0.32.0", "0.31.0")

    bodies = wait_for(lambda: smtp.bodies(user.email), timeout=120, what="the alert e-mail")
    assert len(bodies) == 1
    assert f"git {sha[:12]} deploy/teacher.yaml: Move the teacher to 0.31.0" in bodies[0]
    assert "sampling distribution replay does not support speculative decoding" in bodies[0]

    small = synced(team, "profiles/small.sh")
    git(repo, "rm", "--quiet", "profiles/small.sh")
    git(repo, "commit", "--quiet", "-m", "Retire the small profile")
    removed = git(repo, "rev-parse", "HEAD")
    wait_for(
        lambda: Profile.objects.get(pk=small.pk).source["type"] == "git-removed",
        timeout=120,
        what="the removal",
    )
    assert Profile.objects.get(pk=small.pk).source["removed"]["commit"] == removed
    last = VerdictChange.objects.filter(profile=small).latest("pk")
    assert last.cause_detail.startswith(f"git {removed[:12]} profiles/small.sh: Retire the small profile")
    assert len(smtp.bodies(user.email)) == 1  # nothing else became invalid: no second mail
