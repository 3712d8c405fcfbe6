"""What a Git source may send where (docs/security.md, "Git sources"), over HTTP against real HTTPS Git servers
on the loopback that record every request they get."""

from __future__ import annotations

import base64
import importlib
import os
import re
import subprocess

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core import mail
from rest_framework.test import APIClient

from profiles.models import Profile, TeamMembership
from profiles.services import team_add_member
from sources import git
from sources.models import GitCredential, GitSource
from sources.services import git_source_sync
from tests.gitserver import start
from validation.errors import DomainError

SECRETS = {
    "SECRET_KEY": "django-insecure-secret-key-of-the-server-1234567890",
    "HF_TOKEN": "hf_abcdefghijklmnopqrstuvwxyz0123456789",
    "EMAIL_URL": "smtp://mailer:mail-password-42@127.0.0.1:1025",
    "DEPLOY_TOKEN": "ghp_tokenoftheworkerenvironment0001",
}


def git_cmd(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "deployments"
    (path / "profiles").mkdir(parents=True)
    git_cmd(path, "init", "--quiet", "-b", "main")
    git_cmd(path, "config", "user.email", "ci@example.com")
    git_cmd(path, "config", "user.name", "Platform CI")
    (path / "profiles" / "small.sh").write_text("# vllm-version: 0.33.0\nvllm serve m --max-num-seqs 8\n")
    git_cmd(path, "add", "-A")
    git_cmd(path, "commit", "--quiet", "-m", "One profile")
    return path


@pytest.fixture
def roles(team, staff):
    """An API client for each role that may add sources: editor (the team fixture's user), admin, staff."""
    admin = get_user_model().objects.create_user("ina", "ina@example.com", "pw")
    team_add_member(actor=staff, team=team, user=admin, role=TeamMembership.Role.ADMIN)
    clients = {}
    for role, user in (
        ("editor", team.memberships.get(role="editor").user),
        ("admin", admin),
        ("staff", staff),
    ):
        client = APIClient()
        client.force_authenticate(user)
        clients[role] = client
    return clients


@pytest.fixture
def server_env(monkeypatch, settings, tmp_path):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    settings.VAR_DIR = tmp_path / "var"
    settings.GIT_CREDENTIALS_KEY_FILE = str(tmp_path / "keys" / "git.key")
    return SECRETS


def env_secrets() -> list[str]:
    """Every value of the server's environment long enough to be a secret (and the ones set above)."""
    return sorted({v for v in os.environ.values() if len(v) >= 12} | set(SECRETS.values()))


def sent_text(server) -> str:
    """All the server was sent, Basic credentials decoded."""
    out = []
    for request in server.requests:
        out.append(request.text())
        for value in request.headers.values():
            for token in re.findall(r"Basic ([A-Za-z0-9+/=]+)", value):
                out.append(base64.b64decode(token).decode("latin-1"))
    return "\n".join(out)


def error(response) -> tuple[str, str]:
    """(field, message) of a 400 answer: ``{field: [message]}``."""
    ((field, messages),) = response.json().items()
    return field, messages[0] if isinstance(messages, list) else messages


def post_source(client, team, url, **extra):
    return client.post(
        "/api/v1/sources/",
        {
            "team": team.slug,
            "name": extra.pop("name", "deploy"),
            "url": url,
            "paths": ["profiles/*.sh"],
            **extra,
        },
        format="json",
    )


@pytest.mark.parametrize("role", ["editor", "admin", "staff"])
def test_credentials_env_is_refused_for_every_role_without_telling_whether_the_variable_exists(
    roles, role, team, server_env, git_server
):
    answers = []
    for variable in ("SECRET_KEY", "DATABASE_URL", "HF_TOKEN", "NO_SUCH_VARIABLE_ANYWHERE"):
        response = post_source(roles[role], team, git_server.url("deployments"), credentials_env=variable)
        assert response.status_code == 400, response.json()
        assert error(response)[0] == "credentials_env"
        answers.append(response.content)
    assert len(set(answers)) == 1  # the same bytes whether the variable exists or not
    assert b"SECRET_KEY" not in answers[0] and b"exist" not in answers[0]
    assert not GitSource.objects.exists()


@pytest.mark.parametrize("role", ["editor", "admin", "staff"])
@pytest.mark.parametrize(
    "url",
    [
        "file:///etc",
        "FILE:///var/lib/vllm-profiles",
        "/work/main/var/git-sources/1",
        "./deployments",
        "../other-team",
        "~/repos/x",
        "ext::sh -c id",
        "ext::touch%20/tmp/pwned",
        "fd::17",
        "http://git.example.com/ml/deploy.git",
        "git://git.example.com/ml/deploy.git",
        "-uhttps://git.example.com/x",
        "https://user:token@git.example.com/x.git",
        "C:/repos/x",
    ],
)
def test_local_paths_and_other_transports_are_refused(roles, role, team, url, server_env):
    response = post_source(roles[role], team, url)
    assert response.status_code == 400, response.json()
    assert error(response)[0] == "url"
    assert not GitSource.objects.exists()


def test_no_sync_by_any_role_sends_a_value_of_the_server_environment(
    roles, team, repo, server_env, git_server, tmp_path
):
    made = []
    for i, client in enumerate(roles.values()):
        for extra in ({}, {"credentials_env": "SECRET_KEY"}, {"credentials_env": "DEPLOY_TOKEN"}):
            response = post_source(
                client, team, git_server.url("deployments"), name=f"s{i}-{len(made)}", **extra
            )
            if response.status_code == 201:
                made.append(response.json()["id"])
    assert len(made) == 3  # one plain source per role; every credentials_env refused
    # a row made before this release, naming a variable (as the API used to allow)
    legacy = GitSource.objects.create(
        team=team,
        owner=team.memberships.get(role="editor").user,
        name="legacy",
        url=git_server.url("deployments"),
        paths=["profiles/*.sh"],
        credentials_env="SECRET_KEY",
    )
    for source in GitSource.objects.filter(pk__in=made):
        git_source_sync(source=source)
    with pytest.raises(DomainError, match="credentials_env is not accepted"):
        git_source_sync(source=legacy)
    legacy.refresh_from_db()
    assert legacy.disabled_reason.startswith("credentials_env is not accepted")
    assert Profile.objects.filter(team=team).count() == 1  # the three plain sources synced the one file
    sent = sent_text(git_server)
    assert git_server.requests  # the syncs did reach the server
    leaked = [value for value in env_secrets() if value in sent]
    assert leaked == []
    assert "Authorization" not in sent


def test_a_credential_bound_to_host_a_is_never_sent_to_host_b_even_after_a_301(
    roles, team, repo, server_env, git_server, git_tls, tmp_path
):
    cert, key = git_tls
    host_b, httpd_b = start(tmp_path, cert, key, host="127.0.0.2")
    try:
        git_server.redirect_to = f"https://{host_b.address}"  # A answers every request 301 to B
        token = "glpat-registered-token-for-host-a"
        created = roles["admin"].post(
            "/api/v1/git-credentials/",
            {"team": team.slug, "name": "host-a", "host": git_server.address, "secret": token},
            format="json",
        )
        assert created.status_code == 201, created.json()
        assert token not in created.content.decode()
        # naming B's URL with A's credential is refused at once
        response = post_source(roles["editor"], team, host_b.url("deployments"), credential="host-a")
        assert response.status_code == 400 and error(response)[0] == "credential"
        response = post_source(roles["editor"], team, git_server.url("deployments"), credential="host-a")
        assert response.status_code == 201, response.json()
        source = GitSource.objects.get(pk=response.json()["id"])
        with pytest.raises(DomainError, match="git fetch failed"):
            git_source_sync(source=source)
        assert git_server.requests and token in sent_text(git_server)  # A got it: it is A's
        assert host_b.requests == []  # the redirect was not followed: B got nothing at all
    finally:
        httpd_b.shutdown()
        httpd_b.server_close()


def test_a_registered_token_syncs_a_private_repository_and_is_never_shown_again(
    roles, team, repo, server_env, git_server, settings
):
    token = "glpat-private-repository-token-0042"
    git_server.require_authorization = "Basic " + base64.b64encode(f"oauth2:{token}".encode()).decode()
    created = roles["admin"].post(
        "/api/v1/git-credentials/",
        {
            "team": team.slug,
            "name": "deploy-token",
            "host": git_server.address,
            "username": "oauth2",
            "secret": token,
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    assert created.json()["fingerprint"].startswith("sha256:")
    response = post_source(roles["editor"], team, git_server.url("deployments"), credential="deploy-token")
    assert response.status_code == 201, response.json()
    result = git_source_sync(source=GitSource.objects.get(pk=response.json()["id"]))
    assert result.created == 1 and not result.errors
    # nobody reads it back: not the API (any role), not the database, not the audit log
    for client in roles.values():
        for url in ("/api/v1/git-credentials/", f"/api/v1/git-credentials/{created.json()['id']}/"):
            assert token not in client.get(url).content.decode()
    stored = GitCredential.objects.get(name="deploy-token")
    assert token not in stored.secret_encrypted
    assert token not in roles["staff"].get("/api/v1/audit/").content.decode()
    assert oct(os.stat(settings.GIT_CREDENTIALS_KEY_FILE).st_mode & 0o777) == "0o600"
    assert stored.last_used_at is not None


def test_only_the_teams_admins_and_staff_register_or_remove_credentials(roles, team, server_env, outsider):
    body = {"team": team.slug, "name": "t", "host": "git.example.com", "secret": "tok-123456"}
    assert roles["editor"].post("/api/v1/git-credentials/", body, format="json").status_code == 403
    other = APIClient()
    other.force_authenticate(outsider)
    assert other.post("/api/v1/git-credentials/", body, format="json").status_code in (400, 403)
    created = roles["admin"].post("/api/v1/git-credentials/", body, format="json")
    assert created.status_code == 201
    # the team's editors see its name and host (to name it in a source), never the secret
    listed = roles["editor"].get("/api/v1/git-credentials/").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert [(c["name"], c["host"]) for c in rows] == [("t", "git.example.com")]
    assert "secret" not in rows[0]
    assert other.get("/api/v1/git-credentials/").json() in (
        [],
        {"count": 0, "next": None, "previous": None, "results": []},
    )
    credential_url = f"/api/v1/git-credentials/{created.json()['id']}/"
    assert roles["editor"].delete(credential_url).status_code == 403
    assert roles["staff"].delete(credential_url).status_code == 204


def test_an_ssh_key_shows_its_public_half_and_goes_only_to_ssh_remotes(roles, team, server_env):
    key = ed25519.Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
    ).decode()
    created = roles["admin"].post(
        "/api/v1/git-credentials/",
        {
            "team": team.slug,
            "name": "deploy-key",
            "host": "git.example.com",
            "kind": "ssh_key",
            "secret": pem,
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    body = created.json()
    assert body["public_key"].startswith("ssh-ed25519 ") and body["fingerprint"].startswith("SHA256:")
    assert "PRIVATE KEY" not in created.content.decode()
    https = post_source(
        roles["editor"], team, "https://git.example.com/ml/deploy.git", credential="deploy-key"
    )
    assert https.status_code == 400 and "ssh" in error(https)[1]
    scp = post_source(roles["editor"], team, "git@git.example.com:ml/deploy.git", credential="deploy-key")
    assert scp.status_code == 201, scp.json()
    bad = roles["admin"].post(
        "/api/v1/git-credentials/",
        {
            "team": team.slug,
            "name": "k2",
            "host": "git.example.com",
            "kind": "ssh_key",
            "secret": "not a key",
        },
        format="json",
    )
    assert bad.status_code == 400 and error(bad)[0] == "secret"


def test_the_host_allow_list_narrows_sources_and_credentials(roles, team, server_env, settings):
    settings.GIT_ALLOWED_HOSTS = ["*.example.com"]
    assert post_source(roles["editor"], team, "https://github.com/org/deploy.git").status_code == 400
    assert post_source(roles["editor"], team, "https://git.example.com/org/deploy.git").status_code == 201
    credential = {"team": team.slug, "name": "t", "host": "github.com", "secret": "tok-123456"}
    response = roles["admin"].post("/api/v1/git-credentials/", credential, format="json")
    assert response.status_code == 400 and error(response)[0] == "host"


def test_an_allow_listed_variable_keeps_a_source_working_for_its_own_host_only(
    roles, team, repo, server_env, git_server, settings
):
    settings.GIT_CREDENTIALS_ENV_ALLOWED = ["DEPLOY_TOKEN"]
    git_server.require_authorization = (
        "Basic " + base64.b64encode(f"x-access-token:{SECRETS['DEPLOY_TOKEN']}".encode()).decode()
    )
    response = post_source(
        roles["staff"], team, git_server.url("deployments"), credentials_env="DEPLOY_TOKEN"
    )
    assert response.status_code == 201, response.json()
    assert git_source_sync(source=GitSource.objects.get(pk=response.json()["id"])).created == 1
    assert SECRETS["SECRET_KEY"] not in sent_text(git_server)


def test_the_migration_disables_unsafe_sources_and_the_owner_is_told_once(
    team, user, server_env, settings, git_server
):
    settings.GIT_CREDENTIALS_ENV_ALLOWED = ["DEPLOY_TOKEN"]
    rows = {
        name: GitSource.objects.create(
            team=team, owner=user, name=name, url=url, paths=["*.sh"], credentials_env=env
        )
        for name, url, env in (
            ("env-secret", git_server.url("deployments"), "SECRET_KEY"),
            ("local-path", "/srv/other-team/repo", ""),
            ("allowed", git_server.url("deployments"), "DEPLOY_TOKEN"),
            ("public", git_server.url("deployments"), ""),
        )
    }
    migration = importlib.import_module("sources.migrations.0003_disable_unsafe_sources")
    migration.disable_unsafe(apps, None)
    state = {name: GitSource.objects.get(pk=row.pk).disabled_reason for name, row in rows.items()}
    assert state["allowed"] == "" and state["public"] == ""
    assert state["env-secret"].startswith("credentials_env is not accepted")
    assert "local path" in state["local-path"]
    for _ in range(2):  # beat tries every interval: one e-mail per disabling, not one per try
        with pytest.raises(DomainError, match="is not synced"):
            git_source_sync(source=GitSource.objects.get(pk=rows["env-secret"].pk))
    messages = [m for m in mail.outbox if "env-secret" in m.subject]
    assert len(messages) == 1 and messages[0].to == [user.email]
    assert "credentials_env is not accepted" in messages[0].body
    assert SECRETS["SECRET_KEY"] not in messages[0].body
    assert git_server.requests == []  # the disabled sources fetched nothing


def test_git_itself_refuses_local_transports_even_if_a_url_slipped_past_the_parser(repo, tmp_path):
    for url in (f"file://{repo}", str(repo), "ext::sh -c touch% /tmp/pwned"):
        with pytest.raises(git.GitError, match="not allowed|unable to find|does not appear"):
            git.fetch(url, "main", tmp_path / "mirror")
    assert not os.path.exists("/tmp/pwned")
