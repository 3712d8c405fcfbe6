"""A Git repository the test creates and commits to, synced into profiles (git CLI, PostgreSQL, mail)."""

from __future__ import annotations

import subprocess

import pytest
from django.core import mail

from profiles.models import Alert, Profile, VerdictChange
from profiles.services.alerts import alerts_send_digest
from sources.models import GitSource
from sources.services import git_source_sync

TEACHER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: teacher
  annotations: {{vllm-profiles.io/kind: collection}}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:{tag}
          args: [meta-llama/Llama-3.1-8B-Instruct, --return-sampling-mask, --logprobs-mode, processed_logprobs,
                 --speculative-config, '{{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}}']
          env: [{{name: VLLM_USE_V2_MODEL_RUNNER, value: "1"}}]
"""


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "deployments"
    path.mkdir()
    git(path, "init", "--quiet", "-b", "main")
    git(path, "config", "user.email", "ci@example.com")
    git(path, "config", "user.name", "Platform CI")
    (path / "deploy").mkdir()
    (path / "deploy" / "teacher.yaml").write_text(TEACHER.format(tag="v0.32.0"))
    (path / "profiles").mkdir()
    (path / "profiles" / "small.sh").write_text("# vllm-version: 0.33.0\nvllm serve m --max-num-seqs 8\n")
    (path / "README.md").write_text("not a profile\n")
    git(path, "add", "-A")
    git(path, "commit", "--quiet", "-m", "Teacher on 0.32.0")
    return path


def commit(repo, message, **files):
    for name, text in files.items():
        (repo / name).write_text(text)
    git(repo, "commit", "--quiet", "-am", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def source(api, team, repo, settings, tmp_path, git_server):
    settings.VAR_DIR = tmp_path / "var"
    response = api.post(
        "/api/v1/sources/",
        {
            "team": team.slug,
            "name": "deployments",
            "url": git_server.url("deployments"),
            "paths": ["deploy/*.yaml", "profiles/*.sh"],
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    return GitSource.objects.get(pk=response.json()["id"])


def test_files_become_profiles_that_remember_their_commit(source, repo, team):
    result = git_source_sync(source=source)
    assert (result.created, result.updated) == (2, 0) and not result.errors
    head = git(repo, "rev-parse", "HEAD")
    teacher = Profile.objects.get(team=team, source__path="deploy/teacher.yaml")
    assert teacher.name == "deploy/teacher.yaml:teacher/vllm" and teacher.kind == "collection"
    assert teacher.vllm_release.version == "0.32.0" and teacher.state in ("valid", "warning")
    assert teacher.source["commit"] == head and teacher.source["subject"] == "Teacher on 0.32.0"
    small = Profile.objects.get(team=team, source__path="profiles/small.sh")
    assert small.engine_args == {"max_num_seqs": 8} and small.vllm_release.version == "0.33.0"
    assert git_source_sync(source=source).created == 0  # same commit: nothing to do


def test_synced_profiles_are_read_only_here(source, api):
    git_source_sync(source=source)
    profile = Profile.objects.get(source__path="profiles/small.sh")
    response = api.patch(f"/api/v1/profiles/{profile.pk}/", {"command": "vllm serve m"}, format="json")
    assert response.status_code == 400
    assert "edit it in Git" in str(response.json())


def test_a_commit_that_breaks_a_profile_is_named_in_history_and_in_the_email(source, repo, team, user):
    git_source_sync(source=source)
    sha = commit(repo, "Move the teacher to 0.31.0", **{"deploy/teacher.yaml": TEACHER.format(tag="v0.31.0")})
    result = git_source_sync(source=source)
    teacher = Profile.objects.get(team=team, source__path="deploy/teacher.yaml")
    assert result.updated == 1 and result.newly_invalid == [teacher.pk]
    assert teacher.state == "invalid" and teacher.source["commit"] == sha
    change = VerdictChange.objects.filter(profile=teacher).latest("pk")
    assert change.to_state == "invalid"
    assert change.cause_detail == f"git {sha[:12]} deploy/teacher.yaml: Move the teacher to 0.31.0"
    # the source's owner owns its profiles, and is alerted (with the team's watchers)
    assert user.pk in set(Alert.objects.filter(profile=teacher).values_list("recipient_id", flat=True))
    assert alerts_send_digest(recipient_id=user.pk, recheck_id=None) == 1
    (message,) = mail.outbox
    assert f"git {sha[:12]} deploy/teacher.yaml: Move the teacher to 0.31.0" in message.body
    assert "sampling distribution replay does not support speculative decoding" in message.body


def test_a_file_that_cannot_be_parsed_is_reported_on_the_source(source, repo):
    commit(repo, "Broken quoting", **{"profiles/small.sh": "vllm serve m --max-num-seqs '8\n"})
    result = git_source_sync(source=source)
    assert [e["path"] for e in result.errors] == ["profiles/small.sh"]
    source.refresh_from_db()
    assert source.last_errors[0]["path"] == "profiles/small.sh" and "quote" in source.last_errors[0]["error"]


def test_an_unreachable_repository_is_a_clear_error(api, team, settings, tmp_path, git_server):
    settings.VAR_DIR = tmp_path / "var"
    response = api.post(
        "/api/v1/sources/",
        {"team": team.slug, "name": "gone", "url": git_server.url("nowhere"), "paths": ["*.yaml"]},
        format="json",
    )
    source = GitSource.objects.get(pk=response.json()["id"])
    from validation.errors import DomainError

    with pytest.raises(DomainError, match="git fetch failed"):
        git_source_sync(source=source)


def test_a_removed_file_marks_its_profile_removed_with_the_commit_in_its_history(source, repo, team, api):
    git_source_sync(source=source)
    small = Profile.objects.get(team=team, source__path="profiles/small.sh")
    git(repo, "rm", "--quiet", "profiles/small.sh")
    git(repo, "commit", "--quiet", "-m", "Retire the small profile")
    sha = git(repo, "rev-parse", "HEAD")
    result = git_source_sync(source=source)
    assert result.removed == [small.pk]
    small.refresh_from_db()
    assert small.source["type"] == "git-removed"
    assert small.source["removed"]["commit"] == sha
    change = VerdictChange.objects.filter(profile=small).latest("pk")
    assert change.cause_detail == (
        f"git {sha[:12]} profiles/small.sh: Retire the small profile (removed from the repository)"
    )
    page = api.get(f"/api/v1/profiles/{small.pk}/history/")
    assert any("Retire the small profile" in str(entry) for entry in page.json()["results"])
    # no longer synced: people may edit it here now, and the next sync leaves it alone
    edited = api.patch(
        f"/api/v1/profiles/{small.pk}/", {"command": "vllm serve m --max-num-seqs 4"}, format="json"
    )
    assert edited.status_code == 200, edited.json()
    assert git_source_sync(source=source, force=True).removed == []
    # the teacher's file is still there: untouched
    teacher = Profile.objects.get(team=team, source__path="deploy/teacher.yaml")
    assert teacher.source["type"] == "git"


def test_a_file_that_comes_back_is_synced_into_its_profile_again(source, repo, team):
    git_source_sync(source=source)
    git(repo, "rm", "--quiet", "profiles/small.sh")
    git(repo, "commit", "--quiet", "-m", "Retire the small profile")
    git_source_sync(source=source)
    (repo / "profiles").mkdir(exist_ok=True)
    (repo / "profiles" / "small.sh").write_text("# vllm-version: 0.33.0\nvllm serve m --max-num-seqs 16\n")
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "Bring it back")
    git_source_sync(source=source)
    (small,) = Profile.objects.filter(team=team, source__path="profiles/small.sh")
    assert small.source["type"] == "git" and "removed" not in small.source
    assert small.engine_args == {"max_num_seqs": 16}


def test_a_script_with_two_launches_becomes_two_profiles_and_an_unreadable_one_is_an_error(
    source, repo, team
):
    two = (
        "#!/bin/bash\nexport VLLM_USE_V1=1\n"
        "CUDA_VISIBLE_DEVICES=0 vllm serve m --port 8001 --max-num-seqs 8 &\n"
        "CUDA_VISIBLE_DEVICES=1 vllm serve m --port 8002 --max-num-seqs 16 &\nwait\n"
    )
    (repo / "profiles" / "nodes.sh").write_text(two)
    (repo / "profiles" / "legacy.sh").write_text("python -m vllm.entrypoints.api_server --model m\n")
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "Two servers and a legacy one")
    result = git_source_sync(source=source)
    nodes = Profile.objects.filter(team=team, source__path="profiles/nodes.sh").order_by("name")
    assert [p.name for p in nodes] == ["profiles/nodes.sh:node 0", "profiles/nodes.sh:node 1"]
    assert [p.engine_args["max_num_seqs"] for p in nodes] == [8, 16]
    assert all(p.env["VLLM_USE_V1"] == "1" for p in nodes)
    # what looks like vLLM but is no profile is a line on the source's errors, never a silent pass
    (error,) = [e for e in result.errors if e["path"] == "profiles/legacy.sh"]
    assert error["error"].startswith("not checked: ") and "legacy" in error["error"]
