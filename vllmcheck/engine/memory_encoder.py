"""The multimodal encoder's share of vLLM's profile run (v1 engine, 0.8 on; plain Python, no Django).

``GPUModelRunner.profile_run`` (read in 0.8.5 and 0.11.0) first runs the vision encoder on a dummy batch of
items of the maximum feature size, expands its outputs to the encoder budget and keeps them in
``encoder_cache["tmp"]`` while the model's dummy forward and the dummy sampler run: the torch peak holds
``encoder budget x the language model's hidden size`` of encoder outputs besides the forward's. The budget
(``compute_mm_encoder_budget``) is the larger of ``max_num_batched_tokens`` and the tokens of the largest
item (``get_max_tokens_per_item_by_modality``, at most ``max_model_len``). Not counted: the encoder's own
activations while it runs (before the forward, so they peak only when larger than the forward's), and
nothing for a model whose modalities ``--limit-mm-per-prompt`` all sets to 0 or with
``--skip-mm-profiling``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Qwen2-VL's image processor's default max_pixels (12845056 = 16384 x 28 x 28): 16384 tokens per image of
# 14-pixel patches merged 2 x 2.
_QWEN_VL_MAX_PIXELS = 12845056


def max_tokens_per_item(config: Mapping[str, Any]) -> int:
    """The tokens the largest image gives, where the config says it (Gemma 3's mm_tokens_per_image, the
    Qwen2-VL family's patch and merge sizes at the processor's default max_pixels), else 0."""
    fixed = config.get("mm_tokens_per_image")
    if isinstance(fixed, int) and fixed > 0:
        return fixed
    vision = config.get("vision_config") or {}
    arch = " ".join(config.get("architectures") or [])
    if "Qwen2" in arch and "VL" in arch:
        patch = int(vision.get("patch_size") or 14)
        merge = int(vision.get("spatial_merge_size") or 2)
        return _QWEN_VL_MAX_PIXELS // (patch * patch * merge * merge)
    return 0


def encoder_cache_bytes(
    config: Mapping[str, Any], args: Mapping[str, Any], batched: int, max_model_len: int, hidden: int
) -> int:
    """Bytes of dummy encoder outputs the profile run holds through the forward (16-bit activations)."""
    if not isinstance(config.get("vision_config"), Mapping) or args.get("skip_mm_profiling"):
        return 0
    limits = args.get("limit_mm_per_prompt")
    if isinstance(limits, Mapping) and limits and not any(v for v in limits.values() if isinstance(v, int)):
        return 0
    budget = max(batched, min(max_tokens_per_item(config), max_model_len))
    return budget * hidden * 2
