"""A real Git server for tests: HTTPS on the loopback, git's own ``git http-backend`` behind it, and a record of
every request it was sent (method, path, headers, body), so that a test can prove what a sync sent where.

The certificate is made by the test (``cryptography``), valid for localhost, 127.0.0.1 and 127.0.0.2, and git
trusts it through ``GIT_SSL_CA_INFO`` (the product's setting for a private CA).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import ssl
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def make_certificate(directory: Path) -> tuple[Path, Path]:
    """(certificate, key) files of a self-signed certificate for the loopback names."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "vllm-profiles test git server")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName("localhost"),
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                    x509.IPAddress(ipaddress.ip_address("127.0.0.2")),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_file, key_file


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def text(self) -> str:
        """Everything the request carried, for "does this secret appear anywhere" checks."""
        head = "\n".join(f"{k}: {v}" for k, v in self.headers.items())
        return f"{self.method} {self.path}\n{head}\n\n{self.body.decode('latin-1')}"


@dataclass
class GitServer:
    """``url(repo)`` is the https URL of ``root/repo``; ``requests`` what it was sent."""

    host: str
    port: int
    root: Path
    requests: list[Request] = field(default_factory=list)
    redirect_to: str = ""  # a base URL: every request is answered 301 to the same path there
    require_authorization: str = ""  # an exact Authorization header value; other requests get 401

    def url(self, repo: str) -> str:
        return f"https://{self.host}:{self.port}/{repo}"

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


def _handler(server: GitServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args):  # quiet
            pass

        def _serve(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            server.requests.append(Request(self.command, self.path, dict(self.headers.items()), body))
            if server.redirect_to:
                self.send_response(301)
                self.send_header("Location", server.redirect_to.rstrip("/") + self.path)
                self.end_headers()
                return
            if server.require_authorization and self.headers.get("Authorization") != (
                server.require_authorization
            ):
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="git"')
                self.end_headers()
                return
            path, _, query = self.path.partition("?")
            env = {
                "PATH": os.environ.get("PATH", ""),
                "GIT_PROJECT_ROOT": str(server.root),
                "GIT_HTTP_EXPORT_ALL": "1",
                "REQUEST_METHOD": self.command,
                "PATH_INFO": path,
                "QUERY_STRING": query,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "CONTENT_LENGTH": str(len(body)),
                "REMOTE_ADDR": "127.0.0.1",
                "GIT_CONFIG_NOSYSTEM": "1",
                "HOME": str(server.root),
            }
            if self.headers.get("Git-Protocol"):
                env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
            proc = subprocess.run(
                ["git", "http-backend"], input=body, env=env, capture_output=True, timeout=60, check=False
            )
            head, _, payload = proc.stdout.partition(b"\r\n\r\n")
            if not _:
                head, _, payload = proc.stdout.partition(b"\n\n")
            status = 200
            headers = []
            for line in head.decode("latin-1").splitlines():
                name, _, value = line.partition(":")
                if name.lower() == "status":
                    status = int(value.strip().split()[0])
                elif name:
                    headers.append((name, value.strip()))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = _serve

    return Handler


def start(
    root: Path, cert: Path, key: Path, *, host: str = "127.0.0.1"
) -> tuple[GitServer, ThreadingHTTPServer]:
    """A running server for the repositories under ``root``; stop it with ``httpd.shutdown()``."""
    git_server = GitServer(host=host, port=0, root=root)
    httpd = ThreadingHTTPServer((host, 0), _handler(git_server))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    git_server.port = httpd.server_address[1]
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return git_server, httpd
