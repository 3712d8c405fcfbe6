"""What a model's architecture supports, read from each release's model registry
(vllm/model_executor/models/registry.py and the model classes' interfaces): the runner of a pooling-only
(encoder-only embedding) model, pipeline parallelism, LoRA. Found by the conformance harness on real vLLM
(benchmarks/conformance/cases/models3.yaml: BAAI/bge-m3, sentence-transformers/all-MiniLM-L6-v2,
openai/whisper-large-v3, state-spaces/mamba-2.8b-hf). Only architectures whose class was read in every release
of a rule's range are listed: an architecture missing here gives no finding."""

from tools.rulepack.expr import POOLING_ENCODER_ARCHS, A, R, q

# Encoder-only embedding models and cross-encoders, in every release 0.20.0-0.34.0: BertModel ->
# bert.BertEmbeddingModel; RobertaModel, XLMRobertaModel -> roberta.RobertaEmbeddingModel (a
# BertEmbeddingModel); BertForSequenceClassification -> bert.BertForSequenceClassification;
# (XLM)RobertaForSequenceClassification -> roberta.RobertaForSequenceClassification. Pooling models
# (is_pooling_model) that are not text-generation models (no compute_logits), without SupportsPP (real vLLM
# 0.20.0, 0.27.1 and 0.34.0 refuse --runner generate and -pp 2 for BAAI/bge-m3, all-MiniLM-L6-v2 and
# BAAI/bge-reranker-v2-m3).
POOLING_ONLY = POOLING_ENCODER_ARCHS
# Classes without the SupportsPP interface in every release 0.20.0-0.34.0 (registry.is_pp_supported_model):
# the encoder-only embedding models above and whisper.WhisperForConditionalGeneration.
NO_PP = [*POOLING_ONLY, "WhisperForConditionalGeneration"]
# Classes without SupportsLoRA in 0.33.0-0.34.0 (ModelConfig.is_lora_supported): mamba.MambaForCausalLM (also
# registered for FalconMambaForCausalLM) and mamba2.Mamba2ForCausalLM.
NO_LORA = ["MambaForCausalLM", "FalconMambaForCausalLM", "Mamba2ForCausalLM"]

_ARCH = "has(model.architecture)"
# vLLM's own model classes (the registry): --model-impl transformers (or terratorch) loads another class.
_VLLM_IMPL = f'(!{A("model_impl")} || args.model_impl in ["auto", "vllm"])'
_RUNNER_GENERATE = (
    f'{A("runner")} && args.runner == "generate" && {_ARCH} && model.architecture in {q(POOLING_ONLY)} && '
    f'{_VLLM_IMPL} && (!{A("convert")} || args.convert in ["auto", "none"])'
)

RULES = [
    R(
        "pooling-model-runner-generate",
        "Embedding models do not support `--runner",
        _RUNNER_GENERATE,
        ["runner", "model"],
        ["Use --runner pooling (or auto) for an embedding model", "Serve a generative model"],
        (
            "ModelConfig.__post_init__: a pooling model that is not a text-generation model (the model "
            "registry's class for the architecture) cannot run with --runner generate. Checked for the "
            f"encoder-only embedding and cross-encoder architectures {', '.join(POOLING_ONLY)}."
        ),
        ["model", "pooling"],
        needs=["model.architecture"],
        fix={"unset": ["runner"]},
        values={"self.runner_type": '"generate"'},
    ),
    R(
        "pooling-model-runner-generate-0.20",
        "This model does not support `--runner generate`.",
        _RUNNER_GENERATE,
        ["runner", "model"],
        ["Use --runner pooling (or auto) for an embedding model", "Serve a generative model"],
        (
            "ModelConfig.__post_init__ (0.20.0-0.21.0): a model that is not a text-generation model cannot "
            "run with --runner generate (no convert adapts one into it). Checked for the encoder-only "
            f"embedding and cross-encoder architectures {', '.join(POOLING_ONLY)}."
        ),
        ["model", "pooling"],
        range=[None, "0.21.0"],
        narrowed=(
            "0.22.0+ raise this text only for a model that is neither generative nor pooling: for a "
            "pooling-only model the 'Embedding models do not support' check comes first"
        ),
        needs=["model.architecture"],
        fix={"unset": ["runner"]},
    ),
    R(
        "pp-unsupported-model",
        "Pipeline parallelism is not supported for this model.",
        (
            f"effective.pipeline_parallel_size > 1 && {_ARCH} && model.architecture in {q(NO_PP)} && "
            f"{_VLLM_IMPL}"
        ),
        ["pipeline_parallel_size", "model"],
        [
            "Remove --pipeline-parallel-size (use tensor or data parallelism)",
            "Serve a model whose class supports pipeline parallelism",
        ],
        (
            "ModelConfig.verify_with_parallel_config: pipeline_parallel_size > 1 needs a model class that "
            "implements SupportsPP (registry.is_pp_supported_model). Checked for the architectures "
            f"{', '.join(NO_PP)}."
        ),
        ["parallelism", "model"],
        needs=["model.architecture"],
        fix={"unset": ["pipeline_parallel_size"]},
    ),
    R(
        "lora-unsupported-model",
        "Supported models implement the `SupportsLoRA` interface",
        f"{A('enable_lora')} && args.enable_lora == true && {_ARCH} && model.architecture in {q(NO_LORA)} && "
        f"{_VLLM_IMPL}",
        ["enable_lora", "model"],
        ["Remove --enable-lora", "Serve a model whose class supports LoRA"],
        (
            "LoRAConfig.verify_with_model_config (0.33.0+): LoRA needs a model class that implements "
            "SupportsLoRA (ModelConfig.is_lora_supported). Checked for the architectures "
            f"{', '.join(NO_LORA)}."
        ),
        ["lora", "model"],
        needs=["model.architecture"],
        fix={"unset": ["enable_lora"]},
        values={"model_config.architecture": "model.architecture", "model_config.model": "model.name"},
    ),
]

_BGE = {"name": "BAAI/bge-m3", "architecture": "XLMRobertaModel", "config": {"model_type": "xlm-roberta"}}
_WHISPER = {
    "name": "openai/whisper-large-v3",
    "architecture": "WhisperForConditionalGeneration",
    "config": {"model_type": "whisper", "encoder_attention_heads": 20, "max_target_positions": 448},
}
_MAMBA = {
    "name": "state-spaces/mamba-2.8b-hf",
    "architecture": "MambaForCausalLM",
    "config": {"model_type": "mamba"},
}

CASES = {
    "pooling-model-runner-generate": (
        {"model": _BGE, "args": {"runner": "generate"}},
        {"model": _BGE, "args": {"runner": "pooling"}},
    ),
    "pooling-model-runner-generate-0.20": (
        {"model": _BGE, "args": {"runner": "generate"}},
        {"model": _BGE, "args": {"runner": "auto"}},
    ),
    "pp-unsupported-model": (
        {"model": _WHISPER, "args": {"pipeline_parallel_size": 2}},
        {"model": _WHISPER, "args": {"tensor_parallel_size": 2}},
    ),
    "lora-unsupported-model": (
        {"model": _MAMBA, "args": {"enable_lora": True}},
        {"model": _MAMBA, "args": {"enforce_eager": True}},
    ),
}
