"""The repository id and revision of a profile are user input: beside config.json the server asks the Hub for
fixed file names only (the listing, the tokenizer's files, model.safetensors.index.json and the header of
model.safetensors, by a ranged GET), never a shard, a pickle, a README or a name a repository chooses
(docs/security.md, "Hugging Face Hub and local model directories")."""

from __future__ import annotations

import hashlib
import json
import struct
from http.server import BaseHTTPRequestHandler

import pytest

from hub.models import ModelConfig
from vllmcheck import modelhub

from .servers import Recorder

pytestmark = pytest.mark.django_db

CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 2048,
    "intermediate_size": 8192,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 16,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
}
TOTAL = 2471645184  # Llama-3.2-1B's published model.safetensors.index.json would say about as much
INDEX = {
    "metadata": {"total_size": TOTAL},
    # a hostile index: shard names that are paths and URLs; none of them is ever requested
    "weight_map": {
        "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
        "model.layers.0.mlp.up_proj.weight": "../../../../etc/passwd",
        "model.norm.weight": "https://elsewhere.example/steal.safetensors",
    },
}
ALLOWED = {
    "config.json",
    "model.safetensors.index.json",
    "model.safetensors",
    *modelhub.TOKENIZER_FILES,
    *modelhub.SENTENCE_TRANSFORMERS_FILES,
}
REPO_FILES = [
    "config.json",
    "generation_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "README.md",
    "pytorch_model.bin",
    "model-00001-of-00002.safetensors",
    "model-00002-of-00002.safetensors",
    "original/consolidated.00.pth",
    "secret.txt",
]


def header_file() -> bytes:
    body = json.dumps(
        {
            "__metadata__": {"format": "pt"},
            "model.embed_tokens.weight": {
                "dtype": "BF16",
                "shape": [128256, 2048],
                "data_offsets": [0, 525336576],
            },
        }
    ).encode()
    return struct.pack("<Q", len(body)) + body + b"\0" * 64


class Hub:
    """A Hub on 127.0.0.1 with two repositories: Org/Sharded (an index) and Org/Single (one
    model.safetensors), each listing files the server must never ask for; Range headers are recorded."""

    def __init__(self):
        self.ranges: list[tuple[str, str | None]] = []
        self.files = {
            "Org/Sharded": {
                "config.json": json.dumps(CONFIG).encode(),
                "model.safetensors.index.json": json.dumps(INDEX).encode(),
                "tokenizer_config.json": b"{}",
                "tokenizer.json": json.dumps({"model": {"vocab": {"a": 0}}, "added_tokens": []}).encode(),
            },
            "Org/Single": {"config.json": json.dumps(CONFIG).encode(), "model.safetensors": header_file()},
        }

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        path = handler.path.split("?")[0].lstrip("/")
        if path.startswith("api/models/"):
            repo = "/".join(path.split("/")[2:4])
            names = sorted({*REPO_FILES, *self.files.get(repo, {})})
            return self._send(
                handler,
                200,
                json.dumps([{"type": "file", "path": n, "size": 1, "oid": "0" * 40} for n in names]).encode(),
            )
        repo, sep, rest = path.partition("/resolve/")
        _, _, name = rest.partition("/")
        self.ranges.append((name, handler.headers.get("Range")))
        body = self.files.get(repo, {}).get(name)
        if not sep or body is None:
            return self._send(handler, 404, b"", {"X-Error-Code": "EntryNotFound"})
        status, wanted = 200, handler.headers.get("Range")
        if wanted:
            start, end = (int(x) for x in wanted.split("=")[1].split("-"))
            body, status = body[start : end + 1], 206
        self._send(handler, status, body)

    @staticmethod
    def _send(handler, status, body, extra=None):
        handler.send_response(status)
        headers = {
            "Content-Type": "application/json",
            "Content-Length": str(len(body)),
            "ETag": f'"{hashlib.sha256(body).hexdigest()}"',
            "X-Repo-Commit": "1" * 40,
            **(extra or {}),
        }
        for key, value in headers.items():
            handler.send_header(key, value)
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(body)


@pytest.fixture
def hub(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_TOKEN", "hf_server_secret")
    monkeypatch.setenv("VLLM_PROFILES_HF_TIMEOUT", "10")
    modelhub.forget_unreachable()
    stand_in = Hub()
    with Recorder(stand_in.answer) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        stand_in.server = server
        yield stand_in


def requested_names(hub) -> set[str]:
    names = set()
    for seen in hub.server.seen:
        path = seen.path.split("?")[0]
        if "/resolve/" in path:
            names.add(path.split("/resolve/", 1)[1].split("/", 1)[1])
    return names


def test_only_fixed_file_names_are_requested_for_the_checkpoints_weights(api, hub):
    for repo in ("Org/Sharded", "Org/Single"):
        body = {"kind": "serving", "vllm_version": "0.34.0", "command": f"vllm serve {repo}"}
        assert api.post("/api/v1/validate/", body, format="json").status_code == 200
    asked = requested_names(hub)
    assert asked <= ALLOWED, asked - ALLOWED
    assert {"config.json", "model.safetensors.index.json", "model.safetensors"} <= asked
    # the single file: its header alone, by a ranged GET (never the weights)
    assert [r for name, r in hub.ranges if name == "model.safetensors"] == ["bytes=0-100000"]
    for_the_repos = [s for s in hub.server.seen if "/Org/" in s.path]
    assert for_the_repos and all(s.authorization == "Bearer hf_server_secret" for s in for_the_repos)
    # what was read is what a dry run keeps: the index's total_size, the header's bytes
    from hub.services import model_config_peek

    sharded = model_config_peek(modelhub.ModelRef("model", "Org/Sharded", "Org/Sharded", ""))
    single = model_config_peek(modelhub.ModelRef("model", "Org/Single", "Org/Single", ""))
    assert (sharded.checkpoint_size, sharded.weights_basis) == (TOTAL, "checkpoint index")
    assert (single.checkpoint_size, single.weights_basis) == (525336576, "safetensors header")
    assert single.checkpoint_dtypes == {"BF16": 525336576}
    assert not ModelConfig.objects.exists()  # a dry run stores nothing
