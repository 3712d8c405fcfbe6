"""The git command line, for reading a branch of a repository (git itself is the well-kept tool)."""

from __future__ import annotations

import base64
import os
import subprocess
from pathlib import Path

TIMEOUT_S = 120


class GitError(RuntimeError):
    pass


def _env(token: str | None) -> dict[str, str]:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
    if token:  # an auth header through the environment, so the token is never on a command line
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        env.update(
            {
                "GIT_CONFIG_COUNT": "1",
                "GIT_CONFIG_KEY_0": "http.extraHeader",
                "GIT_CONFIG_VALUE_0": f"Authorization: Basic {basic}",
            }
        )
    return env


def run(*args: str, cwd: Path | None = None, token: str | None = None) -> str:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, env=_env(token), capture_output=True, text=True, timeout=TIMEOUT_S
        )
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {args[0]} took longer than {TIMEOUT_S} s") from exc
    if proc.returncode != 0:
        raise GitError(f"git {args[0]} failed: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc.stdout


def fetch(url: str, branch: str, repo: Path, *, token: str | None = None) -> str:
    """The branch's head commit, fetched into a bare mirror at ``repo``."""
    if not (repo / "HEAD").exists():
        repo.parent.mkdir(parents=True, exist_ok=True)
        run("init", "--quiet", "--bare", str(repo))
    run(
        "fetch",
        "--quiet",
        "--no-tags",
        url,
        f"+refs/heads/{branch}:refs/heads/{branch}",
        cwd=repo,
        token=token,
    )
    return run("rev-parse", f"refs/heads/{branch}", cwd=repo).strip()


def files(repo: Path, commit: str) -> list[str]:
    return [line for line in run("ls-tree", "-r", "--name-only", commit, cwd=repo).splitlines() if line]


def show(repo: Path, commit: str, path: str) -> bytes:
    try:
        return subprocess.run(
            ["git", "show", f"{commit}:{path}"], cwd=repo, capture_output=True, timeout=TIMEOUT_S, check=True
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
