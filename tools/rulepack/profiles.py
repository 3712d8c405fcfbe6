"""Profiles shared by the rules' test cases (the CASES of tools/rulepack/specs/*): a case is a pair (failing
profile, passing profile); a profile is the args alone, or a dict with args / env / model / kind / hardware.
The model defaults to LLAMA (see cases.py)."""

LLAMA = {
    "name": "meta-llama/Llama-3.1-8B-Instruct",
    "architecture": "LlamaForCausalLM",
    "config": {"num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 131072},
}
MIXTRAL = {
    "name": "mistralai/Mixtral-8x7B-Instruct-v0.1",
    "architecture": "MixtralForCausalLM",
    "config": {"num_attention_heads": 32, "num_local_experts": 8},
}
HIS = {"attention_config": {"hisparse_config": {"topk": 2048}}}
ADAPT = {
    "speculative_config": {
        "method": "dspark",
        "num_speculative_tokens": 7,
        "enable_adaptive_verification": True,
    }
}
SPEC_EAGLE = {
    "speculative_config": {
        "method": "eagle",
        "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
        "num_speculative_tokens": 3,
    }
}
NGRAM = {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}
NG = NGRAM
RSM_ARGS = {"return_sampling_mask": True, "logprobs_mode": "processed_logprobs"}
SYN_ARGS = {"rejection_sample_method": "synthetic"}
PT = {"profiler": "torch", "torch_profiler_dir": "/tmp/prof"}
PP = {"profiler": "proton", "proton_profiler_dir": "/tmp/proton"}


def m(*ds):  # merge dicts
    out = {}
    for d in ds:
        out.update(d)
    return out


def sp(**kw):  # an ngram speculative config with extra keys
    d = dict(NG)
    d.update(kw)
    return {"speculative_config": d}


def pc(**kw):  # a profiler config
    return {"profiler_config": kw}
