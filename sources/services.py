"""Writes of Git sources: create one, and sync it (new and changed files become profile revisions)."""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import logging
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from accounts import permissions
from accounts.audit import audit_record
from profiles.manifest_services import workload_input
from profiles.models import Team
from profiles.selectors import git_synced_profiles
from profiles.services import ProfileInput, input_shape
from profiles.services.queue import enqueue
from profiles.sync_services import profile_sync_remove, profile_sync_save
from validation.errors import DomainError, UnknownRelease
from validation.selectors import release_get
from vllmcheck.engine import intake, manifests
from vllmcheck.engine import parse as engine_parse
from vllmcheck.engine.types import ParseError

from . import git, remotes, vault
from .models import GitCredential, GitSource

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


ENV_REFUSED = (
    "credentials_env is not accepted: register a Git credential for the repository's host (a team admin, "
    "at /api/v1/git-credentials/) and name it in `credential`"
)


def _audit(actor, action: str, obj, team: Team, *, before=None, after=None) -> None:
    """One audit entry for a change to a source or a credential (never a secret: snapshots only)."""
    audit_record(
        actor=actor,
        action=action,
        object_type=action.split(".")[0],
        object_id=obj.pk,
        object_repr=str(obj),
        team=team,
        before=before,
        after=after,
    )


def _remote_of(url: str):
    try:
        remote = remotes.parse(url)
    except remotes.RemoteError as exc:
        raise DomainError(str(exc), field="url") from exc
    if not remotes.host_allowed(remote, settings.GIT_ALLOWED_HOSTS):
        raise DomainError(
            f"the host {remote.host!r} is not on this server's list of Git hosts (GIT_ALLOWED_HOSTS)",
            field="url",
        )
    return remote


def _check_auth(remote, credential: GitCredential | None, credentials_env: str, team: Team) -> None:
    """The credential (or legacy variable) may go with this remote; errors never tell whether a variable of
    the server's environment exists."""
    if credential is not None and credentials_env:
        raise DomainError("name a credential or credentials_env, not both", field="credential")
    if credentials_env:
        if credentials_env not in settings.GIT_CREDENTIALS_ENV_ALLOWED:
            raise DomainError(ENV_REFUSED, field="credentials_env")
        if remote.scheme != "https":
            raise DomainError("a token is only sent over https://", field="url")
    if credential is None:
        return
    if credential.team_id != team.pk:
        raise DomainError(f"team {team.slug!r} has no credential {credential.name!r}", field="credential")
    if not remotes.host_matches(credential.host, remote):
        raise DomainError(
            f"the credential {credential.name!r} is bound to {credential.host!r}, not to {remote.address!r}",
            field="credential",
        )
    wanted = "https" if credential.kind == GitCredential.Kind.TOKEN else "ssh"
    if remote.scheme != wanted:
        what = (
            "a token is sent over https:// only" if wanted == "https" else "an SSH key is used over ssh only"
        )
        raise DomainError(f"{what}; the URL is {remote.scheme}", field="url")


def _check_branch(branch: str) -> str:
    try:
        return remotes.check_branch(branch)
    except remotes.RemoteError as exc:
        raise DomainError(str(exc), field="branch") from exc


def _check_paths(paths) -> None:
    if not paths or not all(isinstance(p, str) and p.strip() for p in paths):
        raise DomainError("give at least one path glob, e.g. deploy/**/*.yaml", field="paths")


def git_source_create(
    *,
    actor,
    team: Team,
    name: str,
    url: str,
    branch: str = "main",
    paths: list[str],
    kind: str = "serving",
    credential: GitCredential | None = None,
    credentials_env: str = "",
) -> GitSource:
    if not permissions.can_edit_team(actor, team):
        raise DomainError(f"you may not add sources to team {team.slug!r}", code="permission")
    if kind not in ("serving", "collection"):
        raise DomainError("kind must be 'serving' or 'collection'", field="kind")
    _check_paths(paths)
    remote = _remote_of(url)
    branch = _check_branch(branch)
    _check_auth(remote, credential, credentials_env, team)
    if GitSource.objects.filter(team=team, name=name).exists():
        raise DomainError(
            f"team {team.slug!r} already has a source named {name!r}", field="name", code="unique"
        )
    with transaction.atomic():
        source = GitSource.objects.create(
            team=team,
            owner=actor,
            name=name,
            url=url,
            branch=branch,
            paths=paths,
            kind=kind,
            credential=credential,
            credentials_env=credentials_env,
        )
        _audit(actor, "git_source.create", source, team, after=_source_snapshot(source))
    return source


def _source_snapshot(source: GitSource) -> dict:
    return {
        "name": source.name,
        "url": source.url,
        "branch": source.branch,
        "paths": source.paths,
        "kind": source.kind,
        "credential": source.credential.name if source.credential_id else "",
        "credentials_env": source.credentials_env,
        "disabled_reason": source.disabled_reason,
    }


def git_source_update(*, actor, source: GitSource, **changes) -> GitSource:
    """Change a source's URL, branch, paths, kind or credential; a source disabled for its URL or credential
    is enabled again once the change passes the checks."""
    if not permissions.can_edit_team(actor, source.team):
        raise DomainError(f"you may not change sources of team {source.team.slug!r}", code="permission")
    before = _source_snapshot(source)
    for name in ("url", "branch", "paths", "kind", "credential", "credentials_env"):
        if name in changes:
            setattr(source, name, changes[name])
    if source.kind not in ("serving", "collection"):
        raise DomainError("kind must be 'serving' or 'collection'", field="kind")
    _check_paths(source.paths)
    remote = _remote_of(source.url)
    source.branch = _check_branch(source.branch)
    _check_auth(remote, source.credential, source.credentials_env, source.team)
    source.disabled_reason = ""
    source.owner_notified_at = None
    with transaction.atomic():
        source.save()
        _audit(actor, "git_source.update", source, source.team, before=before, after=_source_snapshot(source))
    return source


def git_source_delete(*, actor, source: GitSource) -> None:
    """Remove the source and its mirror; its profiles stay (they are the team's now, editable here)."""
    if not permissions.can_edit_team(actor, source.team):
        raise DomainError(f"you may not delete sources of team {source.team.slug!r}", code="permission")
    repo = _repo_dir(source)
    with transaction.atomic():
        _audit(actor, "git_source.delete", source, source.team, before=_source_snapshot(source))
        source.delete()
    shutil.rmtree(repo, ignore_errors=True)


def git_credential_create(
    *, actor, team: Team, name: str, host: str, secret: str, kind: str = "token", username: str = ""
) -> GitCredential:
    """Register a token or SSH key for ``team``, bound to ``host``; the secret is encrypted at once and never
    returned (the answer shows its fingerprint, and an SSH key's public half)."""
    permissions.require(
        permissions.can_manage_git_credentials(actor, team),
        f"only team {team.slug!r}'s admins or staff may register Git credentials",
    )
    if kind not in GitCredential.Kind.values:
        raise DomainError("kind must be 'token' or 'ssh_key'", field="kind")
    try:
        address_host, port = remotes.split_address(host)
    except remotes.RemoteError as exc:
        raise DomainError(str(exc), field="host") from exc
    if settings.GIT_ALLOWED_HOSTS and not remotes.host_allowed(
        remotes.Remote("https", address_host, port, ""), settings.GIT_ALLOWED_HOSTS
    ):
        raise DomainError(
            f"the host {address_host!r} is not on this server's list of Git hosts (GIT_ALLOWED_HOSTS)",
            field="host",
        )
    secret = (secret or "").strip()
    if kind == GitCredential.Kind.TOKEN:
        if not secret or any(ord(c) < 0x21 for c in secret) or len(secret) > 4096:
            raise DomainError("a token is one line of printable characters, at most 4096", field="secret")
        fingerprint, public = "sha256:" + hashlib.sha256(secret.encode()).hexdigest()[:16], ""
    else:
        fingerprint, public = _ssh_key_facts(secret)
    username = (username or "x-access-token").strip()
    if not remotes.valid_username(username):
        raise DomainError("the user name may hold letters, digits, '.', '_' and '-' only", field="username")
    if GitCredential.objects.filter(team=team, name=name).exists():
        raise DomainError(
            f"team {team.slug!r} already has a credential named {name!r}", field="name", code="unique"
        )
    with transaction.atomic():
        credential = GitCredential.objects.create(
            team=team,
            name=name,
            host=host.strip().lower(),
            kind=kind,
            username=username,
            secret_encrypted=vault.encrypt(secret),
            fingerprint=fingerprint,
            public_key=public,
            created_by=actor,
        )
        _audit(
            actor,
            "git_credential.create",
            credential,
            team,
            after={"name": name, "host": credential.host, "kind": kind, "fingerprint": fingerprint},
        )
    return credential


def _ssh_key_facts(secret: str) -> tuple[str, str]:
    """(fingerprint, public key) of an OpenSSH or PEM private key without a passphrase."""
    data = secret.encode()
    try:
        try:
            key = serialization.load_ssh_private_key(data, password=None)
        except ValueError:
            key = serialization.load_pem_private_key(data, password=None)
        public = key.public_key().public_bytes(
            serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
        )
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise DomainError(
            "not an SSH private key without a passphrase (OpenSSH or PEM format)", field="secret"
        ) from exc
    blob = base64.b64decode(public.split()[1])
    digest = base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
    return f"SHA256:{digest}", public.decode()


def git_credential_delete(*, actor, credential: GitCredential) -> None:
    permissions.require(
        permissions.can_manage_git_credentials(actor, credential.team),
        f"only team {credential.team.slug!r}'s admins or staff may remove Git credentials",
    )
    used = list(credential.sources.values_list("name", flat=True))
    if used:
        raise DomainError(
            f"the credential is used by the sources {', '.join(sorted(used))}: change them first",
            code="conflict",
        )
    with transaction.atomic():
        _audit(
            actor,
            "git_credential.delete",
            credential,
            credential.team,
            before={"name": credential.name, "host": credential.host, "kind": credential.kind},
        )
        credential.delete()


def _repo_dir(source: GitSource) -> Path:
    return Path(settings.VAR_DIR) / "git-sources" / str(source.pk)


def _matches(path: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(path, p) or fnmatch.fnmatch(path, p.replace("**/", "")) for p in patterns)


def _inputs(
    source: GitSource, path: str, text: str, not_checked: list[str] | None = None
) -> list[tuple[str, ProfileInput, dict]]:
    """(key, input, extra source fields) for each profile the file holds; what looks like vLLM but could not
    be read is added to ``not_checked`` ("not checked: <why>"), never passed over in silence."""
    description = f"Synced from {source.url} ({source.branch}): {path}"
    unread = not_checked if not_checked is not None else []
    if engine_parse.detect_format(text) == "yaml" and manifests.looks_like_manifest(text):
        out = []
        for workload in manifests.extract(text):
            if not workload.command:
                unread.extend(
                    f"{workload.source}: {n.message}"
                    for n in workload.notes
                    if n.message.startswith(manifests.NOT_CHECKED)
                )
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
    shape = input_shape(text)
    version = manifests.release_from_comment(text) or ""
    if shape == "command":
        found = intake.find_launches(text)
        unread.extend(f"not checked: {why}" for why in found.not_checked)
        if len(found.launches) > 1:  # a script that starts several servers (node 0, node 1): one profile each
            return [
                (
                    f"{path}#{launch.name}",
                    ProfileInput.from_mapping(
                        {
                            "name": f"{path}:{launch.name}"[:200],
                            "kind": source.kind,
                            "vllm_version": version or _known_release(launch.release),
                            "command": launch.command,
                            "description": f"{description} (line {launch.line})",
                        }
                    ),
                    {"line": launch.line},
                )
                for launch in found.launches
            ]
        if not found.launches and found.not_checked:
            return []
    data = {
        "name": path[:200],
        "kind": source.kind,
        "vllm_version": version,
        shape: text,
        "description": description,
    }
    return [(path, ProfileInput.from_mapping(data), {})]


def _known_release(version: str | None) -> str:
    """``version`` when the product has that release, else "" (the profile follows the fleet)."""
    if not version:
        return ""
    try:
        return release_get(version).version
    except UnknownRelease:
        return ""


def _auth_for(source: GitSource) -> git.Auth:
    """What this sync may send, and to where; DomainError (and the source disabled) when the stored source no
    longer passes the checks (made before them, or the operator narrowed the allow-lists)."""
    remote = _remote_of(source.url)
    _check_branch(source.branch)
    _check_auth(remote, source.credential, source.credentials_env, source.team)
    token = ssh_key = ""  # nosec B105  # empty: no secret unless the credential gives one
    if source.credential is not None:
        secret = vault.decrypt(source.credential.secret_encrypted)
        token, ssh_key = (secret, "") if source.credential.kind == GitCredential.Kind.TOKEN else ("", secret)
    elif source.credentials_env:
        token = os.environ.get(source.credentials_env, "")
    return git.Auth(
        remote=remote,
        token=token,
        username=source.credential.username if source.credential is not None else "x-access-token",
        ssh_key=ssh_key,
        ca_info=settings.GIT_SSL_CA_INFO,
        follow_redirects=not settings.GIT_ALLOWED_HOSTS,
    )


def git_source_disable(*, source: GitSource, reason: str) -> None:
    """Stop syncing ``source`` and say why; its owner is told by e-mail once (:func:`git_source_notify`)."""
    GitSource.objects.filter(pk=source.pk).update(disabled_reason=reason, owner_notified_at=None)
    source.disabled_reason, source.owner_notified_at = reason, None


def git_source_notify(*, source: GitSource) -> bool:
    """E-mail the owner of a disabled source, once per disabling; True when a mail was sent now."""
    claimed = GitSource.objects.filter(pk=source.pk, owner_notified_at__isnull=True).exclude(
        disabled_reason=""
    )
    if not source.owner.email or not claimed.update(owner_notified_at=timezone.now()):
        return False
    link = f"{settings.SITE_URL.rstrip('/')}/api/v1/sources/{source.pk}/"
    send_mail(
        subject=f"[vLLM Profiles] Git source {source} is no longer synced",
        message=(
            f"The Git source {source} ({source.url}, {source.branch}) is no longer synced:\n\n"
            f"    {source.disabled_reason}\n\nIts profiles stay as they are. Change the source "
            f"(PATCH {link}) to sync it again.\n"
        ),
        from_email=None,
        recipient_list=[source.owner.email],
    )
    return True


def git_source_sync(*, source: GitSource, force: bool = False) -> SyncResult:
    """Fetch the branch; every matching file that changed since the last sync becomes a profile revision."""
    if source.disabled_reason:
        git_source_notify(source=source)
        raise DomainError(f"source {source} is not synced: {source.disabled_reason}", code="conflict")
    try:
        auth = _auth_for(source)
    except vault.VaultError as exc:  # the operator's key, not the source: keep it enabled, say why
        GitSource.objects.filter(pk=source.pk).update(last_errors=[{"path": "", "error": str(exc)}])
        raise DomainError(f"source {source}: {exc}") from exc
    except DomainError as exc:
        git_source_disable(source=source, reason=exc.message)
        git_source_notify(source=source)
        raise
    repo = _repo_dir(source)
    try:
        head = git.fetch(source.url, source.branch, repo, auth=auth)
    except git.GitError as exc:
        GitSource.objects.filter(pk=source.pk).update(last_errors=[{"path": "", "error": str(exc)}])
        raise DomainError(f"source {source}: {exc}") from exc
    if source.credential_id:
        GitCredential.objects.filter(pk=source.credential_id).update(last_used_at=timezone.now())
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
        unread: list[str] = []
        items = _inputs(source, path, text, unread)
        result.errors.extend({"path": path, "error": why} for why in unread)
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
