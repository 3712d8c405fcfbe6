"""New vLLM releases arrive by themselves: ask the package index, import the catalog, tell staff.

``release_watch_run`` asks a PyPI-style JSON API (``{index}/vllm/json``; PyPI's is ``https://pypi.org/pypi``,
a mirror serving the same API works) for final releases newer than the newest release with a catalog,
downloads each one's wheel (checked against the index's sha256), extracts its argument catalog statically
(never importing vLLM), stores it, previews the fleet moved to it, and e-mails staff one digest per release.
A release with a catalog is never fetched again, so a repeated run sends nothing; one whose mail failed stays
``watch_pending`` and is announced by the next run.
"""

from __future__ import annotations

import hashlib
import json
import logging
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.urls import reverse
from django.utils import timezone
from packaging.version import InvalidVersion, Version

from vllmcheck.catalog_builder import extract

from ..errors import DomainError
from ..models import VllmRelease
from .previews import preview
from .releases import release_import

logger = logging.getLogger(__name__)
PACKAGE = "vllm"


@dataclass(frozen=True)
class Announcement:
    version: str
    would_become_invalid: int
    findings_change: int
    total: int
    recipients: tuple[str, ...]


def _get(url: str, timeout: float) -> bytes:
    request = urllib.request.Request(
        url, headers={"Accept": "application/json", "User-Agent": "vllm-profiles"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:  # the operator's URL
        return response.read()


def index_releases(index_url: str, *, timeout: float = 20) -> dict[str, list[dict[str, Any]]]:
    """``{version: [file, ...]}`` from the index's JSON API."""
    url = f"{index_url.rstrip('/')}/{PACKAGE}/json"
    try:
        data = json.loads(_get(url, timeout))
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise DomainError(f"cannot reach the package index at {url}: {exc}") from exc
    except ValueError as exc:
        raise DomainError(f"the package index at {url} did not answer JSON: {exc}") from exc
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


def _download(file: dict[str, Any], dest: Path, timeout: float) -> Path:
    path = dest / Path(file.get("filename") or "vllm.whl").name
    try:
        data = _get(file["url"], timeout)
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise DomainError(f"cannot download {file.get('filename')}: {exc}") from exc
    expected = (file.get("digests") or {}).get("sha256")
    if expected and hashlib.sha256(data).hexdigest() != expected:
        raise DomainError(f"{file.get('filename')}: sha256 does not match the index's")
    path.write_bytes(data)
    return path


def release_watch_run(*, index_url: str | None = None, timeout: float = 60) -> list[Announcement]:
    index_url = index_url or settings.VLLM_RELEASE_INDEX_URL
    if not index_url:
        return []
    releases = index_releases(index_url, timeout=timeout)
    out = []
    # Imported by an earlier run whose mail did not go out (SMTP down): announce them first.
    for release in VllmRelease.objects.filter(source__watch_pending=True):
        out.append(_announce(release))
    for version in new_versions(releases):
        with tempfile.TemporaryDirectory() as tmp:
            wheel = _download(_wheel(releases[version]), Path(tmp), timeout)
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
