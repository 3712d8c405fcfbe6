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
# --- models2.yaml's families (written from the published files; see each comment for what is left out) ---
# google/gemma-3-27b-it (multimodal: Gemma3ForConditionalGeneration, SigLIP vision tower; text: 62 layers,
# 32 heads / 16 KV heads, sliding window 1024 on 5 of every 6 layers, linear RoPE factor 8, 128k context from
# Gemma3TextConfig's default max_position_embeddings).
GEMMA3_27B = {
    "architectures": ["Gemma3ForConditionalGeneration"],
    "boi_token_index": 255999,
    "eoi_token_index": 256000,
    "eos_token_id": [1, 106],
    "image_token_index": 262144,
    "initializer_range": 0.02,
    "mm_tokens_per_image": 256,
    "model_type": "gemma3",
    "text_config": {
        "head_dim": 128,
        "hidden_size": 5376,
        "intermediate_size": 21504,
        "model_type": "gemma3_text",
        "num_attention_heads": 32,
        "num_hidden_layers": 62,
        "num_key_value_heads": 16,
        "query_pre_attn_scalar": 168,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "sliding_window": 1024,
    },
    "torch_dtype": "bfloat16",
    "transformers_version": "4.50.0.dev0",
    "vision_config": {
        "hidden_size": 1152,
        "image_size": 896,
        "intermediate_size": 4304,
        "model_type": "siglip_vision_model",
        "num_attention_heads": 16,
        "num_hidden_layers": 27,
        "patch_size": 14,
        "vision_use_head": False,
    },
}
GEMMA3_PREPROCESSOR = {
    "do_convert_rgb": None,
    "do_normalize": True,
    "do_pan_and_scan": None,
    "do_rescale": True,
    "do_resize": True,
    "image_mean": [0.5, 0.5, 0.5],
    "image_processor_type": "Gemma3ImageProcessor",
    "image_seq_length": 256,
    "image_std": [0.5, 0.5, 0.5],
    "pan_and_scan_max_num_crops": None,
    "pan_and_scan_min_crop_size": None,
    "pan_and_scan_min_ratio_to_activate": None,
    "processor_class": "Gemma3Processor",
    "resample": 2,
    "rescale_factor": 0.00392156862745098,
    "size": {"height": 896, "width": 896},
}
# google/gemma-2-9b-it (16 heads / 8 KV heads, head_dim 256, 8k context, sliding window 4096 on every other
# layer, logit soft-capping; published in float32).
GEMMA2_9B = {
    "architectures": ["Gemma2ForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "attn_logit_softcapping": 50.0,
    "bos_token_id": 2,
    "cache_implementation": "hybrid",
    "eos_token_id": 1,
    "final_logit_softcapping": 30.0,
    "head_dim": 256,
    "hidden_act": "gelu_pytorch_tanh",
    "hidden_activation": "gelu_pytorch_tanh",
    "hidden_size": 3584,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 8192,
    "model_type": "gemma2",
    "num_attention_heads": 16,
    "num_hidden_layers": 42,
    "num_key_value_heads": 8,
    "pad_token_id": 0,
    "query_pre_attn_scalar": 256,
    "rms_norm_eps": 1e-06,
    "rope_theta": 10000.0,
    "sliding_window": 4096,
    "sliding_window_size": 4096,
    "torch_dtype": "float32",
    "transformers_version": "4.42.0.dev0",
    "use_cache": True,
    "vocab_size": 256000,
}
# microsoft/Phi-3.5-mini-instruct (32 heads = 32 KV heads, head_dim 96, LongRoPE: 128k from a 4k original).
# Without auto_map (remote code the directory lacks; transformers knows phi3). The 48 short/long factors are
# the published file's shape (head_dim / 2 each); their values only scale frequencies, which no start-up check
# reads.
_PHI35_LONG = [
    1.08,
    1.11,
    1.14,
    1.34,
    1.59,
    1.6,
    1.62,
    2.62,
    3.23,
    3.23,
    4.79,
    7.4,
    7.7,
    9.09,
    12.2,
    17.67,
    24.46,
    28.57,
    30.42,
    30.84,
    32.59,
    32.93,
    42.32,
    44.96,
    50.34,
    50.45,
    57.55,
    57.93,
    58.21,
    60.14,
    62.61,
    62.62,
    62.71,
    63.14,
    63.14,
    63.77,
    63.93,
    63.96,
    63.97,
    64.03,
    64.07,
    64.08,
    64.12,
    64.41,
    64.48,
    64.51,
    64.53,
    64.84,
]
_PHI35_SHORT = [
    1.0,
    1.02,
    1.03,
    1.03,
    1.05,
    1.05,
    1.05,
    1.05,
    1.05,
    1.07,
    1.09,
    1.11,
    1.16,
    1.16,
    1.2,
    1.25,
    1.32,
    1.33,
    1.41,
    1.41,
    1.46,
    1.57,
    1.58,
    1.65,
    1.73,
    1.79,
    1.81,
    1.86,
    1.87,
    1.91,
    1.92,
    1.93,
    1.96,
    1.98,
    2.0,
    2.01,
    2.03,
    2.04,
    2.06,
    2.07,
    2.08,
    2.09,
    2.1,
    2.12,
    2.13,
    2.15,
    2.17,
    2.2,
]
PHI35_MINI = {
    "architectures": ["Phi3ForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 1,
    "embd_pdrop": 0.0,
    "eos_token_id": 32000,
    "hidden_act": "silu",
    "hidden_size": 3072,
    "initializer_range": 0.02,
    "intermediate_size": 8192,
    "max_position_embeddings": 131072,
    "model_type": "phi3",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 32,
    "original_max_position_embeddings": 4096,
    "pad_token_id": 32000,
    "resid_pdrop": 0.0,
    "rms_norm_eps": 1e-05,
    "rope_scaling": {"long_factor": _PHI35_LONG, "short_factor": _PHI35_SHORT, "type": "longrope"},
    "rope_theta": 10000.0,
    "sliding_window": 262144,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.43.3",
    "use_cache": True,
    "vocab_size": 32064,
}
# Qwen/Qwen2.5-VL-7B-Instruct (multimodal; text as Qwen2.5-7B: 28 heads / 4 KV heads; 128000 positions,
# multimodal RoPE).
QWEN25_VL_7B = {
    "architectures": ["Qwen2_5_VLForConditionalGeneration"],
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "eos_token_id": 151645,
    "vision_start_token_id": 151652,
    "vision_end_token_id": 151653,
    "vision_token_id": 151654,
    "image_token_id": 151655,
    "video_token_id": 151656,
    "hidden_act": "silu",
    "hidden_size": 3584,
    "initializer_range": 0.02,
    "intermediate_size": 18944,
    "max_position_embeddings": 128000,
    "max_window_layers": 28,
    "model_type": "qwen2_5_vl",
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0,
    "sliding_window": 32768,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.41.2",
    "use_cache": True,
    "use_sliding_window": False,
    "vision_config": {
        "depth": 32,
        "hidden_act": "silu",
        "hidden_size": 1280,
        "intermediate_size": 3420,
        "num_heads": 16,
        "in_chans": 3,
        "out_hidden_size": 3584,
        "patch_size": 14,
        "spatial_merge_size": 2,
        "spatial_patch_size": 14,
        "window_size": 112,
        "fullatt_block_indexes": [7, 15, 23, 31],
        "tokens_per_second": 2,
        "temporal_patch_size": 2,
    },
    "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    "vocab_size": 152064,
}
QWEN25_VL_PREPROCESSOR = {
    "min_pixels": 3136,
    "max_pixels": 12845056,
    "patch_size": 14,
    "temporal_patch_size": 2,
    "merge_size": 2,
    "image_mean": [0.48145466, 0.4578275, 0.40821073],
    "image_std": [0.26862954, 0.26130258, 0.27577711],
    "image_processor_type": "Qwen2VLImageProcessor",
    "processor_class": "Qwen2_5_VLProcessor",
}
# openai/gpt-oss-20b (MoE: 32 experts, 4 per token; 64 heads / 8 KV heads; alternating 128-token sliding
# window and full attention; YaRN 32 x 4096 = 131072; MXFP4 checkpoint).
GPT_OSS_20B = {
    "architectures": ["GptOssForCausalLM"],
    "attention_bias": True,
    "attention_dropout": 0.0,
    "eos_token_id": 200002,
    "experts_per_token": 4,
    "head_dim": 64,
    "hidden_act": "silu",
    "hidden_size": 2880,
    "initial_context_length": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 2880,
    "layer_types": ["sliding_attention", "full_attention"] * 12,
    "max_position_embeddings": 131072,
    "model_type": "gpt_oss",
    "num_attention_heads": 64,
    "num_experts_per_tok": 4,
    "num_hidden_layers": 24,
    "num_key_value_heads": 8,
    "num_local_experts": 32,
    "output_router_logits": False,
    "pad_token_id": 199999,
    "quantization_config": {
        "modules_to_not_convert": [
            "model.layers.*.self_attn",
            "model.layers.*.mlp.router",
            "model.embed_tokens",
            "lm_head",
        ],
        "quant_method": "mxfp4",
    },
    "rms_norm_eps": 1e-05,
    "rope_scaling": {
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "factor": 32.0,
        "original_max_position_embeddings": 4096,
        "rope_type": "yarn",
        "truncate": False,
    },
    "rope_theta": 150000,
    "router_aux_loss_coef": 0.9,
    "sliding_window": 128,
    "swiglu_limit": 7.0,
    "tie_word_embeddings": False,
    "transformers_version": "4.55.0.dev0",
    "use_cache": True,
    "vocab_size": 201088,
}
# Qwen/Qwen3-8B (dense: 32 heads / 8 KV heads, 36 layers, 40960 positions; <think> tokens).
QWEN3_8B = {
    "architectures": ["Qwen3ForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "eos_token_id": 151645,
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 12288,
    "max_position_embeddings": 40960,
    "max_window_layers": 36,
    "model_type": "qwen3",
    "num_attention_heads": 32,
    "num_hidden_layers": 36,
    "num_key_value_heads": 8,
    "rms_norm_eps": 1e-06,
    "rope_scaling": None,
    "rope_theta": 1000000,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.51.0",
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": 151936,
}
# ibm-granite/granite-4.0-h-tiny (hybrid: Mamba-2 layers and 4 attention layers without position embeddings
# ("nope"), 64 experts, 6 per token; 12 heads / 4 KV heads).
GRANITE_40_H_TINY = {
    "architectures": ["GraniteMoeHybridForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "attention_multiplier": 0.0078125,
    "bos_token_id": 100257,
    "embedding_multiplier": 12,
    "eos_token_id": 100257,
    "hidden_act": "silu",
    "hidden_size": 1536,
    "init_method": "mup",
    "initializer_range": 0.1,
    "intermediate_size": 512,
    "layer_types": ["attention" if i in (5, 15, 25, 35) else "mamba" for i in range(40)],
    "logits_scaling": 6,
    "mamba_chunk_size": 256,
    "mamba_conv_bias": True,
    "mamba_d_conv": 4,
    "mamba_d_head": 64,
    "mamba_d_state": 128,
    "mamba_expand": 2,
    "mamba_n_groups": 1,
    "mamba_n_heads": 48,
    "mamba_proj_bias": False,
    "max_position_embeddings": 131072,
    "model_type": "granitemoehybrid",
    "normalization_function": "rmsnorm",
    "num_attention_heads": 12,
    "num_experts_per_tok": 6,
    "num_hidden_layers": 40,
    "num_key_value_heads": 4,
    "num_local_experts": 64,
    "output_router_logits": False,
    "pad_token_id": 100256,
    "position_embedding_type": "nope",
    "residual_multiplier": 0.22,
    "rms_norm_eps": 1e-05,
    "rope_scaling": None,
    "rope_theta": 10000,
    "router_aux_loss_coef": 0.0,
    "shared_intermediate_size": 1024,
    "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.56.0",
    "use_cache": True,
    "vocab_size": 100352,
}
# intfloat/e5-mistral-7b-instruct (embedding model: MistralModel, which vLLM serves as a pooling model; 32k
# positions, 4096 sliding window; float16).
E5_MISTRAL_7B = {
    "architectures": ["MistralModel"],
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
    "pad_token_id": 2,
    "rms_norm_eps": 1e-05,
    "rope_theta": 10000.0,
    "sliding_window": 4096,
    "tie_word_embeddings": False,
    "torch_dtype": "float16",
    "transformers_version": "4.34.0",
    "use_cache": False,
    "vocab_size": 32000,
}
# meta-llama/Llama-4-Scout-17B-16E-Instruct (multimodal MoE: 16 experts, 1 per token; 40 heads / 8 KV heads,
# chunked attention 8192, llama3 RoPE factor 16; 10M positions). Without the published text_config's
# bookkeeping keys (_attn_implementation_autoset, for_llm_compressor).
LLAMA4_SCOUT = {
    "architectures": ["Llama4ForConditionalGeneration"],
    "boi_token_index": 200080,
    "eoi_token_index": 200081,
    "image_token_index": 200092,
    "model_type": "llama4",
    "text_config": {
        "attention_bias": False,
        "attention_chunk_size": 8192,
        "attention_dropout": 0.0,
        "bos_token_id": 200000,
        "eos_token_id": [200001, 200007, 200008],
        "head_dim": 128,
        "hidden_act": "silu",
        "hidden_size": 5120,
        "initializer_range": 0.02,
        "interleave_moe_layer_step": 1,
        "intermediate_size": 8192,
        "intermediate_size_mlp": 16384,
        "max_position_embeddings": 10485760,
        "model_type": "llama4_text",
        "num_attention_heads": 40,
        "num_experts_per_tok": 1,
        "num_hidden_layers": 48,
        "num_key_value_heads": 8,
        "num_local_experts": 16,
        "output_router_logits": False,
        "pad_token_id": 200018,
        "rms_norm_eps": 1e-05,
        "rope_scaling": {
            "factor": 16.0,
            "high_freq_factor": 1.0,
            "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192,
            "rope_type": "llama3",
        },
        "rope_theta": 500000.0,
        "router_aux_loss_coef": 0.001,
        "router_jitter_noise": 0.0,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "use_qk_norm": True,
        "vocab_size": 202048,
    },
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.51.0.dev0",
    "vision_config": {
        "attention_dropout": 0.0,
        "hidden_act": "gelu",
        "hidden_size": 1408,
        "image_size": 336,
        "initializer_range": 0.02,
        "intermediate_size": 5632,
        "model_type": "llama4_vision_model",
        "multi_modal_projector_bias": False,
        "norm_eps": 1e-05,
        "num_attention_heads": 16,
        "num_channels": 3,
        "num_hidden_layers": 34,
        "patch_size": 14,
        "pixel_shuffle_ratio": 0.5,
        "projector_dropout": 0.0,
        "projector_input_dim": 4096,
        "projector_output_dim": 4096,
        "rope_theta": 10000,
        "vision_feature_layer": -1,
        "vision_feature_select_strategy": "default",
        "vision_output_dim": 4096,
    },
}
LLAMA4_PREPROCESSOR = {
    "crop_size": None,
    "data_format": "channels_first",
    "default_to_square": True,
    "device": None,
    "do_center_crop": None,
    "do_convert_rgb": True,
    "do_normalize": True,
    "do_rescale": True,
    "do_resize": True,
    "image_mean": [0.5, 0.5, 0.5],
    "image_processor_type": "Llama4ImageProcessorFast",
    "image_std": [0.5, 0.5, 0.5],
    "max_patches": 16,
    "processor_class": "Llama4Processor",
    "resample": 2,
    "rescale_factor": 0.00392156862745098,
    "resize_to_max_canvas": False,
    "size": {"height": 336, "width": 336},
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

GEMMA_SPECIALS = ["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"]
GEMMA3_SPECIALS = [*GEMMA_SPECIALS, "<start_of_image>", "<end_of_image>", "<image_soft_token>"]
GEMMA_CHAT_TEMPLATE = (
    "{{- bos_token }}{%- for message in messages %}"
    "{{- '<start_of_turn>' + ('model' if message['role'] == 'assistant' else message['role']) + '\\n' "
    "+ message['content'] | trim + '<end_of_turn>\\n' }}"
    "{%- endfor %}{%- if add_generation_prompt %}{{- '<start_of_turn>model\\n' }}{%- endif %}"
)
PHI3_SPECIALS = [
    "<unk>",
    "<s>",
    "</s>",
    "<|endoftext|>",
    "<|system|>",
    "<|user|>",
    "<|assistant|>",
    "<|end|>",
]
PHI3_CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|' + message['role'] + '|>\\n' + message['content'] + '<|end|>\\n' }}"
    "{%- endfor %}{%- if add_generation_prompt %}{{- '<|assistant|>\\n' }}{%- endif %}"
)
QWEN_VL_SPECIALS = [
    *QWEN_SPECIALS,
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
]
QWEN3_SPECIALS = [*QWEN_SPECIALS, "<think>", "</think>", "<tool_call>", "</tool_call>"]
HARMONY_SPECIALS = [
    "<|startoftext|>",
    "<|endoftext|>",
    "<|return|>",
    "<|start|>",
    "<|end|>",
    "<|message|>",
    "<|channel|>",
    "<|constrain|>",
    "<|call|>",
]
HARMONY_CHAT_TEMPLATE = (
    "{%- for message in messages %}{{- '<|start|>' + message['role'] + '<|message|>' + message['content'] "
    "+ '<|end|>' }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|start|>assistant' }}{%- endif %}"
)
GRANITE_SPECIALS = ["<|end_of_text|>", "<|pad|>", "<|start_of_role|>", "<|end_of_role|>", "<|tool_call|>"]
GRANITE_CHAT_TEMPLATE = (
    "{%- for message in messages %}{{- '<|start_of_role|>' + message['role'] + '<|end_of_role|>' "
    "+ message['content'] + '<|end_of_text|>\\n' }}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|start_of_role|>assistant<|end_of_role|>' }}{%- endif %}"
)
LLAMA4_SPECIALS = [
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|header_start|>",
    "<|header_end|>",
    "<|eot|>",
    "<|eom|>",
    "<|image_start|>",
    "<|image_end|>",
    "<|image|>",
    "<|patch|>",
]
LLAMA4_CHAT_TEMPLATE = (
    "{{- bos_token }}{%- for message in messages %}"
    "{{- '<|header_start|>' + message['role'] + '<|header_end|>\\n\\n' "
    "+ message['content'] | trim + '<|eot|>' }}"
    "{%- endfor %}{%- if add_generation_prompt %}"
    "{{- '<|header_start|>assistant<|header_end|>\\n\\n' }}{%- endif %}"
)

# --- models3.yaml's families (written from the published files; see each comment for what is left out) ---
# meta-llama/Llama-3.1-70B-Instruct (dense: 64 heads / 8 KV heads, 80 layers, llama3 RoPE 128k).
LLAMA_31_70B = {
    **LLAMA_31_8B,
    "hidden_size": 8192,
    "intermediate_size": 28672,
    "num_attention_heads": 64,
    "num_hidden_layers": 80,
    "transformers_version": "4.42.3",
}
# Qwen/Qwen2.5-72B-Instruct (dense: 64 heads / 8 KV heads, 80 layers, 32k positions).
QWEN25_72B = {
    **QWEN25_7B,
    "hidden_size": 8192,
    "intermediate_size": 29568,
    "max_window_layers": 70,
    "num_attention_heads": 64,
    "num_hidden_layers": 80,
    "num_key_value_heads": 8,
}
# Qwen/Qwen3-235B-A22B (MoE: 128 experts, 8 per token; 64 heads / 4 KV heads, 94 layers, 40960 positions).
QWEN3_235B_A22B = {
    **QWEN3_30B_A3B,
    "hidden_size": 4096,
    "intermediate_size": 12288,
    "max_window_layers": 94,
    "moe_intermediate_size": 1536,
    "num_attention_heads": 64,
    "num_hidden_layers": 94,
    "num_key_value_heads": 4,
}
# mistralai/Mistral-Nemo-Instruct-2407 (dense: 32 heads / 8 KV heads, head_dim 128 (hidden 5120 / 32 = 160);
# 40 layers; 1024000 positions; Tekken vocabulary of 131072). Without the repository's params.json and
# tekken.json (the mistral tokenizer/config formats), which the stand-in's tiny tokenizer replaces.
MISTRAL_NEMO = {
    "architectures": ["MistralForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 5120,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 1024000,
    "model_type": "mistral",
    "num_attention_heads": 32,
    "num_hidden_layers": 40,
    "num_key_value_heads": 8,
    "rms_norm_eps": 1e-05,
    "rope_theta": 1000000.0,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.43.0.dev0",
    "use_cache": True,
    "vocab_size": 131072,
}
# microsoft/phi-4 (dense Phi3ForCausalLM: 40 heads / 10 KV heads, 40 layers, 16k positions).
PHI4 = {
    "architectures": ["Phi3ForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 100257,
    "embd_pdrop": 0.0,
    "eos_token_id": 100265,
    "hidden_act": "silu",
    "hidden_size": 5120,
    "initializer_range": 0.02,
    "intermediate_size": 17920,
    "max_position_embeddings": 16384,
    "model_type": "phi3",
    "num_attention_heads": 40,
    "num_hidden_layers": 40,
    "num_key_value_heads": 10,
    "original_max_position_embeddings": 16384,
    "pad_token_id": 100349,
    "resid_pdrop": 0.0,
    "rms_norm_eps": 1e-05,
    "rope_scaling": None,
    "rope_theta": 250000,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.47.0",
    "use_cache": True,
    "vocab_size": 100352,
}
# BAAI/bge-m3 (encoder-only embedding model: XLMRobertaModel, 16 heads, 24 layers, 8194 positions, float32;
# sentence-transformers files: CLS pooling, max_seq_length 8192). Without the sparse/colbert heads' weights.
BGE_M3 = {
    "architectures": ["XLMRobertaModel"],
    "attention_probs_dropout_prob": 0.1,
    "bos_token_id": 0,
    "classifier_dropout": None,
    "eos_token_id": 2,
    "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1,
    "hidden_size": 1024,
    "initializer_range": 0.02,
    "intermediate_size": 4096,
    "layer_norm_eps": 1e-05,
    "max_position_embeddings": 8194,
    "model_type": "xlm-roberta",
    "num_attention_heads": 16,
    "num_hidden_layers": 24,
    "output_past": True,
    "pad_token_id": 1,
    "position_embedding_type": "absolute",
    "torch_dtype": "float32",
    "transformers_version": "4.33.0",
    "type_vocab_size": 1,
    "use_cache": True,
    "vocab_size": 250002,
}
ST_MODULES = [
    {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
    {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
]


def st_pooling(dim: int, mode: str) -> dict:
    return {
        "word_embedding_dimension": dim,
        "pooling_mode_cls_token": mode == "cls",
        "pooling_mode_mean_tokens": mode == "mean",
        "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False,
    }


# sentence-transformers/all-MiniLM-L6-v2 (encoder-only BertModel: 12 heads, 6 layers, 512 positions, no
# torch_dtype; sentence-transformers max_seq_length 256, mean pooling).
MINILM_L6 = {
    "_name_or_path": "nreimers/MiniLM-L6-H384-uncased",
    "architectures": ["BertModel"],
    "attention_probs_dropout_prob": 0.1,
    "gradient_checkpointing": False,
    "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1,
    "hidden_size": 384,
    "initializer_range": 0.02,
    "intermediate_size": 1536,
    "layer_norm_eps": 1e-12,
    "max_position_embeddings": 512,
    "model_type": "bert",
    "num_attention_heads": 12,
    "num_hidden_layers": 6,
    "pad_token_id": 0,
    "position_embedding_type": "absolute",
    "transformers_version": "4.8.2",
    "type_vocab_size": 2,
    "use_cache": True,
    "vocab_size": 30522,
}
# openai/whisper-large-v3 (encoder-decoder speech model: 20 heads, 32 + 32 layers, 448 target positions,
# 1500 source positions, float16) and its feature extractor's config.
WHISPER_LARGE_V3 = {
    "activation_dropout": 0.0,
    "activation_function": "gelu",
    "apply_spec_augment": False,
    "architectures": ["WhisperForConditionalGeneration"],
    "attention_dropout": 0.0,
    "begin_suppress_tokens": [220, 50257],
    "bos_token_id": 50257,
    "classifier_proj_size": 256,
    "d_model": 1280,
    "decoder_attention_heads": 20,
    "decoder_ffn_dim": 5120,
    "decoder_layerdrop": 0.0,
    "decoder_layers": 32,
    "decoder_start_token_id": 50258,
    "dropout": 0.0,
    "encoder_attention_heads": 20,
    "encoder_ffn_dim": 5120,
    "encoder_layerdrop": 0.0,
    "encoder_layers": 32,
    "eos_token_id": 50257,
    "init_std": 0.02,
    "is_encoder_decoder": True,
    "mask_feature_length": 10,
    "mask_feature_min_masks": 0,
    "mask_feature_prob": 0.0,
    "mask_time_length": 10,
    "mask_time_min_masks": 2,
    "mask_time_prob": 0.05,
    "max_length": 448,
    "max_source_positions": 1500,
    "max_target_positions": 448,
    "median_filter_width": 7,
    "model_type": "whisper",
    "num_hidden_layers": 32,
    "num_mel_bins": 128,
    "pad_token_id": 50256,
    "scale_embedding": False,
    "torch_dtype": "float16",
    "transformers_version": "4.36.0.dev0",
    "use_cache": True,
    "use_weighted_layer_sum": False,
    "vocab_size": 51866,
}
WHISPER_PREPROCESSOR = {
    "chunk_length": 30,
    "feature_extractor_type": "WhisperFeatureExtractor",
    "feature_size": 128,
    "hop_length": 160,
    "n_fft": 400,
    "n_samples": 480000,
    "nb_max_frames": 3000,
    "padding_side": "right",
    "padding_value": 0.0,
    "processor_class": "WhisperProcessor",
    "return_attention_mask": False,
    "sampling_rate": 16000,
}
# state-spaces/mamba-2.8b-hf (pure Mamba-1: 64 layers, no attention, no position embeddings; float32).
MAMBA_28B = {
    "architectures": ["MambaForCausalLM"],
    "bos_token_id": 0,
    "conv_kernel": 4,
    "d_inner": 5120,
    "d_model": 2560,
    "eos_token_id": 0,
    "expand": 2,
    "fused_add_norm": True,
    "hidden_act": "silu",
    "hidden_size": 2560,
    "initializer_range": 0.1,
    "intermediate_size": 5120,
    "layer_norm_epsilon": 1e-05,
    "model_type": "mamba",
    "n_layer": 64,
    "num_hidden_layers": 64,
    "pad_token_id": 0,
    "pad_vocab_size_multiple": 8,
    "rescale_prenorm_residual": False,
    "residual_in_fp32": True,
    "rms_norm": True,
    "state_size": 16,
    "time_step_floor": 0.0001,
    "time_step_init_scheme": "random",
    "time_step_max": 0.1,
    "time_step_min": 0.001,
    "time_step_rank": 160,
    "time_step_scale": 1.0,
    "torch_dtype": "float32",
    "transformers_version": "4.39.0.dev0",
    "use_bias": False,
    "use_cache": True,
    "use_conv_bias": True,
    "vocab_size": 50280,
}
# deepseek-ai/DeepSeek-R1-Distill-Qwen-32B (Qwen2ForCausalLM: 40 heads / 8 KV heads, 64 layers, 128k context;
# DeepSeek's tokenizer specials with <think>/</think>).
R1_DISTILL_QWEN_32B = {
    "architectures": ["Qwen2ForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "eos_token_id": 151643,
    "hidden_act": "silu",
    "hidden_size": 5120,
    "initializer_range": 0.02,
    "intermediate_size": 27648,
    "max_position_embeddings": 131072,
    "max_window_layers": 64,
    "model_type": "qwen2",
    "num_attention_heads": 40,
    "num_hidden_layers": 64,
    "num_key_value_heads": 8,
    "rms_norm_eps": 1e-05,
    "rope_theta": 1000000.0,
    "sliding_window": 131072,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.43.1",
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": 152064,
}
# Qwen/Qwen2.5-7B-Instruct-AWQ (4-bit AWQ GEMM, group 128; float16).
QWEN25_7B_AWQ = {
    **QWEN25_7B,
    "quantization_config": {
        "bits": 4,
        "group_size": 128,
        "modules_to_not_convert": None,
        "quant_method": "awq",
        "version": "gemm",
        "zero_point": True,
    },
    "torch_dtype": "float16",
    "transformers_version": "4.41.1",
}
# Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4 (4-bit GPTQ, group 128, no act-order; float16).
QWEN25_7B_GPTQ = {
    **QWEN25_7B,
    "quantization_config": {
        "bits": 4,
        "damp_percent": 0.01,
        "desc_act": False,
        "group_size": 128,
        "is_marlin_format": False,
        "model_file_base_name": "model",
        "model_name_or_path": None,
        "quant_method": "gptq",
        "static_groups": False,
        "sym": True,
        "true_sequential": True,
    },
    "torch_dtype": "float16",
    "transformers_version": "4.39.3",
}
# RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8 (compressed-tensors, FP8 per-tensor static weights and activations).
LLAMA_31_8B_FP8 = {
    **LLAMA_31_8B,
    "quantization_config": {
        "config_groups": {
            "group_0": {
                "input_activations": {
                    "block_structure": None,
                    "dynamic": False,
                    "group_size": None,
                    "num_bits": 8,
                    "observer": "minmax",
                    "observer_kwargs": {},
                    "strategy": "tensor",
                    "symmetric": True,
                    "type": "float",
                },
                "output_activations": None,
                "targets": ["Linear"],
                "weights": {
                    "block_structure": None,
                    "dynamic": False,
                    "group_size": None,
                    "num_bits": 8,
                    "observer": "minmax",
                    "observer_kwargs": {},
                    "strategy": "tensor",
                    "symmetric": True,
                    "type": "float",
                },
            }
        },
        "format": "naive-quantized",
        "global_compression_ratio": 1.2405352996226195,
        "ignore": ["lm_head"],
        "kv_cache_scheme": None,
        "quant_method": "compressed-tensors",
        "quantization_status": "frozen",
    },
    "transformers_version": "4.44.0",
}
# meta-llama/Llama-3.2-11B-Vision-Instruct (MllamaForConditionalGeneration: cross-attention vision model, an
# architecture vLLM dropped after 0.10.2) and its image processor's config.
MLLAMA_11B = {
    "architectures": ["MllamaForConditionalGeneration"],
    "image_token_index": 128256,
    "model_type": "mllama",
    "text_config": {
        "bos_token_id": 128000,
        "cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38],
        "dropout": 0,
        "eos_token_id": [128001, 128008, 128009],
        "hidden_act": "silu",
        "hidden_size": 4096,
        "initializer_range": 0.02,
        "intermediate_size": 14336,
        "max_position_embeddings": 131072,
        "model_type": "mllama_text_model",
        "num_attention_heads": 32,
        "num_hidden_layers": 40,
        "num_key_value_heads": 8,
        "pad_token_id": 128004,
        "rms_norm_eps": 1e-05,
        "rope_scaling": {
            "factor": 8.0,
            "high_freq_factor": 4.0,
            "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192,
            "rope_type": "llama3",
        },
        "rope_theta": 500000.0,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "vocab_size": 128256,
    },
    "torch_dtype": "bfloat16",
    "transformers_version": "4.45.0.dev0",
    "vision_config": {
        "attention_heads": 16,
        "hidden_act": "gelu",
        "hidden_size": 1280,
        "image_size": 560,
        "intermediate_layers_indices": [3, 7, 15, 23, 30],
        "intermediate_size": 5120,
        "max_num_tiles": 4,
        "model_type": "mllama_vision_model",
        "norm_eps": 1e-05,
        "num_channels": 3,
        "num_global_layers": 8,
        "num_hidden_layers": 32,
        "patch_size": 14,
        "supported_aspect_ratios": [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]],
        "torch_dtype": "bfloat16",
        "vision_output_dim": 7680,
    },
}
# BAAI/bge-reranker-v2-m3 (cross-encoder: XLMRobertaForSequenceClassification, one label, 8194 positions).
BGE_RERANKER_V2_M3 = {
    **BGE_M3,
    "architectures": ["XLMRobertaForSequenceClassification"],
    "id2label": {"0": "LABEL_0"},
    "label2id": {"LABEL_0": 0},
    "transformers_version": "4.38.1",
}
PHI4_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_sep|>", "<|im_end|>", "<|dummy_85|>"]
PHI4_CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '<|im_sep|>' + message['content'] + '<|im_end|>' }}"
    "{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant<|im_sep|>' }}{%- endif %}"
)
XLMR_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WHISPER_SPECIALS = ["<|endoftext|>", "<|startoftranscript|>", "<|en|>", "<|transcribe|>", "<|notimestamps|>"]
NEOX_SPECIALS = ["<|endoftext|>", "<|padding|>"]
R1_DISTILL_SPECIALS = [*DEEPSEEK_SPECIALS, "<think>", "</think>"]

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
    "gemma-3-27b-it": (
        GEMMA3_27B,
        GEMMA3_SPECIALS,
        "<bos>",
        "<eos>",
        GEMMA_CHAT_TEMPLATE,
        {
            "bos_token_id": 2,
            "do_sample": True,
            "eos_token_id": [1, 106],
            "pad_token_id": 0,
            "top_k": 64,
            "top_p": 0.95,
        },
    ),
    "gemma-2-9b-it": (
        GEMMA2_9B,
        GEMMA_SPECIALS,
        "<bos>",
        "<eos>",
        GEMMA_CHAT_TEMPLATE,
        {"bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": 1, "pad_token_id": 0},
    ),
    "Phi-3.5-mini-instruct": (
        PHI35_MINI,
        PHI3_SPECIALS,
        "<s>",
        "<|endoftext|>",
        PHI3_CHAT_TEMPLATE,
        {"bos_token_id": 1, "eos_token_id": [32007, 32001, 32000], "pad_token_id": 32000},
    ),
    "Qwen2.5-VL-7B-Instruct": (
        QWEN25_VL_7B,
        QWEN_VL_SPECIALS,
        None,
        "<|im_end|>",
        QWEN_CHAT_TEMPLATE,
        {
            "bos_token_id": 151643,
            "pad_token_id": 151643,
            "do_sample": True,
            "eos_token_id": [151645, 151643],
            "repetition_penalty": 1.05,
            "temperature": 0.1,
            "top_p": 0.001,
            "top_k": 1,
        },
    ),
    "gpt-oss-20b": (
        GPT_OSS_20B,
        HARMONY_SPECIALS,
        "<|startoftext|>",
        "<|return|>",
        HARMONY_CHAT_TEMPLATE,
        {
            "bos_token_id": 199998,
            "do_sample": True,
            "eos_token_id": [200002, 199999, 200012],
            "pad_token_id": 199999,
        },
    ),
    "Qwen3-8B": (
        QWEN3_8B,
        QWEN3_SPECIALS,
        None,
        "<|im_end|>",
        QWEN_CHAT_TEMPLATE,
        {
            "bos_token_id": 151643,
            "do_sample": True,
            "eos_token_id": [151645, 151643],
            "pad_token_id": 151643,
            "temperature": 0.6,
            "top_k": 20,
            "top_p": 0.95,
        },
    ),
    "granite-4.0-h-tiny": (
        GRANITE_40_H_TINY,
        GRANITE_SPECIALS,
        "<|end_of_text|>",
        "<|end_of_text|>",
        GRANITE_CHAT_TEMPLATE,
        {"bos_token_id": 100257, "eos_token_id": 100257, "pad_token_id": 100256},
    ),
    "e5-mistral-7b-instruct": (
        E5_MISTRAL_7B,
        SP_SPECIALS,
        "<s>",
        "</s>",
        MISTRAL_CHAT_TEMPLATE,
        {"bos_token_id": 1, "eos_token_id": 2},
    ),
    "Llama-4-Scout-17B-16E-Instruct": (
        LLAMA4_SCOUT,
        LLAMA4_SPECIALS,
        "<|begin_of_text|>",
        "<|eot|>",
        LLAMA4_CHAT_TEMPLATE,
        {
            "bos_token_id": 200000,
            "eos_token_id": [200001, 200007, 200008],
            "pad_token_id": 200018,
            "temperature": 0.6,
            "top_p": 0.9,
        },
    ),
}
MODELS.update(
    {
        "Llama-3.1-70B-Instruct": (LLAMA_31_70B,) + MODELS["Llama-3.1-8B-Instruct"][1:],
        "Qwen2.5-72B-Instruct": (QWEN25_72B,) + MODELS["Qwen2.5-7B-Instruct"][1:],
        "Qwen3-235B-A22B": (QWEN3_235B_A22B, QWEN3_SPECIALS) + MODELS["Qwen3-30B-A3B"][2:],
        "Mistral-Nemo-Instruct-2407": (
            MISTRAL_NEMO,
            SP_SPECIALS,
            "<s>",
            "</s>",
            MISTRAL_CHAT_TEMPLATE,
            {"bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 10},
        ),
        "phi-4": (
            PHI4,
            PHI4_SPECIALS,
            "<|endoftext|>",
            "<|im_end|>",
            PHI4_CHAT_TEMPLATE,
            {"bos_token_id": 100257, "eos_token_id": 100265, "pad_token_id": 100349},
        ),
        "bge-m3": (BGE_M3, XLMR_SPECIALS, "<s>", "</s>", None, None),
        "all-MiniLM-L6-v2": (MINILM_L6, BERT_SPECIALS, "[CLS]", "[SEP]", None, None),
        "whisper-large-v3": (
            WHISPER_LARGE_V3,
            WHISPER_SPECIALS,
            "<|endoftext|>",
            "<|endoftext|>",
            None,
            {
                "bos_token_id": 50257,
                "decoder_start_token_id": 50258,
                "eos_token_id": 50257,
                "max_length": 448,
                "pad_token_id": 50257,
            },
        ),
        "mamba-2.8b-hf": (
            MAMBA_28B,
            NEOX_SPECIALS,
            "<|endoftext|>",
            "<|endoftext|>",
            None,
            {"bos_token_id": 0, "eos_token_id": 0, "pad_token_id": 0},
        ),
        "DeepSeek-R1-Distill-Qwen-32B": (
            R1_DISTILL_QWEN_32B,
            R1_DISTILL_SPECIALS,
            "<｜begin▁of▁sentence｜>",
            "<｜end▁of▁sentence｜>",
            DEEPSEEK_CHAT_TEMPLATE,
            {
                "bos_token_id": 151646,
                "do_sample": True,
                "eos_token_id": 151643,
                "temperature": 0.6,
                "top_p": 0.95,
            },
        ),
        "Qwen2.5-7B-Instruct-AWQ": (QWEN25_7B_AWQ,) + MODELS["Qwen2.5-7B-Instruct"][1:],
        "Qwen2.5-7B-Instruct-GPTQ-Int4": (QWEN25_7B_GPTQ,) + MODELS["Qwen2.5-7B-Instruct"][1:],
        "Meta-Llama-3.1-8B-Instruct-FP8": (LLAMA_31_8B_FP8,) + MODELS["Llama-3.1-8B-Instruct"][1:],
        "Llama-3.2-11B-Vision-Instruct": (MLLAMA_11B,) + MODELS["Llama-3.1-8B-Instruct"][1:],
        "bge-reranker-v2-m3": (BGE_RERANKER_V2_M3, XLMR_SPECIALS, "<s>", "</s>", None, None),
    }
)
# tokenizer_config.json fields that differ from build_tokenizer's defaults, as published (not the
# tokenizer_class: XLMRobertaTokenizer/BertTokenizer expect a Unigram/WordPiece vocabulary, ours is BPE).
TOKENIZER_CONFIG = {
    "bge-m3": {"model_max_length": 8192},
    "bge-reranker-v2-m3": {"model_max_length": 8192},
    "all-MiniLM-L6-v2": {"model_max_length": 512, "do_lower_case": True},
    "whisper-large-v3": {"model_max_length": 1000000000000000019884624838656},
    "phi-4": {"model_max_length": 16384},
}
# Other files of a stand-in's directory, as published (the multimodal models' image processor configs).
EXTRA_FILES = {
    "gemma-3-27b-it": {
        "preprocessor_config.json": GEMMA3_PREPROCESSOR,
        "processor_config.json": {"image_seq_length": 256, "processor_class": "Gemma3Processor"},
    },
    "Qwen2.5-VL-7B-Instruct": {"preprocessor_config.json": QWEN25_VL_PREPROCESSOR},
    "Llama-4-Scout-17B-16E-Instruct": {"preprocessor_config.json": LLAMA4_PREPROCESSOR},
    "bge-m3": {
        "modules.json": ST_MODULES,
        "sentence_bert_config.json": {"max_seq_length": 8192, "do_lower_case": False},
        "1_Pooling/config.json": st_pooling(1024, "cls"),
    },
    "all-MiniLM-L6-v2": {
        "modules.json": ST_MODULES,
        "sentence_bert_config.json": {"max_seq_length": 256, "do_lower_case": False},
        "1_Pooling/config.json": st_pooling(384, "mean"),
    },
    "whisper-large-v3": {"preprocessor_config.json": WHISPER_PREPROCESSOR},
    "Llama-3.2-11B-Vision-Instruct": {
        "preprocessor_config.json": {
            "do_convert_rgb": True,
            "do_normalize": True,
            "do_pad": True,
            "do_rescale": True,
            "do_resize": True,
            "image_mean": [0.48145466, 0.4578275, 0.40821073],
            "image_processor_type": "MllamaImageProcessor",
            "image_std": [0.26862954, 0.26130258, 0.27577711],
            "max_image_tiles": 4,
            "resample": 2,
            "rescale_factor": 0.00392156862745098,
            "size": {"height": 560, "width": 560},
        }
    },
}

CORPUS = [
    "The quick brown fox jumps over the lazy dog.",
    "vLLM is a fast and easy-to-use library for LLM inference and serving.",
    "def main():\n    print('hello, world')\n",
    "Speculative decoding, tensor parallelism, prefix caching and chunked prefill.",
    "0123456789 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
] * 20


def build_tokenizer(out: Path, specials, bos, eos, chat_template, extra=None) -> None:
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
        **(extra or {}),
    }
    if chat_template is None:
        del cfg["chat_template"]
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
        if gen is not None:  # encoder-only models publish none
            (out / "generation_config.json").write_text(json.dumps(gen, indent=2) + "\n")
        build_tokenizer(out, specials, bos, eos, template, TOKENIZER_CONFIG.get(name))
        for fname, body in EXTRA_FILES.get(name, {}).items():
            (out / fname).parent.mkdir(parents=True, exist_ok=True)
            (out / fname).write_text(json.dumps(body, indent=2) + "\n")
        print(f"wrote stand-in model {out}")


if __name__ == "__main__":
    main(sys.argv[1])
