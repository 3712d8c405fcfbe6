"""The weights from the real checkpoint (issue 27): a Hugging Face cache built by the test (HF_HOME,
HF_HUB_OFFLINE=1) holding a sharded checkpoint's model.safetensors.index.json or a single-file checkpoint's
model.safetensors; the memory estimate of POST /api/v1/validate/ then uses the checkpoint's bytes and says so.
An uploaded index does the same for a private model; a bad upload is refused naming what is wrong."""

from __future__ import annotations

import json
import struct

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from hub.models import ModelConfig
from vllmcheck import modelhub_weights

from .hfstub import QWEN25_05B, cache_add
from .test_memory import LLAMA, LLAMA_8B
from .test_profiles import create, findings

pytestmark = pytest.mark.django_db

# meta-llama/Llama-3.1-8B-Instruct's model.safetensors.index.json declares these bytes (4 bf16 shards).
LLAMA_TOTAL = 16060522496
SHARDS = {f"model-0000{i}-of-00004.safetensors" for i in range(1, 5)}
H100 = "8xH100-80GB NVLink"
INDEX_SAID = "from the checkpoint's model.safetensors.index.json (total_size)"
HEADER_SAID = "from the checkpoint's model.safetensors header"
SHAPES_SAID = "counted from config.json's shapes"


def index(total=LLAMA_TOTAL):
    return {
        "metadata": {"total_size": total},
        "weight_map": {
            "model.embed_tokens.weight": "model-00001-of-00004.safetensors",
            "model.layers.0.self_attn.q_proj.weight": "model-00001-of-00004.safetensors",
            "lm_head.weight": "model-00004-of-00004.safetensors",
        },
    }


def safetensors_file(tensors: dict[str, tuple[str, list[int]]]) -> bytes:
    """A safetensors file's header (8-byte little-endian length, then JSON), as the `safetensors` library
    writes it; the tensors' data is not written (only the header is ever read)."""
    sizes = {"F32": 4, "BF16": 2, "F16": 2, "I8": 1}
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, (dtype, shape) in tensors.items():
        n = sizes[dtype]
        for dim in shape:
            n *= dim
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    body = json.dumps(header).encode()
    return struct.pack("<Q", len(body)) + body


def validate(api, command, node_type=H100):
    body = {"kind": "serving", "vllm_version": "0.34.0", "command": command, "node_type": node_type}
    response = api.post("/api/v1/validate/", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_sharded_checkpoints_index_gives_the_weights_per_gpu(api, hf_cache):
    cache_add(hf_cache, LLAMA, LLAMA_8B, files={"model.safetensors.index.json": index()})
    body = validate(api, f"vllm serve {LLAMA} -tp 2 --max-model-len 32768")
    memory = body["memory"]
    # untied embeddings, no PP: every tensor is split over the two GPUs
    assert memory["weights_basis"] == "checkpoint index" and memory["weights_source"] == "checkpoint"
    assert memory["weights"] == LLAMA_TOTAL // 2
    (info,) = findings(body, "memory-kv-cache")
    assert f"weights 7.48 GiB per GPU {INDEX_SAID}" in info["message"]
    assert INDEX_SAID in info["docs"]


def test_without_the_index_the_weights_are_counted_from_the_shapes_and_said_so(api, hf_cache):
    cache_add(hf_cache, LLAMA, LLAMA_8B)
    body = validate(api, f"vllm serve {LLAMA} -tp 2 --max-model-len 32768")
    assert body["memory"]["weights_basis"] == "config shapes"
    assert body["memory"]["weights"] != LLAMA_TOTAL // 2  # the shapes leave out the norms
    (info,) = findings(body, "memory-kv-cache")
    assert SHAPES_SAID in info["message"]


def test_the_index_says_the_weights_do_not_fit_where_vllm_would_run_out_of_memory(api, hf_cache):
    """A checkpoint far bigger than its config's shapes (extra tensors): the index decides, not the shapes."""
    cache_add(hf_cache, LLAMA, LLAMA_8B, files={"model.safetensors.index.json": index(40 * 2**30)})
    body = validate(api, f"vllm serve {LLAMA} --max-model-len 8192", node_type="1xL4-24GB")
    (refusal,) = findings(body, "memory-refused")
    assert refusal["message"].startswith("the model's weights need 40.0 GiB per GPU")
    assert INDEX_SAID in refusal["docs"]


def test_a_single_file_checkpoints_header_gives_the_weights_fp32_served_in_16_bits(api, hf_cache):
    """Qwen2.5-0.5B-shaped, stored in float32 (as some small checkpoints are): vLLM serves it in bf16, so it
    holds half the file's bytes; the header's dtypes say which tensors are float32."""
    vocab, h = QWEN25_05B["vocab_size"], QWEN25_05B["hidden_size"]
    tensors = {
        "model.embed_tokens.weight": ("F32", [vocab, h]),  # tied: stored once, no lm_head.weight
        "model.layers.0.mlp.down_proj.weight": ("F32", [h, 4864]),
        "model.layers.0.mlp.up_proj.weight": ("BF16", [4864, h]),
    }
    cache_add(
        hf_cache, "Qwen/Qwen2.5-0.5B", QWEN25_05B, files={"model.safetensors": safetensors_file(tensors)}
    )
    body = validate(api, "vllm serve Qwen/Qwen2.5-0.5B --max-model-len 4096")
    memory = body["memory"]
    assert memory["weights_basis"] == "safetensors header"
    assert memory["weights"] == (vocab * h * 4 + h * 4864 * 4) // 2 + 4864 * h * 2
    (info,) = findings(body, "memory-kv-cache")
    assert HEADER_SAID in info["message"]


def test_a_header_longer_than_the_bound_is_not_read(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", 10**12) + b"{}")
    assert modelhub_weights.local_weights(folder) is None  # not known: never a read of a terabyte
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", 100) + b'{"a": ')
    assert modelhub_weights.local_weights(folder) is None  # ends inside its header


def test_a_saved_profile_keeps_the_checkpoint_size_on_its_model_config(api, team, hf_cache):
    cache_add(hf_cache, LLAMA, LLAMA_8B, files={"model.safetensors.index.json": index()})
    created = create(api, team, f"vllm serve {LLAMA} --max-model-len 32768", version="0.34.0", node_type=H100)
    assert created.status_code == 201, created.content
    row = ModelConfig.objects.get(repo=LLAMA)
    assert (row.checkpoint_size, row.weights_basis) == (LLAMA_TOTAL, "checkpoint index")
    detail = api.get(f"/api/v1/model-configs/{row.pk}/").json()
    assert detail["checkpoint_size"] == LLAMA_TOTAL and detail["weights_basis"] == "checkpoint index"


def test_uploading_the_index_beside_config_json_on_the_models_page(client, user, team):
    client.force_login(user)
    page = client.get(reverse("hub:model-configs")).content.decode()
    assert 'name="index_file"' in page
    form = {
        "repo": "acme/private-llm",
        "config_file": SimpleUploadedFile("config.json", json.dumps(LLAMA_8B).encode()),
        "index_file": SimpleUploadedFile("model.safetensors.index.json", json.dumps(index()).encode()),
    }
    assert client.post(reverse("hub:model-configs"), form).status_code == 302
    row = ModelConfig.objects.get(repo="acme/private-llm")
    assert (row.checkpoint_size, row.weights_basis, row.source) == (LLAMA_TOTAL, "checkpoint index", "upload")
    detail = client.get(reverse("hub:model-config", args=[row.pk])).content.decode()
    assert f"({LLAMA_TOTAL} bytes) from the checkpoint's model.safetensors.index.json" in detail


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (json.dumps(LLAMA_8B).encode(), "has no weight_map object: it is not a model.safetensors.index.json"),
        (b"{not json", "the uploaded model.safetensors.index.json is not JSON"),
        (json.dumps({"weight_map": {}, "metadata": {}}).encode(), "has no metadata.total_size"),
        (json.dumps({"weight_map": {}, "metadata": {"total_size": -5}}).encode(), "got -5"),
    ],
)
def test_a_bad_index_upload_is_refused_naming_the_problem(client, user, team, content, problem):
    client.force_login(user)
    form = {
        "repo": "acme/private-llm",
        "config_text": json.dumps(LLAMA_8B),
        "index_file": SimpleUploadedFile("model.safetensors.index.json", content),
    }
    response = client.post(reverse("hub:model-configs"), form)
    assert response.status_code == 400
    assert problem in response.content.decode()
    assert not ModelConfig.objects.filter(repo="acme/private-llm").exists()  # nothing half-stored


def test_the_api_upload_takes_the_index_and_names_its_field_when_bad(api, team, hf_cache):
    url = "/api/v1/model-configs/"
    bad = api.post(url, {"repo": "acme/x", "config": LLAMA_8B, "safetensors_index": {"a": 1}}, format="json")
    assert bad.status_code == 400
    assert "has no weight_map object" in bad.json()["safetensors_index"][0]
    alone = api.post(url, {"repo": "acme/x", "safetensors_index": index()}, format="json")
    assert alone.status_code == 400 and "safetensors_index" in alone.json()
    good = api.post(url, {"repo": "acme/x", "config": LLAMA_8B, "safetensors_index": index()}, format="json")
    assert good.status_code == 201, good.content
    assert good.json()["checkpoint_size"] == LLAMA_TOTAL
    body = validate(api, "vllm serve acme/x -tp 2 --max-model-len 32768")
    assert body["memory"]["weights"] == LLAMA_TOTAL // 2
