"""MultiModalConfig's checks (built only for a multimodal model: ModelConfig creates it when the model's
architecture supports multimodal inputs), default multimodal LoRAs on a text-only model, --mamba-backend
names, object-storage model paths and an explicit max_cudagraph_capture_size.

The product cannot ask vLLM's model registry whether an architecture is multimodal, so the rules decide only
where the model's config.json says so plainly: a *ForConditionalGeneration architecture with a vision or audio
config is multimodal; a *ForCausalLM architecture without either is not. Other models are not judged."""

from tools.rulepack.expr import CC, A, R, sub

MM_KEYS = ("vision_config", "audio_config")
MM = (
    '(model.architecture.endsWith("ForConditionalGeneration") && ('
    + " || ".join(f"has(model.config.{k})" for k in MM_KEYS)
    + "))"
)
TEXT_ONLY = (
    '(model.architecture.endsWith("ForCausalLM") && '
    + " && ".join(f"!has(model.config.{k})" for k in MM_KEYS)
    + ")"
)
CACHE_TYPE = '(has(args.mm_processor_cache_type) ? args.mm_processor_cache_type : "lru")'
ATTN_DTYPE = "(has(args.mm_encoder_attn_dtype) ? args.mm_encoder_attn_dtype : null)"
SCALE, SAVE = A("mm_encoder_fp8_scale_path"), A("mm_encoder_fp8_scale_save_path")
TORCH_SHM = 'has(args.mm_tensor_ipc) && args.mm_tensor_ipc == "torch_shm"'


def eff(name):
    return f"(has(args.{name}) && args.{name} != null ? args.{name} : 1)"


WORLD = (
    f"{eff('tensor_parallel_size')} * {eff('pipeline_parallel_size')} * "
    f"{eff('prefill_context_parallel_size')} * {eff('data_parallel_size')}"
)
GRAPHS = (
    "!(has(args.enforce_eager) && args.enforce_eager == true) && "
    f'(!{sub("compilation_config", "cudagraph_mode")} || !string({CC}.cudagraph_mode).matches("^(?i)none$")) '
    f'&& (!{sub("compilation_config", "mode")} || string({CC}.mode).matches("^(?i)(3|vllm_compile)$"))'
)
OBJ = '(model.name.matches("^(?i)(s3|gs|az)://"))'
MB = "args.mamba_backend"


def mamba_rule(rid, names, rng, narrowed):
    listed = ", ".join(names)
    return R(
        rid,
        "Unknown Mamba SSU backend: '{name}'. Valid options are: {valid}",
        f'{A("mamba_backend")} && type({MB}) == string && !{MB}.matches("^(?i)({"|".join(names)})$")',
        ["mamba_backend"],
        [f"Use --mamba-backend {' or '.join(n.lower() for n in names)}"],
        "EngineArgs.create_engine_config looks the upper-cased --mamba-backend up in MambaBackendEnum "
        f"(members {listed} in these releases); the argument has no argparse choices.",
        ["mamba"],
        range=rng,
        narrowed=narrowed,
        values={"name": f"{MB}.upperAscii()", "valid": f'"{listed}"'},
        fix={"unset": ["mamba_backend"]},
    )


RULES = [
    R(
        "mm-encoder-xformers-removed",
        "Attention backend 'XFORMERS' has been removed (See PR #29262 for details).",
        f"{MM} && {A('mm_encoder_attn_backend')} && type(args.mm_encoder_attn_backend) == string && "
        'args.mm_encoder_attn_backend.matches("^(?i)xformers$")',
        ["mm_encoder_attn_backend"],
        ["Remove --mm-encoder-attn-backend to let vLLM choose, or name a supported backend"],
        "MultiModalConfig field validator (any case of 'xformers').",
        ["multimodal", "attention-backend"],
        needs=["model.config"],
        fix={"unset": ["mm_encoder_attn_backend"]},
    ),
    R(
        "mm-shm-object-size-needs-shm-cache",
        "'mm_shm_cache_max_object_size_mb' should only be set when 'mm_processor_cache_type' is 'shm'.",
        f"{MM} && {A('mm_shm_cache_max_object_size_mb')} && args.mm_shm_cache_max_object_size_mb != 128 && "
        f'{CACHE_TYPE} != "shm"',
        ["mm_shm_cache_max_object_size_mb", "mm_processor_cache_type"],
        ["Add --mm-processor-cache-type shm", "Remove --mm-shm-cache-max-object-size-mb"],
        "MultiModalConfig model validator: a value other than the default 128 MiB needs the shared-memory "
        "processor cache (the default cache type is 'lru').",
        ["multimodal"],
        needs=["model.config"],
        fix={"set": {"mm_processor_cache_type": "shm"}},
    ),
    R(
        "mm-fp8-scale-needs-fp8-attn",
        "'mm_encoder_fp8_scale_path' and 'mm_encoder_fp8_scale_save_path' require 'mm_encoder_attn_dtype'",
        f'{MM} && ({SCALE} || {SAVE}) && {ATTN_DTYPE} != "fp8"',
        ["mm_encoder_fp8_scale_path", "mm_encoder_fp8_scale_save_path", "mm_encoder_attn_dtype"],
        ["Add --mm-encoder-attn-dtype fp8", "Remove the FP8 scale paths"],
        "MultiModalConfig model validator.",
        ["multimodal", "fp8"],
        needs=["model.config"],
        fix={"set": {"mm_encoder_attn_dtype": "fp8"}},
    ),
    R(
        "mm-fp8-scale-save-and-load",
        "'mm_encoder_fp8_scale_save_path' cannot be used with 'mm_encoder_fp8_scale_path'",
        f'{MM} && {SCALE} && {SAVE} && {ATTN_DTYPE} == "fp8"',
        ["mm_encoder_fp8_scale_path", "mm_encoder_fp8_scale_save_path"],
        ["Give only one of the FP8 scale paths: saving scales needs dynamic scaling"],
        "MultiModalConfig model validator, after the FP8 attention dtype check.",
        ["multimodal", "fp8"],
        needs=["model.config"],
        fix={"unset": ["mm_encoder_fp8_scale_path"]},
    ),
    R(
        "mm-tensor-ipc-torch-shm-single-process",
        "mm_tensor_ipc='torch_shm' is not supported with data_parallel_size > 1",
        f"{MM} && {TORCH_SHM} && {WORLD} > 1",
        ["mm_tensor_ipc", "tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size"],
        ["Use --mm-tensor-ipc direct_rpc with more than one GPU process"],
        "ModelConfig.verify_with_parallel_config: torch_shm needs a single process (world size across data "
        "parallel ranks of 1: tensor x pipeline x prefill context x data parallel sizes).",
        ["multimodal", "parallelism"],
        needs=["model.config"],
        fix={"set": {"mm_tensor_ipc": "direct_rpc"}},
    ),
    R(
        "mm-tensor-ipc-torch-shm-needs-spawn",
        "torch_shm is known to fail without VLLM_WORKER_MULTIPROC_METHOD set to spawn",
        f"{MM} && {TORCH_SHM} && {WORLD} == 1 && !(has(env.VLLM_WORKER_MULTIPROC_METHOD) && "
        'env.VLLM_WORKER_MULTIPROC_METHOD == "spawn")',
        ["mm_tensor_ipc", "env.VLLM_WORKER_MULTIPROC_METHOD"],
        ["Set VLLM_WORKER_MULTIPROC_METHOD=spawn", "Use --mm-tensor-ipc direct_rpc"],
        "VllmConfig.__post_init__ (after ModelConfig's parallelism check).",
        ["multimodal", "environment"],
        needs=["model.config"],
    ),
    R(
        "default-mm-loras-text-only-model",
        "Default modality-specific LoRA(s) were provided for a non multimodal model",
        f"{TEXT_ONLY} && {A('default_mm_loras')} && size(args.default_mm_loras) > 0",
        ["default_mm_loras"],
        ["Remove --default-mm-loras: the model takes no images or audio"],
        "EngineArgs.create_engine_config. The model counts as text-only when its architecture is a "
        "*ForCausalLM and its config has no vision or audio config.",
        ["lora", "multimodal"],
        needs=["model.config"],
        fix={"unset": ["default_mm_loras"]},
    ),
    R(
        "load-format-object-storage",
        "To load a model from object storage (S3/GCS/Azure), 'load_format' must be 'modelexpress'",
        f"{OBJ} && {A('load_format')} && "
        '!(args.load_format in ["auto", "modelexpress", "runai_streamer", "runai_streamer_sharded"])',
        ["load_format"],
        ["Use --load-format runai_streamer (or leave it 'auto', which vLLM turns into runai_streamer)"],
        "VllmConfig.__post_init__: a model path under s3://, gs:// or az:// is streamed with Run:ai; "
        "load_format 'auto' is switched to runai_streamer, any other format is refused.",
        ["model-loading"],
        values={"self.load_config.load_format": "args.load_format", "self.model_config.model": "model.name"},
        fix={"set": {"load_format": "runai_streamer"}},
    ),
    mamba_rule(
        "mamba-backend-unknown-0.20.0",
        ["TRITON", "FLASHINFER"],
        ["0.20.0", "0.26.0"],
        "0.27.0 adds the CPU backend: 'cpu' is refused only before it",
    ),
    mamba_rule(
        "mamba-backend-unknown",
        ["TRITON", "FLASHINFER", "CPU"],
        ["0.27.0", None],
        "0.26.0 and earlier have no CPU backend: 'cpu' is refused there by the older rule",
    ),
    R(
        "max-cudagraph-capture-size-positive",
        "Maximum cudagraph size should be greater than or equal to 1 when using cuda graph.",
        f"{GRAPHS} && {sub('compilation_config', 'max_cudagraph_capture_size')} && "
        f"{CC}.max_cudagraph_capture_size < 1",
        ["compilation_config"],
        [
            "Give max_cudagraph_capture_size 1 or more, or remove it",
            "Use --enforce-eager to run without graphs",
        ],
        "VllmConfig._set_cudagraph_sizes (an assert) when CUDA graphs are used.",
        ["compilation", "cudagraph"],
        fix={"unset": ["compilation_config.max_cudagraph_capture_size"]},
    ),
]

GEMMA3 = {
    "name": "google/gemma-3-27b-it",
    "architecture": "Gemma3ForConditionalGeneration",
    "config": {"vision_config": {"hidden_size": 1152}, "text_config": {"num_attention_heads": 32}},
}


def mm(args, env=None):
    out = {"args": args, "model": GEMMA3}
    if env:
        out["env"] = env
    return out


SPAWN = {"VLLM_WORKER_MULTIPROC_METHOD": "spawn"}
S3 = {
    "name": "s3://bucket/llama-3.1-8b",
    "architecture": "LlamaForCausalLM",
    "config": {"num_attention_heads": 32},
}

CASES = {
    "mm-encoder-xformers-removed": (
        mm({"mm_encoder_attn_backend": "xformers"}),
        mm({"mm_encoder_attn_backend": "FLASH_ATTN"}),
    ),
    "mm-shm-object-size-needs-shm-cache": (
        mm({"mm_shm_cache_max_object_size_mb": 256}),
        mm({"mm_shm_cache_max_object_size_mb": 256, "mm_processor_cache_type": "shm"}),
    ),
    "mm-fp8-scale-needs-fp8-attn": (
        mm({"mm_encoder_fp8_scale_path": "/scales.json"}),
        mm({"mm_encoder_fp8_scale_path": "/scales.json", "mm_encoder_attn_dtype": "fp8"}),
    ),
    "mm-fp8-scale-save-and-load": (
        mm(
            {
                "mm_encoder_fp8_scale_path": "/a.json",
                "mm_encoder_fp8_scale_save_path": "/b.json",
                "mm_encoder_attn_dtype": "fp8",
            }
        ),
        mm({"mm_encoder_fp8_scale_save_path": "/b.json", "mm_encoder_attn_dtype": "fp8"}),
    ),
    "mm-tensor-ipc-torch-shm-single-process": (
        mm({"mm_tensor_ipc": "torch_shm", "tensor_parallel_size": 2}, SPAWN),
        mm({"mm_tensor_ipc": "torch_shm"}, SPAWN),
    ),
    "mm-tensor-ipc-torch-shm-needs-spawn": (
        mm({"mm_tensor_ipc": "torch_shm"}),
        mm({"mm_tensor_ipc": "torch_shm"}, SPAWN),
    ),
    "default-mm-loras-text-only-model": (
        {"enable_lora": True, "default_mm_loras": {"image": "org/vision-lora"}},
        {"enable_lora": True},
    ),
    "load-format-object-storage": (
        {"args": {"load_format": "safetensors"}, "model": S3},
        {"args": {"load_format": "runai_streamer"}, "model": S3},
    ),
    "mamba-backend-unknown-0.20.0": ({"mamba_backend": "cpu"}, {"mamba_backend": "flashinfer"}),
    "mamba-backend-unknown": ({"mamba_backend": "mamba2"}, {"mamba_backend": "cpu"}),
    "max-cudagraph-capture-size-positive": (
        {"compilation_config": {"max_cudagraph_capture_size": 0}},
        {"compilation_config": {"max_cudagraph_capture_size": 0}, "enforce_eager": True},
    ),
}
