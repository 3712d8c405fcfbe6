"""Real HTTP servers on 127.0.0.1 for the security tests: each records every request it gets, with the
``Authorization`` header, so a test can say where a secret went and where it did not."""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    authorization: str | None


class Recorder:
    """A server that answers every request with ``answer(handler)`` (default: 200 with a config.json whose
    values no test expects) and records it."""

    def __init__(self, answer=None):
        self.seen: list[Seen] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _handle(self):
                recorder.seen.append(Seen(self.command, self.path, self.headers.get("Authorization")))
                (answer or _canary_config)(self)

            do_GET = do_HEAD = do_POST = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Recorder:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def _canary_config(handler: BaseHTTPRequestHandler) -> None:
    body = json.dumps({"architectures": ["CanaryForCausalLM"], "num_attention_heads": 7}).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.send_header("ETag", f'"{hashlib.sha256(body).hexdigest()}"')
    handler.send_header("X-Repo-Commit", "0" * 40)
    handler.end_headers()
    if handler.command != "HEAD":
        handler.wfile.write(body)


def hub_answer(repos: dict[str, dict]):
    """An ``answer`` for :class:`Recorder` acting as a Hugging Face endpoint: ``/{repo}/resolve/{rev}/
    config.json`` of the repositories in ``repos`` (any revision), 404 for anything else."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        path = handler.path.split("?")[0].lstrip("/")
        repo, sep, rest = path.partition("/resolve/")
        _, _, filename = rest.partition("/")
        if not sep or repo not in repos or filename != "config.json":
            handler.send_response(404)
            handler.send_header("X-Error-Code", "RepoNotFound" if repo not in repos else "EntryNotFound")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        body = json.dumps(repos[repo]).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.send_header("ETag", f'"{hashlib.sha256(body).hexdigest()}"')
        handler.send_header("X-Repo-Commit", hashlib.sha1(body).hexdigest())
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(body)

    return answer


def redirect_answer(target: str):
    """An ``answer`` that sends every request to ``target`` + its path (a compromised mirror), with the
    headers the Hub gives a file stored elsewhere (an LFS file on its CDN): the client then downloads from
    ``target``."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(302)
        handler.send_header("Location", target + handler.path)
        handler.send_header("X-Linked-Etag", '"' + "1" * 64 + '"')
        handler.send_header("X-Linked-Size", "100")
        handler.send_header("X-Repo-Commit", "0" * 40)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return answer
