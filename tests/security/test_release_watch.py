"""The release watcher asks the operator's package index (VLLM_RELEASE_INDEX_URL), but the wheel's URL, name,
size and digest come from the index's answer: a compromised index or mirror must not make the worker open a
local file or another scheme, downgrade from https, fill its disk or memory, or use a wheel whose sha256 is
not the index's. Real indexes on 127.0.0.1 (tests/release_index.py), plain and TLS."""

from __future__ import annotations

import pytest
from django.core import mail

from fleet import release_watch
from fleet.release_watch import release_watch_run
from tests.release_index import LocalIndex, build_wheel, self_signed
from validation.errors import DomainError
from validation.models import VllmRelease

VERSION = "0.35.0"


@pytest.fixture
def index(tmp_path):
    served = LocalIndex(tmp_path)
    yield served
    served.close()


@pytest.fixture
def wheel(tmp_path):
    return build_wheel(tmp_path, VERSION)


def assert_refused(index_url: str, match: str) -> None:
    with pytest.raises(DomainError, match=match):
        release_watch_run(index_url=index_url, timeout=10)
    assert not VllmRelease.objects.filter(version=VERSION).exists()
    assert mail.outbox == []


@pytest.mark.django_db
@pytest.mark.parametrize("scheme", ["file", "ftp", "data"])
def test_a_wheel_url_that_is_not_http_is_never_opened(index, wheel, scheme):
    # The file:// URL names the very wheel, with its true sha256: urllib's default opener would import it.
    url = {
        "file": wheel.as_uri(),
        "ftp": f"ftp://127.0.0.1:{index.port}/files/{wheel.name}",
        "data": "data:application/octet-stream;base64,UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==",
    }[scheme]
    index.publish(VERSION, wheel=wheel, url=url)
    assert_refused(index.url, "is not an http\\(s\\) URL")


@pytest.mark.django_db
def test_an_index_url_that_is_not_http_is_refused(tmp_path, wheel):
    (tmp_path / "vllm").mkdir()
    (tmp_path / "vllm" / "json").write_text('{"releases": {}}')
    assert_refused(tmp_path.as_uri(), "VLLM_RELEASE_INDEX_URL: file:///.* is not an http\\(s\\) URL")


@pytest.mark.django_db
def test_a_redirect_to_another_scheme_is_refused(index, wheel):
    index.publish(VERSION, wheel=wheel)
    index.redirects[f"/files/{wheel.name}"] = f"ftp://127.0.0.1:{index.port}/files/{wheel.name}"
    assert_refused(index.url, "redirect refused: ftp://.* is not an http\\(s\\) URL")


@pytest.mark.django_db
def test_a_wheel_without_a_sha256_is_not_even_downloaded(index, wheel):
    index.publish(VERSION, wheel=wheel, sha256="")
    assert_refused(index.url, "gives no sha256 for it, so it is not downloaded")
    assert not any(path.startswith("/files/") for path in index.requests)


@pytest.mark.django_db
def test_a_wheel_whose_sha256_differs_is_refused(index, wheel):
    index.publish(VERSION, wheel=wheel, sha256="ab" * 32)
    assert_refused(index.url, "sha256 does not match the index's")


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["../../../tmp/vllm-0.35.0-py3-none-any.whl", "vllm-0.35.0.tar.gz", "x.whl"])
def test_a_wheel_name_cannot_be_a_path(index, wheel, name):
    index.publish(VERSION, wheel=wheel, filename=name)
    assert_refused(index.url, "not a vllm wheel's name")


@pytest.mark.django_db
def test_a_wheel_larger_than_the_limit_is_refused_before_and_while_downloading(index, wheel, settings):
    settings.VLLM_RELEASE_MAX_WHEEL_BYTES = wheel.stat().st_size - 1
    index.publish(VERSION, wheel=wheel)  # the index tells the true size: refused before any request
    assert_refused(index.url, "more than VLLM_RELEASE_MAX_WHEEL_BYTES")
    assert not any(path.startswith("/files/") for path in index.requests)
    index.publish(VERSION, wheel=wheel, size=10)  # the index lies: the download stops at the limit
    assert_refused(index.url, "more than VLLM_RELEASE_MAX_WHEEL_BYTES")
    assert any(path.startswith("/files/") for path in index.requests)


@pytest.mark.django_db
def test_an_index_answer_larger_than_the_limit_is_refused(index, wheel, monkeypatch):
    monkeypatch.setattr(release_watch, "MAX_INDEX_BYTES", 100)
    index.publish(VERSION, wheel=wheel)
    assert_refused(index.url, "answered more than 100 bytes")


@pytest.fixture
def tls_index(tmp_path, monkeypatch):
    cert, key = self_signed(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # the worker trusts this index's certificate
    served = LocalIndex(tmp_path, tls=(cert, key))
    yield served
    served.close()


@pytest.mark.django_db
def test_an_https_index_imports_over_https(tls_index, wheel, staff):
    tls_index.publish(VERSION, wheel=wheel)
    (announced,) = release_watch_run(index_url=tls_index.url, timeout=10)
    assert announced.version == VERSION and tls_index.url.startswith("https://")
    assert VllmRelease.objects.get(version=VERSION).catalog_sha256


@pytest.mark.django_db
def test_an_https_index_cannot_send_the_worker_to_http(tls_index, index, wheel):
    plain = f"{index.base}/files/{wheel.name}"
    tls_index.publish(VERSION, wheel=wheel, url=plain)
    assert_refused(tls_index.url, "is not https, and the index is")
    tls_index.publish(VERSION, wheel=wheel)
    tls_index.redirects[f"/files/{wheel.name}"] = plain
    assert_refused(tls_index.url, "redirect refused: .* is not https, and the index is")
    assert not any(path.startswith("/files/") for path in index.requests)
