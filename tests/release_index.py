"""A package index served from a temporary folder: PyPI's JSON API for `vllm`, with wheels the test builds."""

from __future__ import annotations

import functools
import hashlib
import json
import ssl
import subprocess
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


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key (openssl); trust it with SSL_CERT_FILE=<certificate>."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


class _Quiet(SimpleHTTPRequestHandler):
    """Serves the folder; a path in the index's ``redirects`` answers 302 to its target; each request's path is
    recorded in the index's ``requests``."""

    index: LocalIndex

    def log_message(self, *args):
        pass

    def send_head(self):
        self.index.requests.append(self.path)
        target = self.index.redirects.get(self.path)
        if target is not None:
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        return super().send_head()


class LocalIndex:
    """``{url}/vllm/json`` lists the releases; each wheel is served from ``/files/``."""

    def __init__(self, folder: Path, *, tls: tuple[Path, Path] | None = None):
        """``tls``: (certificate, key) to serve https (see :func:`self_signed`)."""
        self.folder = folder
        self.releases: dict[str, list[dict]] = {}
        self.redirects: dict[str, str] = {}  # path -> Location
        self.requests: list[str] = []
        handler = functools.partial(type("Handler", (_Quiet,), {"index": self}), directory=str(folder))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.base = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.url = f"{self.base}/pypi"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def publish(
        self,
        version: str,
        *,
        wheel: Path | None = None,
        sha256: str | None = None,
        url: str | None = None,
        filename: str | None = None,
        size: int | None = None,
    ) -> None:
        """List ``wheel`` for ``version``; ``sha256``, ``url``, ``filename``, ``size``: what the index says of
        it instead of the truth (``sha256=""``: no digest at all)."""
        files = []
        if wheel is not None:
            digest = hashlib.sha256(wheel.read_bytes()).hexdigest() if sha256 is None else sha256
            files.append(
                {
                    "filename": filename or wheel.name,
                    "url": url or f"{self.base}/files/{wheel.name}",
                    "packagetype": "bdist_wheel",
                    "digests": {"sha256": digest} if digest else {},
                    "size": wheel.stat().st_size if size is None else size,
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
