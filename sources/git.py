"""The git command line, for reading a branch of a remote repository (git itself is the well-kept tool).

What a user controls here is the remote's URL and branch (parsed first by ``sources.remotes``) and the
repository's content. So git runs with:

- an environment of its own: ``PATH``, the proxy variables and ``LANG``; none of the server's secrets
  (``SECRET_KEY``, ``DATABASE_URL``, ``HF_TOKEN``, ...), no system or global git configuration (no credential
  helper of the machine's user answers for a URL a user chose), no terminal prompt;
- every transport off but https and ssh (``protocol.allow=never``), so a URL that names a local path, ``file://``
  or ``ext::`` is refused by git as well as by the parser, and ``--`` before every URL;
- a token only as an ``Authorization`` header scoped to the remote's own origin
  (``http.<origin>.extraHeader``) with redirects off (``http.followRedirects=false``), so it is sent to that
  host and no other; an SSH key only through ``GIT_SSH_COMMAND -i`` from a 0600 file that exists for the
  one fetch.
"""

from __future__ import annotations

import base64
import os
import shlex
import subprocess  # nosec B404  # git runs as an argument list, never through a shell
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .remotes import Remote

TIMEOUT_S = 120
PASSED_ENV = ("PATH", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy")


class GitError(RuntimeError):
    pass


@dataclass(frozen=True)
class Auth:
    """What one fetch sends: a token (https) or an SSH private key (ssh), for ``remote`` only."""

    remote: Remote
    token: str = ""
    username: str = "x-access-token"
    ssh_key: str = ""
    ca_info: str = ""  # a CA bundle for https (git's http.sslCAInfo)
    follow_redirects: bool = True  # ignored (off) when a token is attached


def _base_env(config: list[tuple[str, str]]) -> dict[str, str]:
    env = {name: os.environ[name] for name in PASSED_ENV if name in os.environ}
    env.update(
        {
            "LANG": "C.UTF-8",
            "HOME": tempfile.gettempdir(),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_ASKPASS": "true",
            "SSH_ASKPASS": "true",
            "GIT_PROTOCOL_FROM_USER": "0",
        }
    )
    config = [
        ("protocol.allow", "never"),
        ("protocol.https.allow", "always"),
        ("protocol.ssh.allow", "always"),
        ("credential.helper", ""),
        ("core.hooksPath", os.devnull),
        *config,
    ]
    env["GIT_CONFIG_COUNT"] = str(len(config))
    for i, (key, value) in enumerate(config):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


def _auth_config(auth: Auth | None) -> list[tuple[str, str]]:
    if auth is None:
        return []
    config: list[tuple[str, str]] = []
    if auth.ca_info:
        config.append(("http.sslCAInfo", auth.ca_info))
    if auth.token and auth.remote.scheme == "https":
        basic = base64.b64encode(f"{auth.username}:{auth.token}".encode()).decode()
        config.append((f"http.{auth.remote.origin}.extraHeader", f"Authorization: Basic {basic}"))
        config.append(("http.followRedirects", "false"))
    elif not auth.follow_redirects:
        config.append(("http.followRedirects", "false"))
    return config


def _ssh_command(key_file: Path | None, known_hosts: Path | None) -> str:
    parts = ["ssh", "-F", os.devnull, "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=accept-new"]
    if known_hosts is not None:
        parts += ["-o", f"UserKnownHostsFile={known_hosts}"]
    if key_file is not None:
        parts += ["-i", str(key_file), "-o", "IdentitiesOnly=yes"]
    return shlex.join(parts)


def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    try:
        # git (found on PATH) with a fixed argument shape; a URL always follows "--"
        proc = subprocess.run(  # nosec B603 B607  # argv list, no shell, git from the minimal env PATH
            ["git", *args],
            cwd=cwd,
            env=env if env is not None else _base_env([]),
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {args[0]} took longer than {TIMEOUT_S} s") from exc
    if proc.returncode != 0:
        raise GitError(f"git {args[0]} failed: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc.stdout


def fetch(url: str, branch: str, repo: Path, *, auth: Auth | None = None) -> str:
    """The branch's head commit, fetched into a bare mirror at ``repo``."""
    if not (repo / "HEAD").exists():
        repo.parent.mkdir(parents=True, exist_ok=True)
        run("init", "--quiet", "--bare", "--", str(repo))
    env = _base_env(_auth_config(auth))
    refspec = f"+refs/heads/{branch}:refs/heads/{branch}"
    if auth is not None and auth.remote.scheme == "ssh":
        known_hosts = repo.parent / "known_hosts"
        with tempfile.TemporaryDirectory(prefix="git-key-") as keys:
            key_file = None
            if auth.ssh_key:
                key_file = Path(keys) / "id"
                fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w") as out:
                    out.write(auth.ssh_key.rstrip("\n") + "\n")
            env["GIT_SSH_COMMAND"] = _ssh_command(key_file, known_hosts)
            run("fetch", "--quiet", "--no-tags", "--", url, refspec, cwd=repo, env=env)
    else:
        run("fetch", "--quiet", "--no-tags", "--", url, refspec, cwd=repo, env=env)
    return run("rev-parse", "--verify", "--end-of-options", f"refs/heads/{branch}", cwd=repo).strip()


def files(repo: Path, commit: str) -> list[str]:
    return [line for line in run("ls-tree", "-r", "--name-only", commit, cwd=repo).splitlines() if line]


def show(repo: Path, commit: str, path: str) -> bytes:
    try:
        # git show of a blob of our own mirror
        return subprocess.run(  # nosec B603 B607  # argv list, no shell, git from the minimal env PATH
            ["git", "show", f"{commit}:{path}"],
            cwd=repo,
            env=_base_env([]),
            capture_output=True,
            timeout=TIMEOUT_S,
            check=True,
        ).stdout
    except subprocess.CalledProcessError as exc:
        raise GitError(f"git show {path} failed: {exc.stderr.decode(errors='replace').strip()}") from exc


def last_change(repo: Path, commit: str, path: str) -> dict[str, str]:
    """The commit (at or before ``commit``) that last changed ``path``: sha, author, subject."""
    out = run("log", "-1", "--format=%H%x1f%an%x1f%s", commit, "--", path, cwd=repo).strip()
    sha, author, subject = (out.split("\x1f") + ["", "", ""])[:3]
    return {"commit": sha, "author": author, "subject": subject}


def path_exists(repo: Path, commit: str, path: str) -> bool:
    return bool(run("ls-tree", "--name-only", commit, "--", path, cwd=repo).strip())


def commit_info(repo: Path, commit: str) -> dict[str, str]:
    """The commit's sha, author and subject."""
    out = run("log", "-1", "--format=%H%x1f%an%x1f%s", commit, cwd=repo).strip()
    sha, author, subject = (out.split("\x1f") + ["", "", ""])[:3]
    return {"commit": sha, "author": author, "subject": subject}
