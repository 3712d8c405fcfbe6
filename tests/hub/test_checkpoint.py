"""What the checkpoint holds beside config.json, end to end: the test builds a Hugging Face cache (offline) whose
snapshot has or lacks quantize_config.json, and whose tokenizer has or lacks <think>/</think>; the user sees
vLLM's own refusal through POST /api/v1/validate/, a save, and `manage.py lint`, and "could not verify" (never
a refusal) when the profile does not let the product see those files."""

import pytest

from hub import services as hub_services
from hub.models import ModelConfig
from vllmcheck import modelhub

from .hfstub import QWEN25_7B, cache_add, tokenizer_json
from .test_profiles import committed_configs_removed, create, findings, lint  # noqa: F401

pytestmark = pytest.mark.django_db

QWEN = "Qwen/Qwen2.5-7B-Instruct"
QWEN3 = "Qwen/Qwen3-8B"
QUANT_RULE = "quantization-config-file-missing"
THINK_RULE = "reasoning-parser-think-tokens-missing"
AWQ_MESSAGE = "Cannot find the config file for awq"
VOCAB = ["a", "b", "c", "Ġthe"]
PLAIN_TOKENIZER = {
    "tokenizer.json": tokenizer_json(VOCAB, ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]),
    "tokenizer_config.json": {"tokenizer_class": "Qwen2Tokenizer"},
}
THINK_TOKENIZER = {
    "tokenizer.json": tokenizer_json(VOCAB, ["<|endoftext|>", "<think>", "</think>"]),
    "tokenizer_config.json": {"tokenizer_class": "Qwen2Tokenizer"},
}
QWEN3_CONFIG = {**QWEN25_7B, "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3"}


def think_message(parser_class):
    return f"{parser_class} reasoning parser could not locate think start/end tokens in the tokenizer!"


def validate(api, command, version="0.33.0", **extra):
    body = {"kind": "serving", "vllm_version": version, "command": command, **extra}
    response = api.post("/api/v1/validate/", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def kept(repo):
    """What a dry run learnt of ``repo``: kept in Django's cache (a dry run stores no model config)."""
    assert not ModelConfig.objects.filter(repo=repo).exists(), "a dry run stored a model config"
    return hub_services.model_config_peek(modelhub.ModelRef("model", repo, repo, ""))


def messages(body, rule):
    return [(f["severity"], f["message"]) for f in findings(body, rule)]


def test_awq_on_an_unquantized_checkpoint_is_refused_with_vllms_message(api, hf_cache):
    cache_add(hf_cache, QWEN, QWEN25_7B, files={"generation_config.json": {}, **PLAIN_TOKENIZER})
    body = validate(api, f"vllm serve {QWEN} --quantization awq")
    assert body["valid"] is False
    assert messages(body, QUANT_RULE) == [("error", AWQ_MESSAGE)]
    row = kept(QWEN)
    assert row.files == ["config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json"]
    # gptq looks for quantize_config.json only: the same checkpoint is refused in gptq's words
    gptq = validate(api, f"vllm serve {QWEN} --quantization gptq")
    assert messages(gptq, QUANT_RULE) == [("error", "Cannot find the config file for gptq")]


@pytest.mark.parametrize("name", ["quantize_config.json", "quant_config.json"])
def test_awq_with_its_config_file_in_the_checkpoint_is_accepted(api, hf_cache, name):
    cache_add(hf_cache, QWEN, QWEN25_7B, files={name: {"bits": 4, "group_size": 128}})
    body = validate(api, f"vllm serve {QWEN} --quantization awq")
    assert findings(body, QUANT_RULE) == []


def test_awq_with_quantization_config_in_config_json_is_not_this_check(api, hf_cache):
    quantized = {**QWEN25_7B, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128}}
    cache_add(hf_cache, QWEN, quantized)
    assert findings(validate(api, f"vllm serve {QWEN} --quantization awq"), QUANT_RULE) == []


def test_a_pasted_config_json_cannot_see_the_files_and_never_refuses(api, hf_cache):
    cache_add(hf_cache, QWEN, QWEN25_7B, files=PLAIN_TOKENIZER)
    body = validate(api, f"vllm serve {QWEN} --quantization awq", model_config=QWEN25_7B)
    ((severity, message),) = messages(body, QUANT_RULE)
    assert severity == "info"
    assert message == f"could not verify: {AWQ_MESSAGE} (without the list of the checkpoint's files)"


def test_a_saved_profile_gets_the_refusal_and_the_corrected_one_saves(api, team, hf_cache):
    cache_add(hf_cache, QWEN, QWEN25_7B, files=PLAIN_TOKENIZER)
    refused = create(api, team, f"vllm serve {QWEN} --quantization awq")
    assert refused.status_code == 400, refused.content
    assert messages(refused.json(), QUANT_RULE) == [("error", AWQ_MESSAGE)]
    saved = create(api, team, f"vllm serve {QWEN}", name="plain")
    assert saved.status_code == 201, saved.content


def test_a_config_stored_before_the_files_were_read_is_read_again(api, hf_cache):
    from datetime import timedelta

    from django.utils import timezone

    cache_add(hf_cache, QWEN, QWEN25_7B, files=PLAIN_TOKENIZER)
    an_hour_ago = timezone.now() - timedelta(hours=1)
    ModelConfig.objects.create(
        repo=QWEN, revision="", config=QWEN25_7B, source="cache", fetched_at=an_hour_ago
    )
    body = validate(api, f"vllm serve {QWEN} --quantization awq")
    assert messages(body, QUANT_RULE) == [("error", AWQ_MESSAGE)]  # the files were read again for it ...
    assert ModelConfig.objects.get(repo=QWEN).files is None  # ... and the stored row left as it was


def test_deepseek_r1_parser_on_a_tokenizer_without_think_tokens(api, hf_cache):
    cache_add(hf_cache, QWEN, QWEN25_7B, files=PLAIN_TOKENIZER)
    body = validate(api, f"vllm serve {QWEN} --reasoning-parser deepseek_r1")
    assert body["valid"] is False
    assert messages(body, THINK_RULE) == [("error", think_message("DeepSeekR1ReasoningParser"))]
    assert kept(QWEN).tokens["<think>"] is False


def test_think_tokens_in_the_tokenizer_are_accepted(api, hf_cache):
    cache_add(hf_cache, QWEN3, QWEN3_CONFIG, files=THINK_TOKENIZER)
    assert findings(validate(api, f"vllm serve {QWEN3} --reasoning-parser deepseek_r1"), THINK_RULE) == []


@pytest.mark.parametrize(
    ("version", "expected"),
    [("0.22.1", [("error", think_message("Qwen3ReasoningParser"))]), ("0.24.0", [])],
)
def test_qwen3_parser_checks_the_tokenizer_before_0_24_only(api, hf_cache, version, expected):
    """0.20.0-0.23.0 build Qwen3ReasoningParser (a <think>...</think> parser); from 0.24.0 "qwen3" names
    another parser that does not look the tokens up."""
    cache_add(hf_cache, QWEN3, QWEN3_CONFIG, files=PLAIN_TOKENIZER)
    body = validate(api, f"vllm serve {QWEN3} --reasoning-parser qwen3", version=version)
    assert messages(body, THINK_RULE) == expected


def test_another_tokenizer_is_not_the_one_read_so_it_is_not_verified(api, hf_cache):
    cache_add(hf_cache, QWEN, QWEN25_7B, files=PLAIN_TOKENIZER)
    body = validate(api, f"vllm serve {QWEN} --reasoning-parser deepseek_r1 --tokenizer Org/Other-Tokenizer")
    ((severity, message),) = messages(body, THINK_RULE)
    assert severity == "info" and message.startswith("could not verify: ")


def test_lint_reads_the_same_cache(hf_cache, tmp_path, committed_configs_removed):  # noqa: F811
    cache_add(hf_cache, QWEN, QWEN25_7B, files=PLAIN_TOKENIZER)
    cache_add(hf_cache, QWEN3, QWEN3_CONFIG, files=THINK_TOKENIZER)
    refused = tmp_path / "refused.sh"
    refused.write_text(f"vllm serve {QWEN} --quantization awq --reasoning-parser deepseek_r1\n")
    result = lint("--vllm-version", "0.33.0", "--kind", "serving", str(refused))
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert f"error   [vllm] {QUANT_RULE}: {AWQ_MESSAGE}" in lines
    assert f"error   [vllm] {THINK_RULE}: {think_message('DeepSeekR1ReasoningParser')}" in lines
    accepted = tmp_path / "accepted.sh"
    accepted.write_text(f"vllm serve {QWEN3} --reasoning-parser deepseek_r1\n")
    result = lint("--vllm-version", "0.33.0", "--kind", "serving", str(accepted))
    assert result.returncode == 0, result.stdout + result.stderr
    assert THINK_RULE not in result.stdout and QUANT_RULE not in result.stdout


def test_a_local_model_directory_is_read_as_vllm_globs_it(tmp_path):
    import json

    (tmp_path / "config.json").write_text(json.dumps(QWEN25_7B))
    (tmp_path / "quantize_config.json").write_text("{}")
    (tmp_path / ".hidden.json").write_text("{}")
    (tmp_path / "vocab.json").write_text(json.dumps({"<think>": 0, "</think>": 1, "a": 2}))
    result = modelhub.resolve(str(tmp_path))
    assert result.files == ("config.json", "quantize_config.json", "vocab.json")
    assert result.tokens is not None and result.tokens["<think>"] and result.tokens["</think>"]
    assert result.tokens["<seed:think>"] is False


def test_added_tokens_of_tokenizer_config_count_and_a_sentencepiece_only_tokenizer_is_unknown(tmp_path):
    files = {"tokenizer.json": tmp_path / "tokenizer.json", "tokenizer_config.json": tmp_path / "tc.json"}
    files["tokenizer.json"].write_text('{"model": {"type": "BPE", "vocab": {"a": 0}}, "added_tokens": []}')
    files["tokenizer_config.json"].write_text(
        '{"added_tokens_decoder": {"5": {"content": "<think>"}, "6": {"content": "</think>"}}}'
    )
    tokens = modelhub.tokenizer_tokens(files)
    assert tokens is not None and tokens["<think>"] and tokens["</think>"]
    assert modelhub.tokenizer_tokens({"tokenizer_config.json": files["tokenizer_config.json"]}) is None


# --- sentence-transformers checkpoints: max_seq_length replaces the model's derived length (as in vLLM) ---
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_CONFIG = {
    "architectures": ["BertModel"],
    "hidden_size": 384,
    "max_position_embeddings": 512,
    "model_type": "bert",
    "num_attention_heads": 12,
    "num_hidden_layers": 6,
    "position_embedding_type": "absolute",
    "vocab_size": 30522,
}
ST_FILES = {
    "modules.json": [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}],
    "sentence_bert_config.json": {"max_seq_length": 256, "do_lower_case": False},
}
LEN_RULE = "max-model-len-above-derived"


def test_sentence_transformers_max_seq_length_is_the_models_length(api, hf_cache):
    cache_add(hf_cache, MINILM, MINILM_CONFIG, files=ST_FILES)
    body = validate(api, f"vllm serve {MINILM} --max-model-len 512", version="0.27.1")
    assert body["valid"] is False
    ((severity, message),) = messages(body, LEN_RULE)
    assert severity == "error"
    assert message.startswith(
        "User-specified max_model_len (512) is greater than the derived max_model_len "
        "(max_position_embeddings=256 or model_max_length=None in model's config.json)."
    )
    assert kept(MINILM).encoder_config == {
        "max_seq_length": 256,
        "do_lower_case": False,
    }
    assert (
        findings(validate(api, f"vllm serve {MINILM} --max-model-len 256", version="0.27.1"), LEN_RULE) == []
    )


def test_without_a_sentence_transformers_config_the_length_is_not_claimed(api, hf_cache):
    cache_add(hf_cache, MINILM, MINILM_CONFIG, files={"modules.json": ST_FILES["modules.json"]})
    assert (
        findings(validate(api, f"vllm serve {MINILM} --max-model-len 512", version="0.27.1"), LEN_RULE) == []
    )
    assert kept(MINILM).encoder_config is None


def test_the_first_sentence_transformers_file_vllm_reads_wins_and_needs_max_seq_length(tmp_path):
    import json

    (tmp_path / "config.json").write_text(json.dumps(MINILM_CONFIG))
    (tmp_path / "sentence_bert_config.json").write_text(json.dumps({"do_lower_case": True}))
    (tmp_path / "sentence_roberta_config.json").write_text(json.dumps({"max_seq_length": 128}))
    assert modelhub.resolve(str(tmp_path)).encoder_config is None  # the first one found has no max_seq_length
    (tmp_path / "sentence_bert_config.json").write_text("{}")  # an empty one is skipped
    assert modelhub.resolve(str(tmp_path)).encoder_config == {"max_seq_length": 128}


RERANKER = "BAAI/bge-reranker-v2-m3"
RERANKER_CONFIG = {
    "architectures": ["XLMRobertaForSequenceClassification"],
    "max_position_embeddings": 8194,
    "model_type": "xlm-roberta",
    "num_attention_heads": 16,
    "position_embedding_type": "absolute",
}


def test_a_pooling_encoders_length_is_capped_by_its_tokenizers_model_max_length(api, hf_cache):
    tokenizer = {**PLAIN_TOKENIZER, "tokenizer_config.json": {"model_max_length": 8192}}
    cache_add(hf_cache, RERANKER, RERANKER_CONFIG, files=tokenizer)
    body = validate(api, f"vllm serve {RERANKER} --max-model-len 8194", version="0.34.0")
    ((severity, message),) = messages(body, LEN_RULE)
    assert severity == "error"
    assert "(max_position_embeddings=8192 or model_max_length=None in model's config.json)" in message
    assert kept(RERANKER).tokenizer_max_length == 8192
    assert (
        findings(validate(api, f"vllm serve {RERANKER} --max-model-len 8192", version="0.34.0"), LEN_RULE)
        == []
    )
    # another tokenizer is not the one whose limit was read
    other = validate(
        api, f"vllm serve {RERANKER} --max-model-len 8194 --tokenizer Org/Other", version="0.34.0"
    )
    assert [f for f in findings(other, LEN_RULE) if f["severity"] == "error"] == []
