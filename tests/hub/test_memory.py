"""Will it fit? The memory verdict through the API's validate answer, a saved profile and its page."""

from __future__ import annotations

import re

from django.urls import reverse

from profiles.models import Profile

from .hfstub import cache_add
from .test_profiles import create, findings

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
# Its published config.json (the fields that matter here): bf16, 32 layers, 8 KV heads of 128: 131,072 bytes
# of KV cache per token; max_position_embeddings 131072 is vLLM's default max_model_len.
LLAMA_8B = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 131072,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "rope_scaling": {"factor": 8.0, "rope_type": "llama3", "original_max_position_embeddings": 8192},
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 128256,
}


def test_validate_refuses_llama_8b_on_one_l4_and_starts_it_on_an_h100(api, hf_cache):
    cache_add(hf_cache, LLAMA, LLAMA_8B)
    body = {"kind": "serving", "vllm_version": "0.34.0", "command": f"vllm serve {LLAMA}"}
    l4 = api.post("/api/v1/validate/", {**body, "node_type": "1xL4-24GB"}, format="json").json()
    assert l4["valid"] is False
    (refusal,) = findings(l4, "memory-refused")
    assert refusal["severity"] == "error"
    assert refusal["message"].startswith(
        "To serve at least one request with the model's max seq len (131072), (16.0 GiB KV cache is needed"
    )
    estimated = int(re.search(r"the estimated maximum model length is (\d+)\.", refusal["message"])[1])
    assert l4["memory"]["verdict"] == "refuses" and l4["memory"]["estimated_max_len"] == estimated
    assert refusal["fix"] == {"set": {"max_model_len": estimated // 16 * 16}}

    h100 = api.post("/api/v1/validate/", {**body, "node_type": "8xH100-80GB NVLink"}, format="json").json()
    assert not findings(h100, "memory-refused")
    (info,) = findings(h100, "memory-kv-cache")
    tokens = h100["memory"]["kv_tokens"]
    assert info["severity"] == "info" and f"predicted GPU KV cache size: {tokens:,} tokens" in info["message"]
    assert h100["memory"]["gib"]["total"] == 79.19


def test_a_saved_profile_shows_the_memory_section(client, user, team, hf_cache):
    cache_add(hf_cache, LLAMA, LLAMA_8B)
    client.force_login(user)
    form = {
        "team": team.slug,
        "name": "fits",
        "kind": "serving",
        "vllm_version": "0.34.0",
        "source": f"vllm serve {LLAMA} --max-model-len 32768",
        "node_type": "8xH100-80GB NVLink",
        "nodes": "1",
    }
    page = client.post(reverse("profiles:create"), form)
    assert page.status_code == 302, page.content.decode()[:2000]
    profile = Profile.objects.get(name="fits")
    detail = client.get(reverse("profiles:detail", args=[profile.pk])).content.decode()
    section = detail[detail.index('id="memory"') :]
    assert "Predicted for one H100-80GB (79.19 GiB as vLLM sees it)" in section
    assert '<rect class="mem-weights"' in section and '<rect class="mem-kv"' in section
    assert "style=" not in section  # strict CSP: classes and SVG attributes only


def test_an_api_profile_on_a_small_node_is_refused_with_the_memory_error(api, team, hf_cache):
    cache_add(hf_cache, LLAMA, LLAMA_8B)
    response = create(api, team, f"vllm serve {LLAMA}", version="0.34.0", node_type="1xL4-24GB")
    assert response.status_code == 400
    assert findings(response.json(), "memory-refused")
    fixed = create(
        api, team, f"vllm serve {LLAMA} --max-model-len 16384", version="0.34.0", node_type="1xL4-24GB"
    )
    assert fixed.status_code == 201, fixed.content
