"""Writes of Git sources: create one, and sync it (new and changed files become profile revisions)."""

from __future__ import annotations

import fnmatch
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from profiles.manifest_services import workload_input
from profiles.models import Team
from profiles.selectors import git_synced_profiles
from profiles.services import ProfileInput, user_can_edit
from profiles.sync_services import profile_sync_remove, profile_sync_save
from validation.errors import DomainError
from validation.services.queue import enqueue
from vllmcheck.engine import manifests
from vllmcheck.engine import parse as engine_parse
from vllmcheck.engine.types import ParseError

from . import git
from .models import GitSource

logger = logging.getLogger(__name__)
MAX_FILE_BYTES = 1_000_000


@dataclass
class SyncResult:
    commit: str
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    newly_invalid: list[int] = field(default_factory=list)  # profile ids
    alert_recipients: set[int] = field(default_factory=set)
    errors: list[dict[str, str]] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)  # profiles whose file or container left the repository
    keys: set[str] = field(default_factory=set)  # the profiles the commit holds
    unread: set[str] = field(default_factory=set)  # paths that could not be read (their profiles stay)


def git_source_create(
    *,
    actor,
    team: Team,
    name: str,
    url: str,
    branch: str = "main",
    paths: list[str],
    kind: str = "serving",
    credentials_env: str = "",
) -> GitSource:
    if not user_can_edit(actor, team):
        raise DomainError(f"you may not add sources to team {team.slug!r}", code="permission")
    if kind not in ("serving", "collection"):
        raise DomainError("kind must be 'serving' or 'collection'", field="kind")
    if not paths or not all(isinstance(p, str) and p.strip() for p in paths):
        raise DomainError("give at least one path glob, e.g. deploy/**/*.yaml", field="paths")
    if credentials_env and credentials_env not in os.environ:
        raise DomainError(f"the environment has no variable {credentials_env!r}", field="credentials_env")
    if GitSource.objects.filter(team=team, name=name).exists():
        raise DomainError(
            f"team {team.slug!r} already has a source named {name!r}", field="name", code="unique"
        )
    return GitSource.objects.create(
        team=team,
        owner=actor,
        name=name,
        url=url,
        branch=branch,
        paths=paths,
        kind=kind,
        credentials_env=credentials_env,
    )


def _repo_dir(source: GitSource) -> Path:
    return Path(settings.VAR_DIR) / "git-sources" / str(source.pk)


def _matches(path: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(path, p) or fnmatch.fnmatch(path, p.replace("**/", "")) for p in patterns)


def _inputs(source: GitSource, path: str, text: str) -> list[tuple[str, ProfileInput, dict]]:
    """(key, input, extra source fields) for each profile the file holds."""
    description = f"Synced from {source.url} ({source.branch}): {path}"
    if engine_parse.detect_format(text) == "yaml" and manifests.looks_like_manifest(text):
        out = []
        for workload in manifests.extract(text):
            if not workload.command:
                continue
            key = f"{path}#{workload.owner}/{workload.container}"
            data = workload_input(
                workload,
                name=f"{path}:{workload.owner.rsplit('/', 1)[-1]}/{workload.container.rsplit(' ', 1)[-1]}"[
                    :200
                ],
                kind=workload.kind or source.kind,
                vllm_version=workload.vllm_version or "",
                description=description,
            )
            extra = {"object": workload.owner, "container": workload.container, "line": workload.line}
            out.append((key, data, extra))
        return out
    shape = "command" if engine_parse.detect_format(text) == "command" else "config"
    version = manifests.release_from_comment(text) or ""
    data = {
        "name": path[:200],
        "kind": source.kind,
        "vllm_version": version,
        shape: text,
        "description": description,
    }
    return [(path, ProfileInput.from_mapping(data), {})]


def git_source_sync(*, source: GitSource, force: bool = False) -> SyncResult:
    """Fetch the branch; every matching file that changed since the last sync becomes a profile revision."""
    token = os.environ.get(source.credentials_env) if source.credentials_env else None
    repo = _repo_dir(source)
    try:
        head = git.fetch(source.url, source.branch, repo, token=token)
    except git.GitError as exc:
        GitSource.objects.filter(pk=source.pk).update(last_errors=[{"path": "", "error": str(exc)}])
        raise DomainError(f"source {source}: {exc}") from exc
    result = SyncResult(commit=head)
    if head == source.last_commit and not force:
        return result
    for path in git.files(repo, head):
        if _matches(path, source.paths):
            _sync_file(source, repo, head, path, result)
    _sync_removed(source, repo, head, result)
    GitSource.objects.filter(pk=source.pk).update(
        last_commit=head, last_synced_at=timezone.now(), last_errors=result.errors
    )
    for recipient_id in sorted(result.alert_recipients):  # the digest names the commit (the change's cause)
        enqueue("alerts_send_digest_task", recipient_id, None)
    return result


def _sync_removed(source: GitSource, repo: Path, head: str, result: SyncResult) -> None:
    """Profiles of this source that the commit no longer holds (file deleted, renamed, no longer matching the
    globs, or its container gone) are marked removed, with the commit that removed them in their history."""
    for profile in git_synced_profiles(team=source.team, source_id=source.pk):
        key, path = profile.source.get("key"), profile.source.get("path", "")
        if key in result.keys or path in result.unread:
            continue
        info = git.last_change(repo, head, path) if path else {}
        if not info.get("commit") or git.path_exists(repo, head, path):
            # still in the tree (a container removed from it, or the globs changed): this commit did it
            info = {**git.commit_info(repo, head), "path": path}
        detail = f"git {info['commit'][:12]} {path}: {info.get('subject', '')} (removed from the repository)"
        profile_sync_remove(profile=profile, change_info={**info, "path": path}, cause_detail=detail)
        result.removed.append(profile.pk)


def _sync_file(source: GitSource, repo: Path, head: str, path: str, result: SyncResult) -> None:
    blob = git.show(repo, head, path)
    if len(blob) > MAX_FILE_BYTES:
        result.errors.append({"path": path, "error": f"larger than {MAX_FILE_BYTES} bytes; not read"})
        result.unread.add(path)
        return
    try:
        text = blob.decode("utf-8")
        items = _inputs(source, path, text)
    except UnicodeDecodeError:
        result.errors.append({"path": path, "error": "not UTF-8 text"})
        result.unread.add(path)
        return
    except ParseError as exc:
        result.errors.append({"path": path, "error": str(exc)})
        result.unread.add(path)
        return
    result.keys.update(key for key, _, _ in items)
    change_info = git.last_change(repo, head, path)
    cause = f"git {change_info['commit'][:12]} {path}: {change_info['subject']}"
    for key, data, extra in items:
        origin = {
            "type": "git",
            "key": key,
            "git_source": source.pk,
            "url": source.url,
            "branch": source.branch,
            "path": path,
            **change_info,
            **extra,
        }
        try:
            profile, _, change = profile_sync_save(
                owner=source.owner, team=source.team, data=data, source=origin, cause_detail=cause
            )
        except DomainError as exc:
            result.errors.append({"path": path, "error": exc.message})
            continue
        if change is None:
            result.unchanged += 1
            continue
        if change.cause == "created":
            result.created += 1
        else:
            result.updated += 1
        if change.to_state == "invalid" and change.from_state != "invalid":
            result.newly_invalid.append(profile.pk)
            result.alert_recipients.update(change.alerts.values_list("recipient_id", flat=True))
