"""Failing / passing profiles of the second-round rules (see gencases.py)."""

LLAMA = {
    "name": "meta-llama/Llama-3.1-8B-Instruct",
    "architecture": "LlamaForCausalLM",
    "config": {"num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 131072},
}
NG = {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}


def sp(**kw):
    d = dict(NG)
    d.update(kw)
    return {"speculative_config": d}


SYN = {"rejection_sample_method": "synthetic"}
PT = {"profiler": "torch", "torch_profiler_dir": "/tmp/prof"}
PP = {"profiler": "proton", "proton_profiler_dir": "/tmp/proton"}


def pc(**kw):
    return {"profiler_config": kw}


T2 = {
    "structured-outputs-any-whitespace-backend": (
        {"structured_outputs_config": {"disable_any_whitespace": True}},
        {"structured_outputs_config": {"backend": "xgrammar", "disable_any_whitespace": True}},
    ),
    "structured-outputs-additional-properties-backend": (
        {"structured_outputs_config": {"backend": "xgrammar", "disable_additional_properties": True}},
        {"structured_outputs_config": {"backend": "guidance", "disable_additional_properties": True}},
    ),
    "spec-synthetic-needs-rates-or-length": (sp(**SYN), sp(**SYN, synthetic_acceptance_length=2.5)),
    "spec-synthetic-rates-length": (
        sp(**SYN, synthetic_acceptance_rates=[0.9, 0.8]),
        sp(**SYN, synthetic_acceptance_rates=[0.9, 0.8, 0.7]),
    ),
    "spec-synthetic-rates-in-unit-interval": (
        sp(**SYN, synthetic_acceptance_rates=[1.2, 0.8, 0.5]),
        sp(**SYN, synthetic_acceptance_rates=[1, 0.8, 0.5]),
    ),
    "spec-synthetic-rates-non-increasing": (
        sp(**SYN, synthetic_acceptance_rates=[0.7, 0.8, 0.5]),
        sp(**SYN, synthetic_acceptance_rates=[0.8, 0.8, 0.5]),
    ),
    "spec-synthetic-length-range": (
        sp(**SYN, synthetic_acceptance_length=5),
        sp(**SYN, synthetic_acceptance_length=4),
    ),
    "spec-synthetic-options-need-synthetic": (
        sp(synthetic_acceptance_length=2.5),
        sp(**SYN, synthetic_acceptance_length=2.5),
    ),
    "profiler-torch-dir-only-for-torch": (pc(torch_profiler_dir="/tmp/prof"), pc(**PT)),
    "profiler-torch-requires-dir": (pc(profiler="torch"), pc(**PT)),
    "profiler-proton-requires-dir": (pc(profiler="proton"), pc(**PP)),
    "profiler-proton-options-only-for-proton": (pc(proton_profiler_dir="/tmp/proton"), pc(**PP)),
    "profiler-chrome-trace-requires-trace-data": (
        pc(**PP, proton_output_format="chrome_trace"),
        pc(**PP, proton_output_format="chrome_trace", proton_data="trace"),
    ),
    "profiler-graph-attribution-requires-tree": (
        pc(**PP, proton_graph_attribution=True, proton_data="trace"),
        pc(**PP, proton_graph_attribution=True),
    ),
    "profiler-graph-attribution-vs-periodic-flushing": (
        pc(**PP, proton_graph_attribution=True, proton_mode="periodic_flushing:format=hatchet"),
        pc(**PP, proton_graph_attribution=True),
    ),
    "profiler-capture-torch-only-for-torch": (
        pc(capture_torch_profiler=True),
        pc(**PT, capture_torch_profiler=True),
    ),
    "profiler-torch-activities-only-for-torch": (
        pc(torch_profiler_activities=["CUDA"]),
        pc(**PT, torch_profiler_activities=["CUDA"]),
    ),
    "profiler-torch-activities-unique": (
        pc(**PT, torch_profiler_activities=["CUDA", "CUDA"]),
        pc(**PT, torch_profiler_activities=["CPU", "CUDA"]),
    ),
}
T2.update(
    {
        "auto-tool-choice-requires-parser-0.20.0": (
            {"enable_auto_tool_choice": True},
            {"enable_auto_tool_choice": True, "tool_call_parser": "hermes"},
        ),
        "auto-tool-choice-requires-parser-0.29.0": (
            {"enable_auto_tool_choice": True},
            {"enable_auto_tool_choice": True, "tool_call_parser": "hermes"},
        ),
        "auto-tool-choice-requires-parser": (
            {"enable_auto_tool_choice": True},
            {"enable_auto_tool_choice": True, "tool_call_parser": "hermes"},
        ),
        "log-outputs-requires-log-requests-0.20.0": (
            {"enable_log_outputs": True},
            {"enable_log_outputs": True, "enable_log_requests": True},
        ),
        "log-outputs-requires-log-requests-0.29.0": (
            {"enable_log_outputs": True},
            {"enable_log_outputs": True, "enable_log_requests": True},
        ),
        "log-outputs-requires-log-requests": (
            {"enable_log_outputs": True},
            {"enable_log_outputs": True, "enable_log_requests": True},
        ),
        "per-request-metrics-require-log-stats-0.25.0": (
            {"enable_per_request_metrics": True, "disable_log_stats": True},
            {"enable_per_request_metrics": True},
        ),
        "per-request-metrics-require-log-stats-0.29.0": (
            {"enable_per_request_metrics": True, "disable_log_stats": True},
            {"enable_per_request_metrics": True},
        ),
        "per-request-metrics-require-log-stats": (
            {"enable_per_request_metrics": True, "disable_log_stats": True},
            {"enable_per_request_metrics": True},
        ),
        "sse-keep-alive-interval-non-negative-0.29.0": (
            {"sse_keep_alive_interval": -1},
            {"sse_keep_alive_interval": 15},
        ),
        "sse-keep-alive-interval-non-negative": (
            {"sse_keep_alive_interval": -1},
            {"sse_keep_alive_interval": 0},
        ),
        "headless-no-api-servers": ({"headless": True, "api_server_count": 2}, {"headless": True}),
        "dp-one-lb-mode-0.20": (
            {"data_parallel_size": 4, "data_parallel_rank": 0, "data_parallel_start_rank": 2},
            {"data_parallel_size": 4, "data_parallel_rank": 0},
        ),
        "dp-one-lb-mode": (
            {"data_parallel_size": 4, "data_parallel_hybrid_lb": True, "data_parallel_external_lb": True},
            {"data_parallel_size": 4, "data_parallel_hybrid_lb": True, "data_parallel_size_local": 2},
        ),
        "dp-rank-in-range": (
            {"data_parallel_size": 2, "data_parallel_rank": 2},
            {"data_parallel_size": 2, "data_parallel_rank": 1},
        ),
        "dbo-thresholds-cover-microbatches": (
            {"enable_dbo": True, "dbo_decode_token_threshold": 1},
            {"enable_dbo": True, "dbo_decode_token_threshold": 2},
        ),
        "dcp-a2a-requires-dcp": (
            {"dcp_comm_backend": "a2a"},
            {"dcp_comm_backend": "a2a", "tensor_parallel_size": 4, "decode_context_parallel_size": 2},
        ),
        "numa-bind-nodes-not-empty": (
            {"numa_bind": True, "numa_bind_nodes": []},
            {"numa_bind": True, "numa_bind_nodes": [0]},
        ),
        "numa-bind-nodes-non-negative": (
            {"numa_bind": True, "numa_bind_nodes": [-1, 0]},
            {"numa_bind": True, "numa_bind_nodes": [0, 1]},
        ),
        "async-eplb-communicator": (
            {"eplb_config": {"communicator": "torch_nccl"}},
            {"eplb_config": {"communicator": "torch_gloo"}},
        ),
        "ec-connector-requires-ec-role": (
            {"ec_transfer_config": {"ec_connector": "ECExampleConnector"}},
            {"ec_transfer_config": {"ec_connector": "ECExampleConnector", "ec_role": "ec_consumer"}},
        ),
        "ec-role-unsupported": (
            {"ec_transfer_config": {"ec_connector": "ECExampleConnector", "ec_role": "producer"}},
            {"ec_transfer_config": {"ec_connector": "ECExampleConnector", "ec_role": "ec_producer"}},
        ),
        "custom-ops-enable-and-disable": (
            {"compilation_config": {"custom_ops": ["+rms_norm", "-rms_norm"]}},
            {"compilation_config": {"custom_ops": ["+rms_norm", "-silu_and_mul"]}},
        ),
        "encoder-cudagraph-budgets-positive": (
            {"compilation_config": {"encoder_cudagraph_token_budgets": [1024, 0]}},
            {"compilation_config": {"encoder_cudagraph_token_budgets": [1024, 4096]}},
        ),
        "dp-external-lb-requires-rank": (
            {"data_parallel_external_lb": True},
            {"data_parallel_external_lb": True, "data_parallel_size": 2, "data_parallel_rank": 0},
        ),
        "dp-external-rank-requires-size-local-1": (
            {"data_parallel_size": 4, "data_parallel_rank": 0, "data_parallel_size_local": 2},
            {"data_parallel_size": 4, "data_parallel_rank": 0, "data_parallel_size_local": 1},
        ),
        "dp-hybrid-lb-requires-size-local": (
            {"data_parallel_size": 4, "data_parallel_hybrid_lb": True},
            {"data_parallel_size": 4, "data_parallel_hybrid_lb": True, "data_parallel_size_local": 2},
        ),
        "fault-tolerance-requires-external-lb": (
            {"enable_fault_tolerance": True, "data_parallel_size": 2},
            {"enable_fault_tolerance": True, "data_parallel_size": 2, "data_parallel_rank": 0},
        ),
    }
)
MIXTRAL = {
    "name": "mistralai/Mixtral-8x7B-Instruct-v0.1",
    "architecture": "MixtralForCausalLM",
    "config": {"num_attention_heads": 32, "num_key_value_heads": 8, "num_local_experts": 8},
}
T2.update(
    {
        "spec-ngram-lookup-min-le-max": (
            sp(prompt_lookup_min=5, prompt_lookup_max=2),
            sp(prompt_lookup_min=2, prompt_lookup_max=5),
        ),
        "spec-tokens-without-model": (
            {"speculative_config": {"method": "eagle3", "num_speculative_tokens": 3}},
            {
                "speculative_config": {
                    "method": "eagle3",
                    "model": "org/eagle3-draft",
                    "num_speculative_tokens": 3,
                }
            },
        ),
        "spec-custom-class-requires-model": (
            {"speculative_config": {"method": "custom_class", "num_speculative_tokens": 3}},
            {
                "speculative_config": {
                    "method": "custom_class",
                    "model": "my_module.MyProposer",
                    "num_speculative_tokens": 3,
                }
            },
        ),
        "spec-heterogeneous-vocab-requires-draft-model": (
            sp(use_heterogeneous_vocab=True),
            {
                "speculative_config": {
                    "method": "draft_model",
                    "model": "org/small",
                    "num_speculative_tokens": 3,
                    "use_heterogeneous_vocab": True,
                }
            },
        ),
        "spec-heterogeneous-vocab-greedy-only": (
            {
                "speculative_config": {
                    "method": "draft_model",
                    "model": "org/small",
                    "num_speculative_tokens": 3,
                    "use_heterogeneous_vocab": True,
                    "draft_sample_method": "probabilistic",
                }
            },
            {
                "speculative_config": {
                    "method": "draft_model",
                    "model": "org/small",
                    "num_speculative_tokens": 3,
                    "use_heterogeneous_vocab": True,
                }
            },
        ),
        "lora-spec-batched-token-budget": (
            {"enable_lora": True, "max_num_batched_tokens": 512, "max_num_seqs": 256, **sp()},
            {"enable_lora": True, "max_num_batched_tokens": 1024, "max_num_seqs": 256, **sp()},
        ),
        "mamba-ssu-algorithm-requires-flashinfer": (
            {"mamba_ssu_algorithm": "vertical"},
            {"mamba_ssu_algorithm": "vertical", "mamba_backend": "flashinfer"},
        ),
        "world-size-exceeds-node-gpus": (
            dict(
                args={"tensor_parallel_size": 16},
                hardware={"gpu": "H100-80GB", "gpus_per_node": 8, "nodes": 1},
            ),
            dict(
                args={"tensor_parallel_size": 8},
                hardware={"gpu": "H100-80GB", "gpus_per_node": 8, "nodes": 1},
            ),
        ),
        "dcp-gqa-requires-tp-above-kv-heads": (
            {"tensor_parallel_size": 4, "decode_context_parallel_size": 2},
            {"tensor_parallel_size": 16, "decode_context_parallel_size": 2},
        ),
    }
)

_EAGLE_PD = {"method": "eagle", "model": "org/eagle-draft", "num_speculative_tokens": 3}
T2.update(
    {
        "mrv2-forced-unsupported-features": (
            dict(
                args={"speculative_config": dict(_EAGLE_PD, parallel_drafting=True)},
                env={"VLLM_USE_V2_MODEL_RUNNER": "1"},
            ),
            dict(args={"speculative_config": _EAGLE_PD}, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
        ),
    }
)

_LLAMA31 = {
    "name": "meta-llama/Llama-3.1-8B-Instruct",
    "architecture": "LlamaForCausalLM",
    "config": {
        "model_type": "llama",
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8192},
    },
}
T2.update(
    {
        "max-model-len-above-derived": (
            dict(args={"max_model_len": 200000}, model=_LLAMA31),
            dict(args={"max_model_len": 131072}, model=_LLAMA31),
        ),
    }
)
