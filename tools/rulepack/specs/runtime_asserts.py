"""Checks vLLM makes with `assert` (or in its argument parser) while it builds the engine config: names
and endpoints in compilation_config, explicit CUDA-graph capture sizes, data-parallel launch modes, NIXL with
decode context parallelism, and the --config file type. The catalogs index these assert-sites like
raise-sites."""

from tools.rulepack.expr import CC, R, sub

GRAPHS = (
    "!(has(args.enforce_eager) && args.enforce_eager == true) && "
    f'(!{sub("compilation_config", "cudagraph_mode")} || !string({CC}.cudagraph_mode).matches("^(?i)none$")) '
    f'&& (!{sub("compilation_config", "mode")} || string({CC}.mode).matches("^(?i)(3|vllm_compile)$"))'
)
NIXL = (
    f"({sub('kv_transfer_config', 'kv_connector')} && "
    'args.kv_transfer_config.kv_connector == "NixlConnector")'
)
DCP = "(has(args.decode_context_parallel_size) && args.decode_context_parallel_size != null ? " + (
    "args.decode_context_parallel_size : 1)"
)
TP = "effective.tensor_parallel_size"
PCP = "(has(args.prefill_context_parallel_size) && args.prefill_context_parallel_size != null ? " + (
    "args.prefill_context_parallel_size : 1)"
)
TRANSFER = f"({TP} > {PCP} ? {TP} : {PCP})"
MLA = (
    "(has(model.config.kv_lora_rank) && model.config.kv_lora_rank != null) || "
    "(has(model.config.text_config) && has(model.config.text_config.kv_lora_rank) && "
    "model.config.text_config.kv_lora_rank != null)"
)
BAD_NAME = 'type(x) == string && x != "cudagraph_capture_sizes"'

RULES = [
    R(
        "cc-compile-sizes-unknown-name",
        "Unrecognized size type in compile_sizes, expect 'cudagraph_capture_sizes', got {x}",
        f"{sub('compilation_config', 'compile_sizes')} && {CC}.compile_sizes.exists(x, {BAD_NAME})",
        ["compilation_config"],
        ["Give compile_sizes as integers, or the name 'cudagraph_capture_sizes'"],
        "CompilationConfig.post_init_cudagraph_sizes (an assert, reached from "
        "VllmConfig._set_cudagraph_sizes): the only name compile_sizes accepts is 'cudagraph_capture_sizes'.",
        ["compilation"],
        values={"x": f"{CC}.compile_sizes.filter(x, {BAD_NAME})[0]"},
    ),
    R(
        "cc-compile-range-endpoint-positive",
        "Invalid compile range endpoint: {x}",
        f"{sub('compilation_config', 'compile_ranges_endpoints')} && "
        f"{CC}.compile_ranges_endpoints.exists(x, type(x) == int && x <= 0)",
        ["compilation_config"],
        ["Give compile_ranges_endpoints as positive token counts"],
        "VllmConfig._set_compile_ranges (an assert, run for every profile).",
        ["compilation"],
        values={"x": f"{CC}.compile_ranges_endpoints.filter(x, type(x) == int && x <= 0)[0]"},
    ),
    R(
        "cudagraph-capture-sizes-not-empty",
        "cudagraph_capture_sizes should contain at least one element when using cuda graph.",
        f"{GRAPHS} && {sub('compilation_config', 'cudagraph_capture_sizes')} && "
        f"size({CC}.cudagraph_capture_sizes) == 0",
        ["compilation_config"],
        [
            "List at least one size in cudagraph_capture_sizes, or remove it to let vLLM choose",
            "Use --enforce-eager (or cudagraph_mode NONE) to run without CUDA graphs",
        ],
        "VllmConfig._set_cudagraph_sizes (an assert), when CUDA graphs are used: not under --enforce-eager, "
        "cudagraph_mode not NONE.",
        ["compilation", "cudagraph"],
        fix={"unset": ["compilation_config.cudagraph_capture_sizes"]},
    ),
    R(
        "headless-no-hybrid-lb",
        "data_parallel_hybrid_lb is not applicable in headless mode",
        "has(args.headless) && args.headless == true && has(args.data_parallel_hybrid_lb) && "
        "args.data_parallel_hybrid_lb == true",
        ["headless", "data_parallel_hybrid_lb"],
        ["Remove --data-parallel-hybrid-lb from the headless nodes (it belongs to the API-server nodes)"],
        "vllm serve --headless refuses hybrid load balancing (entrypoints/cli/serve.py run_headless; "
        "EngineArgs.create_engine_config asserts the same).",
        ["data-parallel"],
        fix={"unset": ["data_parallel_hybrid_lb"]},
    ),
    R(
        "nixl-dcp-transfer-size",
        "decode_context_parallel_size={dcp_size} must be 1 or equal to the NIXL transfer parallel size",
        f"{NIXL} && {DCP} != 1 && {DCP} != {TRANSFER}",
        ["kv_transfer_config", "decode_context_parallel_size", "tensor_parallel_size"],
        ["Set --decode-context-parallel-size to 1 or to the tensor (or prefill context) parallel size"],
        "VllmConfig.__post_init__ (an assert) with the NixlConnector: a NIXL side is either fully "
        "replicated or fully DCP-sharded; the transfer size is max(tensor_parallel_size, "
        "prefill_context_parallel_size).",
        ["kv-transfer", "context-parallel"],
        values={"dcp_size": DCP, "transfer_tp_size": TRANSFER},
    ),
    R(
        "nixl-dcp-mla-only",
        "PD with decode_context_parallel_size > 1 is only supported for MLA models.",
        f"{NIXL} && {DCP} > 1 && {PCP} == 1 && {DCP} == {TP} && !({MLA})",
        ["kv_transfer_config", "decode_context_parallel_size"],
        ["Use --decode-context-parallel-size 1 with this model", "Use an MLA model (e.g. DeepSeek-V3)"],
        "VllmConfig.__post_init__ (an assert) with the NixlConnector: decode context parallelism across a "
        "prefill/decode split needs an MLA model (ModelConfig.use_mla: an MLA model_type with "
        "kv_lora_rank); a model whose config has no kv_lora_rank is never MLA.",
        ["kv-transfer", "context-parallel", "model-config"],
        needs=["model.config"],
        fix={"set": {"decode_context_parallel_size": 1}},
    ),
    R(
        "config-file-yaml",
        "Config file must be of a yaml/yml type. {extension} supplied",
        'has(args.config) && type(args.config) == string && args.config != "" && '
        '!args.config.matches("[.](yaml|yml)$")',
        ["config"],
        ["Give --config a .yaml or .yml file"],
        "FlexibleArgumentParser.load_config_file: the file's extension (the text after its last '.', case "
        "sensitive) must be yaml or yml.",
        ["cli"],
        values={"extension": '[args.config.split(".")].map(p, p[size(p) - 1])[0]'},
    ),
]

NIXL_CFG = {"kv_connector": "NixlConnector", "kv_role": "kv_both"}
DSV3 = {
    "name": "deepseek-ai/DeepSeek-V3",
    "architecture": "DeepseekV3ForCausalLM",
    "config": {"model_type": "deepseek_v3", "num_attention_heads": 128, "kv_lora_rank": 512},
}

CASES = {
    "cc-compile-sizes-unknown-name": (
        {"compilation_config": {"compile_sizes": [1, "max_num_seqs"]}},
        {"compilation_config": {"compile_sizes": [1, "cudagraph_capture_sizes"]}},
    ),
    "cc-compile-range-endpoint-positive": (
        {"compilation_config": {"compile_ranges_endpoints": [0, 512]}},
        {"compilation_config": {"compile_ranges_endpoints": [128, 512]}},
    ),
    "cudagraph-capture-sizes-not-empty": (
        {"compilation_config": {"cudagraph_capture_sizes": []}},
        {"compilation_config": {"cudagraph_capture_sizes": []}, "enforce_eager": True},
    ),
    "headless-no-hybrid-lb": (
        {"headless": True, "data_parallel_hybrid_lb": True, "data_parallel_size": 4},
        {"headless": True, "data_parallel_size": 4},
    ),
    "nixl-dcp-transfer-size": (
        {"kv_transfer_config": NIXL_CFG, "tensor_parallel_size": 8, "decode_context_parallel_size": 2},
        {"kv_transfer_config": NIXL_CFG, "tensor_parallel_size": 8, "decode_context_parallel_size": 8},
    ),
    "nixl-dcp-mla-only": (
        {"kv_transfer_config": NIXL_CFG, "tensor_parallel_size": 8, "decode_context_parallel_size": 8},
        {
            "args": {
                "kv_transfer_config": NIXL_CFG,
                "tensor_parallel_size": 8,
                "decode_context_parallel_size": 8,
            },
            "model": DSV3,
        },
    ),
    "config-file-yaml": ({"config": "serve.json"}, {"config": "serve.yaml"}),
}
