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
# Qwen2.5-7B-Instruct (dense, 28 attention heads / 4 KV heads: TP 8 does not divide them).
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
# Mistral-7B-Instruct-v0.3 (dense, 32k context).
MISTRAL_7B_V03 = {
    "architectures": ["MistralForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 32768,
    "model_type": "mistral",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "rms_norm_eps": 1e-05,
    "rope_theta": 1000000.0,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.42.0.dev0",
    "use_cache": True,
    "vocab_size": 32768,
}
# Mixtral-8x7B-Instruct-v0.1 (mixture of experts: 8 local experts, 2 per token).
MIXTRAL_8X7B = {
    "architectures": ["MixtralForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 32768,
    "model_type": "mixtral",
    "num_attention_heads": 32,
    "num_experts_per_tok": 2,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "num_local_experts": 8,
    "output_router_logits": False,
    "rms_norm_eps": 1e-05,
    "rope_theta": 1000000.0,
    "router_aux_loss_coef": 0.02,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.36.0.dev0",
    "use_cache": True,
    "vocab_size": 32000,
}
# DeepSeek-V3 (MLA, 256 routed experts, one MTP layer, FP8 block-quantized checkpoint). The published file's
# auto_map is left out: it points at remote code files a config-only directory does not have, and
# transformers knows deepseek_v3 natively.
DEEPSEEK_V3 = {
    "architectures": ["DeepseekV3ForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "aux_loss_alpha": 0.001,
    "bos_token_id": 0,
    "eos_token_id": 1,
    "ep_size": 1,
    "first_k_dense_replace": 3,
    "hidden_act": "silu",
    "hidden_size": 7168,
    "initializer_range": 0.02,
    "intermediate_size": 18432,
    "kv_lora_rank": 512,
    "max_position_embeddings": 163840,
    "model_type": "deepseek_v3",
    "moe_intermediate_size": 2048,
    "moe_layer_freq": 1,
    "n_group": 8,
    "n_routed_experts": 256,
    "n_shared_experts": 1,
    "norm_topk_prob": True,
    "num_attention_heads": 128,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 61,
    "num_key_value_heads": 128,
    "num_nextn_predict_layers": 1,
    "pretraining_tp": 1,
    "q_lora_rank": 1536,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "quantization_config": {
        "activation_scheme": "dynamic",
        "fmt": "e4m3",
        "quant_method": "fp8",
        "weight_block_size": [128, 128],
    },
    "rms_norm_eps": 1e-06,
    "rope_scaling": {
        "beta_fast": 32,
        "beta_slow": 1,
        "factor": 40,
        "mscale": 1.0,
        "mscale_all_dim": 1.0,
        "original_max_position_embeddings": 4096,
        "type": "yarn",
    },
    "rope_theta": 10000,
    "routed_scaling_factor": 2.5,
    "scoring_func": "sigmoid",
    "seq_aux": True,
    "tie_word_embeddings": False,
    "topk_group": 4,
    "topk_method": "noaux_tc",
    "torch_dtype": "bfloat16",
    "transformers_version": "4.33.1",
    "use_cache": True,
    "v_head_dim": 128,
    "vocab_size": 129280,
}
# AI21-Jamba-1.5-Mini (hybrid: Mamba layers with an attention layer every 8th, MoE every 2nd layer).
JAMBA_15_MINI = {
    "architectures": ["JambaForCausalLM"],
    "attention_dropout": 0.0,
    "attn_layer_offset": 4,
    "attn_layer_period": 8,
    "bos_token_id": 1,
    "eos_token_id": [2, 518],
    "expert_layer_offset": 1,
    "expert_layer_period": 2,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "mamba_conv_bias": True,
    "mamba_d_conv": 4,
    "mamba_d_state": 16,
    "mamba_dt_rank": 256,
    "mamba_expand": 2,
    "mamba_proj_bias": False,
    "max_position_embeddings": 262144,
    "model_type": "jamba",
    "num_attention_heads": 32,
    "num_experts": 16,
    "num_experts_per_tok": 2,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "num_logits_to_keep": 1,
    "output_router_logits": False,
    "pad_token_id": 0,
    "rms_norm_eps": 1e-06,
    "router_aux_loss_coef": 0.001,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.40.1",
    "use_cache": True,
    "use_mamba_kernels": True,
    "vocab_size": 65536,
}
SP_SPECIALS = ["<unk>", "<s>", "</s>"]
MISTRAL_CHAT_TEMPLATE = (
    "{{- bos_token }}{%- for message in messages %}{%- if message['role'] == 'user' %}"
    "{{- '[INST] ' + message['content'] + '[/INST]' }}{%- else %}{{- message['content'] + eos_token }}"
    "{%- endif %}{%- endfor %}"
)
DEEPSEEK_SPECIALS = ["<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>"]
DEEPSEEK_CHAT_TEMPLATE = (
    "{{- bos_token }}{%- for message in messages %}{%- if message['role'] == 'user' %}"
    "{{- '<｜User｜>' + message['content'] }}{%- else %}"
    "{{- '<｜Assistant｜>' + message['content'] + eos_token }}"
    "{%- endif %}{%- endfor %}{%- if add_generation_prompt %}{{- '<｜Assistant｜>' }}{%- endif %}"
)
JAMBA_SPECIALS = ["<|pad|>", "<|startoftext|>", "<|endoftext|>", "<|eom|>"]
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
    "Qwen2.5-7B-Instruct": (
        QWEN25_7B,
        QWEN_SPECIALS,
        None,
        "<|im_end|>",
        QWEN_CHAT_TEMPLATE,
        {"bos_token_id": 151643, "do_sample": True, "eos_token_id": [151645, 151643], "temperature": 0.7},
    ),
    "Mistral-7B-Instruct-v0.3": (
        MISTRAL_7B_V03,
        SP_SPECIALS,
        "<s>",
        "</s>",
        MISTRAL_CHAT_TEMPLATE,
        {"bos_token_id": 1, "eos_token_id": 2},
    ),
    "Mixtral-8x7B-Instruct-v0.1": (
        MIXTRAL_8X7B,
        SP_SPECIALS,
        "<s>",
        "</s>",
        MISTRAL_CHAT_TEMPLATE,
        {"bos_token_id": 1, "eos_token_id": 2},
    ),
    "DeepSeek-V3": (
        DEEPSEEK_V3,
        DEEPSEEK_SPECIALS,
        "<｜begin▁of▁sentence｜>",
        "<｜end▁of▁sentence｜>",
        DEEPSEEK_CHAT_TEMPLATE,
        {"bos_token_id": 0, "eos_token_id": 1, "do_sample": True, "temperature": 0.6, "top_p": 0.95},
    ),
    "AI21-Jamba-1.5-Mini": (
        JAMBA_15_MINI,
        JAMBA_SPECIALS,
        "<|startoftext|>",
        "<|endoftext|>",
        MISTRAL_CHAT_TEMPLATE,
        {"bos_token_id": 1, "eos_token_id": [2, 518], "pad_token_id": 0},
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
        text = json.dumps(config, indent=2, ensure_ascii=False) + "\n"
        if (out / "tokenizer.json").exists() and (out / "config.json").exists():
            if (out / "config.json").read_text() != text:  # a corrected definition: rewrite config.json only
                (out / "config.json").write_text(text)
                print(f"updated stand-in model config {out}")
            continue
        out.mkdir(parents=True, exist_ok=True)
        (out / "config.json").write_text(text)
        (out / "generation_config.json").write_text(json.dumps(gen, indent=2) + "\n")
        build_tokenizer(out, specials, bos, eos, template)
        print(f"wrote stand-in model {out}")


if __name__ == "__main__":
    main(sys.argv[1])
