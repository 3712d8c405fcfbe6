"""Posting to a notification target under the rule of docs/security.md ("Notification targets"): ``https://``
only, no redirect followed, no private, loopback, link-local, multicast or reserved address (IPv4 and IPv6,
IPv4-mapped included) unless the operator allow-lists the host (``NOTIFY_ALLOWED_HOSTS``). The address checked
is the address connected to: the host is resolved once, every address it resolves to is checked, and the
connection goes to that address (TLS still verifies the certificate for the host name), so a DNS answer that
changes between the check and the connection (rebinding) cannot reach an address the check refused.

A post has a short time-out and reads at most ``MAX_ANSWER_BYTES`` of the answer; no server secret, cookie or
credential is attached: only the headers the caller gives."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import certifi
import urllib3
from django.conf import settings

MAX_ANSWER_BYTES = 2048


class TargetRefused(ValueError):
    """The URL breaks the rule: never posted to (a user's error, worded for a page)."""


@dataclass
class Answer:
    status: int
    body: bytes


def _allowed_hosts() -> set[str]:
    return {h.strip().lower() for h in settings.NOTIFY_ALLOWED_HOSTS if h.strip()}


def check_url(url: str) -> None:
    """The URL's form: ``https://`` and a host (resolution is checked when posting)."""
    try:
        parts = urlsplit(url)
        parts.hostname  # noqa: B018 - a malformed host ("https://[x") raises
    except ValueError as exc:
        raise TargetRefused("url: not a URL") from exc
    if parts.scheme != "https":
        raise TargetRefused("url: only https:// URLs are allowed")
    if len(url) > 2000:
        raise TargetRefused("url: longer than 2000 characters")
    if not parts.hostname:
        raise TargetRefused("url: no host name")
    if parts.username or parts.password:
        raise TargetRefused("url: user names and passwords in the URL are not allowed")
    try:
        parts.port  # noqa: B018 - a malformed port raises
    except ValueError as exc:
        raise TargetRefused("url: the port is not a number from 1 to 65535") from exc


def _public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_link_local or ip.is_loopback)


def resolve(host: str, port: int) -> str:
    """The address to connect to: the first one the host resolves to, after every one was checked."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise TargetRefused(f"url: the host {host} does not resolve") from exc
    addresses = [info[4][0] for info in infos]
    if host.lower() not in _allowed_hosts():
        for address in addresses:
            if not _public(ipaddress.ip_address(address.split("%", 1)[0])):
                raise TargetRefused(
                    f"url: {host} resolves to a private, loopback, link-local or reserved address "
                    "(an operator may allow-list the host: NOTIFY_ALLOWED_HOSTS)"
                )
    return addresses[0]


def post(url: str, body: bytes, headers: dict[str, str]) -> Answer:
    check_url(url)
    parts = urlsplit(url)
    host, port = parts.hostname, parts.port or 443
    address = resolve(host, port)
    pool = urllib3.HTTPSConnectionPool(
        address,
        port,
        server_hostname=host,
        assert_hostname=host,
        cert_reqs="CERT_REQUIRED",
        ca_certs=settings.NOTIFY_CA_BUNDLE or certifi.where(),
        timeout=urllib3.Timeout(connect=settings.NOTIFY_TIMEOUT, read=settings.NOTIFY_TIMEOUT),
        retries=False,
        maxsize=1,
    )
    path = parts.path or "/"
    if parts.query:
        path += f"?{parts.query}"
    netloc = host if parts.port is None else f"{host}:{port}"
    try:
        response = pool.urlopen(
            "POST",
            path,
            body=body,
            headers={**headers, "Host": netloc, "User-Agent": "vllm-profiles-notifier/1"},
            redirect=False,
            retries=False,
            preload_content=False,
            assert_same_host=False,
        )
        data = response.read(MAX_ANSWER_BYTES)
        response.close()  # the rest of the answer is never read
        return Answer(response.status, data)
    finally:
        pool.close()
