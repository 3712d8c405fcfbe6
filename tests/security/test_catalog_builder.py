"""The catalog builder reads a wheel the release watcher downloaded (from the operator's index, sha256
checked) and may run ``pip download`` (``import_vllm_release --fetch``, staff's shell): a wheel cannot make it
read unbounded data, and a version cannot become anything but a version for pip."""

from __future__ import annotations

import zipfile

import pytest

from fleet.release_watch import release_watch_run
from tests.release_index import LocalIndex, build_wheel
from validation.models import VllmRelease
from vllmcheck.catalog_builder import fetch_wheel, source


@pytest.mark.django_db
def test_a_wheel_whose_sources_unpack_too_large_is_refused_before_they_are_read(tmp_path, monkeypatch):
    monkeypatch.setattr(source, "MAX_SOURCE_BYTES", 1 << 20)
    wheel = build_wheel(tmp_path, "0.35.0")
    with zipfile.ZipFile(wheel, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("vllm/padding.py", "#" * (2 << 20))  # 2 MB that compress to a few KB
    assert wheel.stat().st_size < 1 << 20
    index = LocalIndex(tmp_path)
    try:
        index.publish("0.35.0", wheel=wheel)  # its true sha256: only the size stops it
        with pytest.raises(ValueError, match=r"its vllm/\*\.py files hold \d+ bytes, more than 1048576"):
            release_watch_run(index_url=index.url, timeout=10)
    finally:
        index.close()
    assert not VllmRelease.objects.filter(version="0.35.0").exists()


@pytest.mark.parametrize(
    "version", ["0.35.0 --index-url http://127.0.0.1:1/", "0.35.0; python_version>'0'", "-r/etc/passwd", ""]
)
def test_fetch_wheel_takes_a_version_number_only(tmp_path, version):
    with pytest.raises(ValueError, match="is not a vLLM version number"):
        fetch_wheel(version, tmp_path)
    assert list(tmp_path.iterdir()) == []  # pip never ran
