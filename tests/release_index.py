"""A package index served from a temporary folder: PyPI's JSON API for `vllm`, with wheels the test builds."""

from __future__ import annotations

import functools
import hashlib
import json
import threading
import zipfile
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.engine.test_extractor import make_tree


def build_wheel(folder: Path, version: str) -> Path:
    """A small vllm wheel whose sources the catalog builder reads (the extractor tests' synthetic tree)."""
    root = make_tree(folder / f"src-{version}", version=version)
    wheel = folder / "files" / f"vllm-{version}-cp38-abi3-manylinux_2_28_x86_64.whl"
    wheel.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel, "w") as zf:
        for path in sorted((root / "vllm").rglob("*.py")):
            zf.write(path, path.relative_to(root).as_posix())
        zf.writestr(f"vllm-{version}.dist-info/METADATA", f"Name: vllm\nVersion: {version}\n")
    return wheel


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class LocalIndex:
    """``{url}/vllm/json`` lists the releases; each wheel is served from ``/files/``."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.releases: dict[str, list[dict]] = {}
        handler = functools.partial(_Quiet, directory=str(folder))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/pypi"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def publish(self, version: str, *, wheel: Path | None = None, sha256: str | None = None) -> None:
        files = []
        if wheel is not None:
            files.append(
                {
                    "filename": wheel.name,
                    "url": f"http://127.0.0.1:{self.port}/files/{wheel.name}",
                    "packagetype": "bdist_wheel",
                    "digests": {"sha256": sha256 or hashlib.sha256(wheel.read_bytes()).hexdigest()},
                    "yanked": False,
                }
            )
        self.releases[version] = files
        target = self.folder / "pypi" / "vllm" / "json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"info": {"name": "vllm"}, "releases": self.releases}))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
