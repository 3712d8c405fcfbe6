"""A real HTTPS receiver on 127.0.0.1 for the notification tests: a self-signed certificate for 127.0.0.1
(trusted by the sender through NOTIFY_CA_BUNDLE), and a record of every request it was sent."""

from __future__ import annotations

import datetime
import hashlib
import hmac
import ipaddress
import json
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def make_certificate(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
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
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "receiver.pem", directory / "receiver.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


class Receiver:
    """``hold`` (a path): the first request to it is read, recorded, and never answered until ``release``
    (the sender is killed meanwhile). ``redirect`` (a path): answered 302 to ``/landed``."""

    def __init__(self, directory: Path):
        self.cert, key = make_certificate(directory)
        self.requests: list[dict] = []
        self.hold: str | None = None
        self.held = threading.Event()
        self.released = threading.Event()
        self.redirect: str | None = None
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                if self.path == receiver.hold and not receiver.held.is_set():
                    receiver.held.set()
                    receiver.released.wait(120)
                    return  # never answered: the sender was killed waiting
                if self.path == receiver.redirect:
                    self.send_response(302)
                    self.send_header("Location", "/landed")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.port}{path}"

    def to(self, path: str) -> list[dict]:
        return [r for r in self.requests if r["path"] == path]

    def close(self):
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


def verify(secret: str, request: dict) -> dict:
    """What a receiver of the generic webhook does: check the signature, then read the CloudEvent."""
    headers = request["headers"]
    timestamp = headers["X-Vllm-Profiles-Timestamp"]
    expected = (
        "sha256="
        + hmac.new(secret.encode(), timestamp.encode() + b"." + request["body"], hashlib.sha256).hexdigest()
    )
    assert hmac.compare_digest(expected, headers["X-Vllm-Profiles-Signature"]), "signature does not verify"
    return json.loads(request["body"])
