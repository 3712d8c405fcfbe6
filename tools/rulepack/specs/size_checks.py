"""Sizes vLLM cross-checks while it builds the engine config: explicit CUDA-graph capture sizes against an
explicit max_cudagraph_capture_size, the KV block size against the context-parallel interleave size, and the
renderer workers of a multimodal model with the processor cache on."""

from tools.rulepack.expr import CC, A, R, sub
from tools.rulepack.specs.multimodal_args import MM

GRAPHS = (
    "!(has(args.enforce_eager) && args.enforce_eager == true) && "
    f'(!{sub("compilation_config", "cudagraph_mode")} || !string({CC}.cudagraph_mode).matches("^(?i)none$")) '
    f'&& (!{sub("compilation_config", "mode")} || string({CC}.mode).matches("^(?i)(3|vllm_compile)$"))'
)
SIZES = f"{CC}.cudagraph_capture_sizes"
MCS = f"{CC}.max_cudagraph_capture_size"
LARGEST = f"{SIZES}.filter(s, {SIZES}.all(t, t <= s))[0]"
# vLLM drops the capture sizes above max_num_batched_tokens, which it resolves at start-up when not given; a
# profile without it is judged only where every size is at most 2048 (below every release's default)
MNBT = (
    "(has(args.max_num_batched_tokens) && args.max_num_batched_tokens != null ? "
    "args.max_num_batched_tokens : 2048)"
)
BOTH = (
    f"{sub('compilation_config', 'cudagraph_capture_sizes')} && size({SIZES}) > 0 && "
    f"{SIZES}.all(s, type(s) == int) && {sub('compilation_config', 'max_cudagraph_capture_size')} && "
    f"{MCS} >= 1 && {SIZES}.all(s, s <= {MNBT})"
)
DCP = "(has(args.decode_context_parallel_size) && args.decode_context_parallel_size != null ? " + (
    "args.decode_context_parallel_size : 1)"
)
BS, IL = "args.block_size", "args.cp_kv_cache_interleave_size"
WORKERS = (
    "(has(args.renderer_num_workers) && args.renderer_num_workers != null ? args.renderer_num_workers : 1)"
)
CACHE_GB = (
    "(has(args.mm_processor_cache_gb) && args.mm_processor_cache_gb != null ? args.mm_processor_cache_gb : 4)"
)
NOT_ENC_DEC = "!(has(model.config.is_encoder_decoder) && model.config.is_encoder_decoder == true)"
RENDER = f"{MM} && {NOT_ENC_DEC} && {WORKERS} > 1 && {CACHE_GB} > 0"
POOLING = 'has(args.runner) && args.runner == "pooling"'

RULES = [
    R(
        "cudagraph-max-size-matches-sizes",
        "should be consistent with the max value of cudagraph_capture_sizes",
        f"{GRAPHS} && {BOTH} && {MCS} != {LARGEST}",
        ["compilation_config"],
        [
            "Give only cudagraph_capture_sizes (vLLM takes their largest as the maximum)",
            "Make max_cudagraph_capture_size the largest of cudagraph_capture_sizes",
        ],
        "VllmConfig._set_cudagraph_sizes: when both are given, the maximum must be the largest capture size "
        "(after dropping sizes above max_num_batched_tokens).",
        ["compilation", "cudagraph"],
        values={"self.compilation_config.max_cudagraph_capture_size": MCS, "valid_max_size": LARGEST},
        fix={"unset": ["compilation_config.max_cudagraph_capture_size"]},
    ),
    R(
        "block-size-cp-interleave",
        "should be greater than or equal to and divisible by cp_kv_cache_interleave_size",
        f"{DCP} > 1 && !{A('kv_transfer_config')} && {A('block_size')} && "
        f"{A('cp_kv_cache_interleave_size')} && "
        f"!(has(args.dcp_kv_cache_interleave_size) && args.dcp_kv_cache_interleave_size != null && "
        f"args.dcp_kv_cache_interleave_size > 1) && {IL} > 0 && ({IL} > {BS} || {BS} % {IL} != 0)",
        ["block_size", "cp_kv_cache_interleave_size", "decode_context_parallel_size"],
        ["Use a --block-size that is a multiple of --cp-kv-cache-interleave-size"],
        "VllmConfig (an assert) with decode context parallelism and no KV transfer: the interleave size must "
        "divide the block size.",
        ["context-parallel", "kv-cache"],
        values={"block_size": BS, "self.parallel_config.cp_kv_cache_interleave_size": IL},
    ),
    R(
        "renderer-workers-mm-cache-0.20.0",
        "Cannot use --renderer-num-workers > 1 with the multimodal processor cache enabled. The cache",
        RENDER,
        ["renderer_num_workers", "mm_processor_cache_gb"],
        ["Set --renderer-num-workers 1", "Disable the cache with --mm-processor-cache-gb 0"],
        "ModelConfig.__post_init__ for a multimodal model: the processor cache is not thread-safe.",
        ["multimodal"],
        needs=["model.config"],
        fix={"set": {"mm_processor_cache_gb": 0}},
    ),
    R(
        "renderer-workers-mm-cache-pooling",
        "Cannot use --renderer-num-workers > 1 with the multimodal processor cache enabled for pooling "
        "models.",
        f"{RENDER} && {POOLING}",
        ["renderer_num_workers", "mm_processor_cache_gb", "runner"],
        ["Set --renderer-num-workers 1", "Disable the cache with --mm-processor-cache-gb 0"],
        "ModelConfig.__post_init__ for a multimodal model run as a pooling model (--runner pooling): pooling "
        "preprocessing runs on the renderer workers and the cache is not thread-safe.",
        ["multimodal", "pooling"],
        needs=["model.config"],
        fix={"set": {"mm_processor_cache_gb": 0}},
    ),
]

GEMMA3 = {
    "name": "google/gemma-3-27b-it",
    "architecture": "Gemma3ForConditionalGeneration",
    "config": {"vision_config": {"hidden_size": 1152}, "text_config": {"num_attention_heads": 32}},
}

CASES = {
    "cudagraph-max-size-matches-sizes": (
        {"compilation_config": {"cudagraph_capture_sizes": [1, 2, 4, 8], "max_cudagraph_capture_size": 16}},
        {"compilation_config": {"cudagraph_capture_sizes": [1, 2, 4, 8], "max_cudagraph_capture_size": 8}},
    ),
    "block-size-cp-interleave": (
        {"decode_context_parallel_size": 2, "block_size": 16, "cp_kv_cache_interleave_size": 32},
        {"decode_context_parallel_size": 2, "block_size": 64, "cp_kv_cache_interleave_size": 32},
    ),
    "renderer-workers-mm-cache-0.20.0": (
        {"args": {"renderer_num_workers": 4}, "model": GEMMA3},
        {"args": {"renderer_num_workers": 4, "mm_processor_cache_gb": 0}, "model": GEMMA3},
    ),
    "renderer-workers-mm-cache-pooling": (
        {"args": {"renderer_num_workers": 4, "runner": "pooling"}, "model": GEMMA3},
        {
            "args": {"renderer_num_workers": 4, "runner": "pooling", "mm_processor_cache_gb": 0},
            "model": GEMMA3,
        },
    ),
}
