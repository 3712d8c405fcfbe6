"""Which Git remotes a source may name: https://, ssh:// and scp-like ``user@host:path``, nothing else.

A source's URL is user input that the worker hands to ``git fetch``; git would also take a local path, a
``file://`` URL, ``ext::<command>`` (which runs a command) or a string that starts with ``-`` (an option). So
the URL is parsed here, refused unless it is one of the three remote forms, and compared with the
operator's host allow-list (``GIT_ALLOWED_HOSTS``). git itself is run with every other transport off
(``sources.git``), so a URL that slipped past this parser still could not reach a local path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatch
from urllib.parse import urlsplit

# A DNS name or an IPv4 address (letters, digits, dots, hyphens; never starting with '-'), or [IPv6].
_HOST = r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])"
_HOST_RE = re.compile(rf"^{_HOST}$")
_SCP_RE = re.compile(rf"^(?P<user>[A-Za-z0-9._-]+)@(?P<host>{_HOST}):(?P<path>[^/].*|/.+)$")
_USER_RE = re.compile(r"^[A-Za-z0-9._-]+$")


class RemoteError(ValueError):
    """The URL is not a remote a source may name; the message says why in a user's words."""


@dataclass(frozen=True)
class Remote:
    scheme: str  # "https" or "ssh" (scp-like remotes are ssh)
    host: str  # lower case, without the port
    port: int | None
    url: str  # as given

    @property
    def origin(self) -> str:
        """``https://host[:port]/``: the prefix git's ``http.<url>.*`` settings match (https only)."""
        port = f":{self.port}" if self.port else ""
        return f"https://{self.host}{port}/"

    @property
    def address(self) -> str:
        """``host`` or ``host:port``: what a credential is bound to."""
        return f"{self.host}:{self.port}" if self.port else self.host


def parse(url: str) -> Remote:
    """The remote ``url`` names, or :class:`RemoteError`."""
    text = (url or "").strip()
    if not text:
        raise RemoteError(
            "give the repository's URL: https://host/path.git, ssh://host/path or git@host:path"
        )
    if text != url or any(ord(c) < 0x21 or c == "\x7f" for c in text):
        raise RemoteError("the URL may not contain spaces or control characters")
    if text.startswith("-"):
        raise RemoteError("the URL may not start with '-'")
    if "::" in text.split("/", 1)[0]:  # git's <transport>::<address> (ext::, fd::, ...)
        raise RemoteError("git remote helpers (<transport>::<address>, e.g. ext::) are not accepted")
    if "://" in text:
        return _parse_url(text)
    match = _SCP_RE.match(text)
    if match:
        return Remote("ssh", match["host"].lower(), None, text)
    raise RemoteError(
        "only remote repositories are synced: https://host/path.git, ssh://host/path or user@host:path "
        "(not a local path)"
    )


def _parse_url(text: str) -> Remote:
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme not in ("https", "ssh"):
        raise RemoteError(
            f"the URL scheme {scheme + '://'!r} is not accepted: use https:// or ssh:// (or user@host:path)"
        )
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError as exc:
        raise RemoteError("the URL's port is not a number from 1 to 65535") from exc
    if not host or not _HOST_RE.match(host if ":" not in host else f"[{host}]"):
        raise RemoteError("the URL names no valid host")
    if scheme == "https" and (parts.username or parts.password):
        raise RemoteError("put no user name or token in the URL: register a Git credential instead")
    if parts.username and not _USER_RE.match(parts.username):
        raise RemoteError("the URL's user name may hold letters, digits, '.', '_' and '-' only")
    if not parts.path or parts.path == "/":
        raise RemoteError("the URL names no repository path")
    if parts.query or parts.fragment:
        raise RemoteError("the URL may not have a query (?...) or a fragment (#...)")
    return Remote(scheme, host.lower(), port, text)


def host_allowed(remote: Remote, allowed: list[str] | tuple[str, ...]) -> bool:
    """True when the allow-list is empty or names the remote's host (``*.example.com`` patterns too)."""
    if not allowed:
        return True
    return any(fnmatch(remote.host, pattern.strip().lower()) for pattern in allowed if pattern.strip())


def split_address(bound: str) -> tuple[str, int | None]:
    """``host``, ``host:port``, ``[v6]`` or ``[v6]:port`` as (lower-case host, port or None); RemoteError."""
    text = bound.strip().lower()
    if text.startswith("["):
        host, _, rest = text.partition("]")
        host, port = host + "]", rest[1:] if rest.startswith(":") else rest
    else:
        host, _, port = text.partition(":")
    if not _HOST_RE.match(host) or (port and not (port.isdigit() and 0 < int(port) < 65536)):
        raise RemoteError(f"{bound!r} is not a host name (git.example.com, or git.example.com:8443)")
    return host.strip("[]"), int(port) if port else None


def host_matches(bound: str, remote: Remote) -> bool:
    """A credential bound to ``bound`` (``host`` or ``host:port``) may go to ``remote``: the same host, and
    the same port when the credential names one (a remote without a port uses its scheme's)."""
    try:
        host, port = split_address(bound)
    except RemoteError:
        return False
    if host != remote.host.strip("[]"):
        return False
    return port is None or port == (remote.port or (443 if remote.scheme == "https" else 22))


_BAD_BRANCH = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//")


def check_branch(branch: str) -> str:
    """A branch name git accepts (``git check-ref-format --branch``'s rules) that cannot read as an option."""
    name = (branch or "").strip()
    if (
        not name
        or name != branch
        or name.startswith(("-", "/", "."))
        or name.endswith(("/", ".", ".lock"))
        or _BAD_BRANCH.search(name)
        or name == "@"
    ):
        raise RemoteError(f"{branch!r} is not a branch name git accepts (e.g. main, release/2026-12)")
    return name


def valid_username(name: str) -> bool:
    return bool(_USER_RE.match(name))
