"""A real OpenID Connect provider for the SSO tests: node-oidc-provider (tests/oidc/provider.mjs), installed from
the npm registry with `npm ci` against tests/oidc/package-lock.json into ~/.cache/vllm-profiles/oidc-provider/
(once per lock file), and started once per test session (the ``oidc_provider`` fixture in tests/conftest.py).

Its log-in page is node-oidc-provider's development interaction: any password for a login listed in the users
file, which the provider reads at every log-in (``provider.set_users``), so a test can change a user's groups.
``sign_in`` walks the authorization-code flow with plain HTTP, as a browser would, for Django's test client.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import requests

HERE = Path(__file__).resolve().parent / "oidc"
CACHE = (
    Path(os.environ.get("VLLM_PROFILES_CACHE", Path.home() / ".cache" / "vllm-profiles")) / "oidc-provider"
)
CLIENT_ID = "vllm-profiles-tests"
CLIENT_SECRET = "tests-only-client-secret"  # nosec B105: the test provider's static client


def install() -> Path:
    """The provider's directory with its node_modules, installed from the registry once per lock file."""
    lock = (HERE / "package-lock.json").read_bytes()
    target = CACHE / hashlib.sha256(lock).hexdigest()[:16]
    if not (target / "node_modules" / "oidc-provider" / "package.json").exists():
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("the SSO tests need node and npm (node >= 20) to install node-oidc-provider")
        CACHE.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=CACHE, prefix=".install-"))
        staging.chmod(0o755)  # mkdtemp makes it private
        for name in ("package.json", "package-lock.json"):
            shutil.copy(HERE / name, staging / name)
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=staging,
            check=True,
            timeout=600,
        )
        try:
            staging.rename(target)  # atomic: a parallel session either sees all of it or installs its own
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
    shutil.copy(HERE / "provider.mjs", target / "provider.mjs")
    return target


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Provider:
    def __init__(self, workdir: Path):
        self.port = _free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.users_file = workdir / "users.json"
        self.set_users({})
        self.log = workdir / "provider.log"
        directory = install()
        env = {
            **os.environ,
            "OIDC_PORT": str(self.port),
            "OIDC_USERS_FILE": str(self.users_file),
            "OIDC_CLIENT_ID": CLIENT_ID,
            "OIDC_CLIENT_SECRET": CLIENT_SECRET,
        }
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [shutil.which("node") or "node", "provider.mjs"],
                cwd=directory,
                env=env,
                stdout=log,
                stderr=log,
            )
        self._wait()

    def _wait(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the OIDC provider exited: {self.log.read_text()}")
            try:
                requests.get(f"{self.issuer}/.well-known/openid-configuration", timeout=2).raise_for_status()
                return
            except requests.RequestException:
                time.sleep(0.2)
        raise RuntimeError(f"the OIDC provider did not answer within {timeout} s: {self.log.read_text()}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def set_users(self, users: dict) -> None:
        """``{login: {"email": ..., "groups": [...]}}``: who may log in at the provider, with their claims."""
        self.users_file.write_text(json.dumps(users))

    def settings(self) -> dict:
        """The product's settings for this provider (what an operator puts in the environment)."""
        return {
            "OIDC_PROVIDER_NAME": "Test IdP",
            "OIDC_RP_CLIENT_ID": CLIENT_ID,
            "OIDC_RP_CLIENT_SECRET": CLIENT_SECRET,
            "OIDC_OP_AUTHORIZATION_ENDPOINT": f"{self.issuer}/auth",
            "OIDC_OP_TOKEN_ENDPOINT": f"{self.issuer}/token",
            "OIDC_OP_USER_ENDPOINT": f"{self.issuer}/me",
            "OIDC_OP_JWKS_ENDPOINT": f"{self.issuer}/jwks",
            "OIDC_RP_SCOPES": "openid email profile groups",
        }


def provider_walk(authorize_url: str, login: str, *, password: str = "any") -> str:
    """At the provider, as a browser would: follow the redirects, fill in the log-in form, confirm the consent,
    until the provider sends the browser back to the product; that URL (the callback with code and state)."""
    session = requests.Session()
    url = authorize_url
    provider = urlsplit(authorize_url).netloc
    for _ in range(20):
        if urlsplit(url).netloc != provider:
            return url
        response = session.get(url, allow_redirects=False, timeout=10)
        while response.status_code in (302, 303) and urlsplit(url).netloc == provider:
            url = urljoin(url, response.headers["Location"])
            if urlsplit(url).netloc != provider:
                return url
            response = session.get(url, allow_redirects=False, timeout=10)
        action = re.search(r'<form[^>]*action="([^"]+)"', response.text)
        if action is None:
            raise AssertionError(f"the provider answered {response.status_code}: {response.text[:500]}")
        if 'name="login"' in response.text:
            data = {"prompt": "login", "login": login, "password": password}
        else:
            data = {"prompt": "consent"}
        response = session.post(urljoin(url, action.group(1)), data=data, allow_redirects=False, timeout=10)
        url = urljoin(url, response.headers["Location"])
    raise AssertionError("the provider never sent the browser back")


def sign_in(client, login: str, *, next_url: str = ""):
    """Django's test client signs in through the provider as ``login``; the callback's response."""
    start = client.get("/oidc/authenticate/" + (f"?next={next_url}" if next_url else ""))
    assert start.status_code == 302, start.status_code
    back = urlsplit(provider_walk(start["Location"], login))
    return client.get(f"{back.path}?{back.query}")
