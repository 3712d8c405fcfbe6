"""Write stand-in model directories: a real model's config.json (+ generation_config.json) and a small
tokenizer built with the `tokenizers` library. No weights, nothing from a hub.

vLLM's create_engine_config() reads config.json through transformers (architecture, heads, layers,
max_position_embeddings, dtype, rope scaling ...) and the tokenizer files' presence/config; it never loads
weights. The tokenizer is a tiny byte-level BPE with Llama-3 special tokens and chat template: enough for
vLLM to find and load a tokenizer, not a faithful copy of Meta's vocabulary.

usage: python make_model.py OUT_ROOT      (creates OUT_ROOT/<name>/ for each model below; idempotent)
"""

import json
import sys
from pathlib import Path

LLAMA_SPECIALS = [
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|python_tag|>",
    "<|finetune_right_pad_id|>",
]
LLAMA3_CHAT_TEMPLATE = (
    "{{- bos_token }}{%- for message in messages %}"
    "{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' "
    "+ message['content'] | trim + '<|eot_id|>' }}"
    "{%- endfor %}{%- if add_generation_prompt %}"
    "{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}"
)

# Llama-3.1-8B-Instruct's config.json, field for field (meta-llama/Llama-3.1-8B-Instruct).
LLAMA_31_8B = {
    "architectures": ["LlamaForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 128000,
    "eos_token_id": [128001, 128008, 128009],
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 131072,
    "mlp_bias": False,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "pretraining_tp": 1,
    "rms_norm_eps": 1e-05,
    "rope_scaling": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.43.0.dev0",
    "use_cache": True,
    "vocab_size": 128256,
}
# Llama-3.2-1B-Instruct (a draft model for speculative decoding cases).
LLAMA_32_1B = {
    **LLAMA_31_8B,
    "hidden_size": 2048,
    "intermediate_size": 8192,
    "num_hidden_layers": 16,
    "num_key_value_heads": 8,
    "head_dim": 64,
    "tie_word_embeddings": True,
    "rope_scaling": {
        "factor": 32.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
    "transformers_version": "4.45.0.dev0",
}
# Qwen3-30B-A3B (a mixture-of-experts model for expert-parallel cases).
QWEN3_30B_A3B = {
    "architectures": ["Qwen3MoeForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "decoder_sparse_step": 1,
    "eos_token_id": 151645,
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 2048,
    "initializer_range": 0.02,
    "intermediate_size": 6144,
    "max_position_embeddings": 40960,
    "max_window_layers": 48,
    "mlp_only_layers": [],
    "model_type": "qwen3_moe",
    "moe_intermediate_size": 768,
    "norm_topk_prob": True,
    "num_attention_heads": 32,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 48,
    "num_key_value_heads": 4,
    "output_router_logits": False,
    "rms_norm_eps": 1e-06,
    "rope_scaling": None,
    "rope_theta": 1000000.0,
    "router_aux_loss_coef": 0.001,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.51.0",
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": 151936,
}
QWEN_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
QWEN_CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

MODELS = {
    "Llama-3.1-8B-Instruct": (
        LLAMA_31_8B,
        LLAMA_SPECIALS,
        "<|begin_of_text|>",
        "<|eot_id|>",
        LLAMA3_CHAT_TEMPLATE,
        {
            "bos_token_id": 128000,
            "do_sample": True,
            "eos_token_id": [128001, 128008, 128009],
            "temperature": 0.6,
            "top_p": 0.9,
        },
    ),
    "Llama-3.2-1B-Instruct": (
        LLAMA_32_1B,
        LLAMA_SPECIALS,
        "<|begin_of_text|>",
        "<|eot_id|>",
        LLAMA3_CHAT_TEMPLATE,
        {
            "bos_token_id": 128000,
            "do_sample": True,
            "eos_token_id": [128001, 128008, 128009],
            "temperature": 0.6,
            "top_p": 0.9,
        },
    ),
    "Qwen3-30B-A3B": (
        QWEN3_30B_A3B,
        QWEN_SPECIALS,
        None,
        "<|im_end|>",
        QWEN_CHAT_TEMPLATE,
        {
            "bos_token_id": 151643,
            "do_sample": True,
            "eos_token_id": [151645, 151643],
            "temperature": 0.6,
            "top_k": 20,
            "top_p": 0.95,
        },
    ),
}

CORPUS = [
    "The quick brown fox jumps over the lazy dog.",
    "vLLM is a fast and easy-to-use library for LLM inference and serving.",
    "def main():\n    print('hello, world')\n",
    "Speculative decoding, tensor parallelism, prefix caching and chunked prefill.",
    "0123456789 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
] * 20


def build_tokenizer(out: Path, specials, bos, eos, chat_template) -> None:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=600, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(CORPUS, trainer)
    tok.save(str(out / "tokenizer.json"))
    cfg = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": bos,
        "eos_token": eos,
        "clean_up_tokenization_spaces": True,
        "model_max_length": 131072,
        "chat_template": chat_template,
        "model_input_names": ["input_ids", "attention_mask"],
    }
    (out / "tokenizer_config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    (out / "special_tokens_map.json").write_text(
        json.dumps({"bos_token": bos, "eos_token": eos}, indent=2) + "\n"
    )


def main(root: str) -> None:
    for name, (config, specials, bos, eos, template, gen) in MODELS.items():
        out = Path(root) / name
        if (out / "tokenizer.json").exists() and (out / "config.json").exists():
            continue
        out.mkdir(parents=True, exist_ok=True)
        (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
        (out / "generation_config.json").write_text(json.dumps(gen, indent=2) + "\n")
        build_tokenizer(out, specials, bos, eos, template)
        print(f"wrote stand-in model {out}")


if __name__ == "__main__":
    main(sys.argv[1])
