"""New vLLM releases arrive by themselves: ask the package index, import the catalog, tell staff.

``release_watch_run`` asks a PyPI-style JSON API (``{index}/vllm/json``; PyPI's is ``https://pypi.org/pypi``,
a mirror serving the same API works) for final releases newer than the newest release with a catalog,
downloads each one's wheel (http(s) only, https when the index is; bounded in size; checked against the
index's sha256 before it is read), extracts its argument catalog statically
(never importing vLLM), stores it, previews the fleet moved to it, and e-mails staff one digest per release.
A release with a catalog is never fetched again, so a repeated run sends nothing; one whose mail failed stays
``watch_pending`` and is announced by the next run.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import socket
import ssl
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.urls import reverse
from django.utils import timezone
from packaging.version import InvalidVersion, Version

from profiles.services.previews import preview
from validation.errors import DomainError
from validation.models import VllmRelease
from validation.services.releases import release_import
from vllmcheck.catalog_builder import extract

logger = logging.getLogger(__name__)
PACKAGE = "vllm"


@dataclass(frozen=True)
class Announcement:
    version: str
    would_become_invalid: int
    findings_change: int
    total: int
    recipients: tuple[str, ...]


# The index's answer and the wheel are read up to these sizes, never further (a hostile or broken index
# cannot fill the worker's memory or disk). vLLM's JSON page on PyPI is a few MB; its wheels a few hundred.
MAX_INDEX_BYTES = 32 << 20
WHEEL_NAME = re.compile(r"^vllm-[A-Za-z0-9_.+!-]+\.whl$")
SHA256 = re.compile(r"^[0-9a-fA-F]{64}$")


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Redirects are followed only to http(s), and only to https when the index is https."""

    def __init__(self, https_only: bool):
        self.https_only = https_only

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        problem = _url_problem(newurl, https_only=self.https_only)
        if problem:
            raise urllib.error.HTTPError(newurl, code, f"redirect refused: {problem}", headers, fp)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _url_problem(url: Any, *, https_only: bool) -> str | None:
    """Why the watcher will not open ``url`` (not http(s), no host, http from an https index), else None."""
    if not isinstance(url, str):
        return "no URL"
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{url} is not an http(s) URL"
    if https_only and parts.scheme != "https":
        return f"{url} is not https, and the index is"
    return None


def _open(url: str, timeout: float, *, https_only: bool):
    """A response for ``url``: only the http(s) handlers are installed (urllib's default opener also opens
    file://, ftp:// and data: URLs), redirects as :class:`_Redirects` allows; proxies from the environment."""
    problem = _url_problem(url, https_only=https_only)
    if problem:
        raise DomainError(f"refused to download: {problem}")
    opener = urllib.request.OpenerDirector()
    for handler in (
        urllib.request.ProxyHandler(),
        urllib.request.HTTPHandler(),
        urllib.request.HTTPSHandler(),
        _Redirects(https_only),
        urllib.request.HTTPDefaultErrorHandler(),
        urllib.request.HTTPErrorProcessor(),
    ):
        opener.add_handler(handler)
    request = urllib.request.Request(
        url, headers={"Accept": "application/json", "User-Agent": "vllm-profiles"}
    )
    return opener.open(request, timeout=timeout)


def network_reason(exc: BaseException) -> str:
    """A network failure in words for a page or a mail (never the raw ``[Errno 111] ...`` text)."""
    if isinstance(exc, urllib.error.HTTPError):
        if str(exc.msg).startswith("redirect refused:"):  # our own words (the opener's redirect check)
            return str(exc.msg)
        return f"it answered HTTP {exc.code}"
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, TimeoutError) or "timed out" in str(reason):
        return "it did not answer in time"
    if isinstance(reason, ConnectionRefusedError):
        return "the connection was refused"
    if isinstance(reason, socket.gaierror):
        return "its host name does not resolve"
    if isinstance(reason, ssl.SSLError):
        return "its TLS certificate or handshake was refused"
    if isinstance(reason, ConnectionError):
        return "the connection was dropped"
    return "a network error"


def _get(url: str, timeout: float, *, https_only: bool) -> bytes:
    with _open(url, timeout, https_only=https_only) as response:  # the operator's URL
        data = response.read(MAX_INDEX_BYTES + 1)
    if len(data) > MAX_INDEX_BYTES:
        raise DomainError(f"the package index at {url} answered more than {MAX_INDEX_BYTES} bytes")
    return data


def index_releases(index_url: str, *, timeout: float = 20) -> dict[str, list[dict[str, Any]]]:
    """``{version: [file, ...]}`` from the index's JSON API."""
    url = f"{index_url.rstrip('/')}/{PACKAGE}/json"
    try:
        data = json.loads(_get(url, timeout, https_only=_is_https(index_url)))
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise DomainError(f"cannot reach the package index at {url}: {network_reason(exc)}") from exc
    except ValueError as exc:
        raise DomainError(f"the package index at {url} did not answer JSON") from exc
    releases = data.get("releases") if isinstance(data, dict) else None
    if not isinstance(releases, dict):
        raise DomainError(f"the package index at {url} answered without a 'releases' mapping")
    return releases


def _newest_known() -> Version | None:
    versions = [
        Version(v) for v in VllmRelease.objects.exclude(catalog_sha256="").values_list("version", flat=True)
    ]
    return max(versions) if versions else None


def _wheel(files: list[dict[str, Any]]) -> dict[str, Any] | None:
    wheels = [f for f in files if f.get("packagetype") == "bdist_wheel" and not f.get("yanked")]
    return wheels[0] if wheels else None


def new_versions(releases: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Final releases newer than the newest catalog, oldest first, that have a wheel."""
    newest = _newest_known()
    found = []
    for raw, files in releases.items():
        try:
            version = Version(raw)
        except InvalidVersion:
            continue
        if version.is_prerelease or version.is_devrelease or (newest is not None and version <= newest):
            continue
        if _wheel(files or []):
            found.append(version)
    return [str(v) for v in sorted(found)]


def _is_https(url: str) -> bool:
    return urlsplit(url).scheme == "https"


def _download(file: dict[str, Any], dest: Path, timeout: float, *, https_only: bool, max_bytes: int) -> Path:
    """The wheel the index lists, in ``dest``: from an http(s) URL (https when the index is), at most
    ``max_bytes``, and only when its sha256 is the index's (a file without one is not downloaded)."""
    name = str(file.get("filename") or "")
    if not WHEEL_NAME.match(name):
        raise DomainError(f"the package index lists a wheel named {name!r}: not a vllm wheel's name")
    expected = (file.get("digests") or {}).get("sha256")
    if not isinstance(expected, str) or not SHA256.match(expected):
        raise DomainError(f"{name}: the package index gives no sha256 for it, so it is not downloaded")
    size = file.get("size")
    if isinstance(size, int) and size > max_bytes:
        raise DomainError(f"{name}: {size} bytes, more than VLLM_RELEASE_MAX_WHEEL_BYTES ({max_bytes})")
    path = dest / name
    digest = hashlib.sha256()
    total = 0
    try:
        with _open(file.get("url"), timeout, https_only=https_only) as response, open(path, "wb") as out:
            while chunk := response.read(1 << 20):
                total += len(chunk)
                if total > max_bytes:
                    raise DomainError(f"{name}: more than VLLM_RELEASE_MAX_WHEEL_BYTES ({max_bytes}) bytes")
                digest.update(chunk)
                out.write(chunk)
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise DomainError(f"cannot download {name}: {network_reason(exc)}") from exc
    if digest.hexdigest() != expected.lower():
        raise DomainError(f"{name}: sha256 does not match the index's")
    return path


def release_watch_run(*, index_url: str | None = None, timeout: float = 60) -> list[Announcement]:
    index_url = index_url or settings.VLLM_RELEASE_INDEX_URL
    if not index_url:
        return []
    if problem := _url_problem(index_url, https_only=False):
        raise DomainError(f"VLLM_RELEASE_INDEX_URL: {problem}")
    releases = index_releases(index_url, timeout=timeout)
    out = []
    # Imported by an earlier run whose mail did not go out (SMTP down): announce them first.
    for release in VllmRelease.objects.filter(source__watch_pending=True):
        out.append(_announce(release))
    for version in new_versions(releases):
        with tempfile.TemporaryDirectory() as tmp:
            wheel = _download(
                _wheel(releases[version]),
                Path(tmp),
                timeout,
                https_only=_is_https(index_url),
                max_bytes=settings.VLLM_RELEASE_MAX_WHEEL_BYTES,
            )
            catalog = extract(wheel=wheel, version=version)
        release = release_import(version=version, catalog=catalog).release
        release.source = {**release.source, "watch_pending": True}
        release.save(update_fields=["source"])
        out.append(_announce(release))
    return out


def _announce(release: VllmRelease) -> Announcement:
    outcome = preview(release=release)
    counts = outcome["counts"]
    recipients = tuple(
        get_user_model()
        .objects.filter(is_staff=True, is_active=True)
        .exclude(email="")
        .values_list("email", flat=True)
        .order_by("email")
    )
    site = settings.SITE_URL.rstrip("/")
    previous = (
        VllmRelease.objects.exclude(pk=release.pk)
        .exclude(catalog_sha256="")
        .order_by("-major", "-minor", "-patch")
    ).first()
    links = [f"Upgrade preview: {site}{reverse('validation:release-preview', args=[release.version])}"]
    if previous is not None:
        links.append(
            f"What changed since {previous.version}: {site}{reverse('validation:release-diff')}"
            f"?old={previous.version}&new={release.version}"
        )
    subject = (
        f"vLLM {release.version} is out: {counts['would_become_invalid']} profiles would become invalid, "
        f"{counts['findings_change']} would gain or lose warnings"
    )
    body = "\n".join(
        [
            f"vLLM {release.version} was published on the package index; its argument catalog is imported.",
            "",
            f"If the fleet moved to {release.version} now, with the current rule set:",
            f"  {counts['would_become_invalid']} of {outcome['total']} profiles would become invalid,",
            f"  {counts['findings_change']} would gain or lose warnings,",
            f"  {counts['would_become_valid']} would become valid.",
            "",
            *links,
        ]
    )
    if recipients:
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, list(recipients))
    release.source = {
        **{k: v for k, v in release.source.items() if k != "watch_pending"},
        "announced_at": timezone.now().isoformat(),
    }
    release.save(update_fields=["source"])
    logger.info("announced vLLM %s to %d staff", release.version, len(recipients))
    return Announcement(
        version=release.version,
        would_become_invalid=counts["would_become_invalid"],
        findings_change=counts["findings_change"],
        total=outcome["total"],
        recipients=recipients,
    )
