"""Stand-ins for Hugging Face: a cache directory in the real layout, and a tiny Hub serving resolve URLs."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# Qwen/Qwen2.5-7B-Instruct's config.json as published (28 attention heads, 4 KV heads).
QWEN25_7B = {
    "architectures": ["Qwen2ForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "eos_token_id": 151645,
    "hidden_act": "silu",
    "hidden_size": 3584,
    "initializer_range": 0.02,
    "intermediate_size": 18944,
    "max_position_embeddings": 32768,
    "max_window_layers": 28,
    "model_type": "qwen2",
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0,
    "sliding_window": 131072,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.43.1",
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": 152064,
}

QWEN25_05B = {
    **QWEN25_7B,
    "hidden_size": 896,
    "intermediate_size": 4864,
    "num_attention_heads": 14,
    "num_hidden_layers": 24,
    "num_key_value_heads": 2,
    "max_window_layers": 21,
    "tie_word_embeddings": True,
    "vocab_size": 151936,
}


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def cache_add(
    cache_dir: Path, repo: str, config: dict, *, revision: str = "main", files: dict | None = None
) -> str:
    """Put ``config`` (and ``files``: name -> JSON-able object, or bytes) into a Hugging Face hub cache as
    `hf_hub_download` / `snapshot_download` leave them; returns the commit sha."""
    contents = {"config.json": json.dumps(config, indent=2).encode()}
    for name, value in (files or {}).items():
        contents[name] = value if isinstance(value, bytes) else json.dumps(value).encode()
    commit = _sha(f"{repo}@{revision}:" + "".join(f"{n}={contents[n].decode()}" for n in sorted(contents)))
    root = cache_dir / f"models--{repo.replace('/', '--')}"
    (root / "blobs").mkdir(parents=True, exist_ok=True)
    snapshot = root / "snapshots" / commit
    snapshot.mkdir(parents=True, exist_ok=True)
    for name, body in contents.items():
        etag = hashlib.sha256(body).hexdigest()
        (root / "blobs" / etag).write_bytes(body)
        link = snapshot / name
        if not link.exists():
            link.symlink_to(Path("..") / ".." / "blobs" / etag)
    (root / "refs").mkdir(exist_ok=True)
    (root / "refs" / revision).write_text(commit)
    return commit


def tokenizer_json(vocab: list[str], added: list[str]) -> dict:
    """A fast tokenizer's tokenizer.json as `tokenizers` writes it (BPE), with ``vocab`` and ``added``."""
    return {
        "version": "1.0",
        "added_tokens": [
            {"id": len(vocab) + i, "content": token, "special": True} for i, token in enumerate(added)
        ],
        "model": {"type": "BPE", "vocab": {token: i for i, token in enumerate(vocab)}, "merges": []},
    }


class FakeHub:
    """`HF_ENDPOINT` stand-in: serves /{repo}/resolve/{revision}/config.json for the repos it holds.

    A repo whose name is in ``slow`` answers after ``delay`` seconds; every request is recorded.
    """

    def __init__(self, port: int = 0):
        self.repos: dict[tuple[str, str], dict] = {}
        self.slow: set[str] = set()
        self.delay = 5.0
        self.requests: list[str] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self, with_body: bool):
                hub.requests.append(f"{self.command} {self.path}")
                path = self.path.split("?")[0].lstrip("/")
                if path.startswith("api/"):
                    self.send_response(404)
                    self.end_headers()
                    return
                repo, sep, rest = path.partition("/resolve/")
                revision, _, filename = rest.partition("/")
                if repo in hub.slow:
                    time.sleep(hub.delay)
                config = hub.repos.get((repo, revision))
                if not sep or config is None:
                    self.send_response(404)
                    self.send_header(
                        "X-Error-Code",
                        "RepoNotFound" if not any(r == repo for r, _ in hub.repos) else "RevisionNotFound",
                    )
                    self.send_header("X-Error-Message", "Repository not found")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if filename != "config.json":
                    self.send_response(404)
                    self.send_header("X-Error-Code", "EntryNotFound")
                    self.send_header("X-Repo-Commit", _sha(repo + revision))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = json.dumps(config).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("ETag", f'"{hashlib.sha256(body).hexdigest()}"')
                self.send_header("X-Repo-Commit", _sha(f"{repo}@{revision}:{body.decode()}"))
                self.end_headers()
                if with_body:
                    self.wfile.write(body)

            def do_HEAD(self):
                self._answer(False)

            def do_GET(self):
                self._answer(True)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def add(self, repo: str, config: dict, revision: str = "main") -> None:
        self.repos[(repo, revision)] = config

    def __enter__(self) -> FakeHub:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
