"""Kubernetes manifests and production-stack values read as the vLLM servers they start (no database)."""

import shlex

import pytest

from vllmcheck.engine import manifests
from vllmcheck.engine.types import ParseError


def one(text):
    workloads = manifests.extract(text)
    assert len(workloads) == 1, workloads
    return workloads[0]


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: teacher, namespace: ml}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.31.0
          args: ["meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel-size", "$(TP)", "--port", "$$(PORT)"]
          env:
            - {name: TP, value: "2"}
            - {name: VLLM_USE_V2_MODEL_RUNNER, value: "1"}
            - name: VLLM_API_KEY
              valueFrom: {secretKeyRef: {name: api, key: key}}
          resources: {limits: {nvidia.com/gpu: "2"}}
        - name: metrics-sidecar
          image: prom/statsd-exporter
"""


def test_deployment_container_becomes_a_serve_command_with_env_release_and_gpus():
    w = one(DEPLOYMENT)
    assert shlex.split(w.command) == [
        "vllm",
        "serve",
        "meta-llama/Llama-3.1-8B-Instruct",
        "--tensor-parallel-size",
        "2",
        "--port",
        "$(PORT)",
    ]
    assert w.env == {"TP": "2", "VLLM_USE_V2_MODEL_RUNNER": "1"}
    assert w.vllm_version == "0.31.0"
    assert w.hardware == {"gpus_per_node": 2}
    assert w.source == "Deployment/ml/teacher, container vllm"
    assert (w.line, w.column) == (8, 11)
    # the secret's value is not in the manifest: said, not dropped
    assert [n.message for n in w.notes] == [
        "env VLLM_API_KEY comes from a secretKeyRef: its value is not in the manifest, so the checks that "
        "read it cannot be verified"
    ]


def test_undefined_variable_reference_is_a_note_and_stays_literal():
    text = DEPLOYMENT.replace('"$(TP)"', '"$(NOPE)"')
    w = one(text)
    assert "$(NOPE)" in shlex.split(w.command)
    assert any("$(NOPE) is not defined" in n.message for n in w.notes)


def test_flag_positions_point_at_the_args_item():
    w = one(DEPLOYMENT)
    assert w.position_of(("--tensor-parallel-size", "-tp")) == (10, 54)  # the opening quote of the item


def test_shell_wrapper_finds_the_vllm_command_and_fills_variables():
    text = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: server
      image: python:3.12
      command: ["/bin/sh", "-c"]
      args:
        - |
          pip install vllm==0.33.0 && \\
          VLLM_LOGGING_LEVEL=DEBUG exec python3 -m vllm.entrypoints.openai.api_server --model $MODEL --max-num-seqs ${SEQS}
      env: [{name: MODEL, value: Qwen/Qwen2.5-7B-Instruct}]
"""
    w = one(text)
    assert shlex.split(w.command) == [
        "python3",
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        "Qwen/Qwen2.5-7B-Instruct",
        "--max-num-seqs",
        "${SEQS}",
    ]
    assert w.vllm_version is None  # python:3.12 says nothing about vLLM
    assert any("$SEQS" in n.message for n in w.notes)


def test_image_entrypoint_without_command_is_vllm_serve():
    text = """\
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers:
            - name: c
              image: docker.io/vllm/vllm-openai:v0.34.0
              args: [--model, facebook/opt-125m]
"""
    w = one(text)
    assert shlex.split(w.command) == ["vllm", "serve", "--model", "facebook/opt-125m"]
    assert w.vllm_version == "0.34.0"


def test_leader_worker_set_counts_nodes():
    text = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: big}
spec:
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
          - name: leader
            image: vllm/vllm-openai:v0.33.0
            command: [sh, -c, "ray start --head && vllm serve deepseek-ai/DeepSeek-V3 -tp 8 -pp 2"]
            resources: {limits: {nvidia.com/gpu: 8}}
    workerTemplate:
      spec:
        containers:
          - name: worker
            image: vllm/vllm-openai:v0.33.0
            command: [sh, -c, "ray start --block --address=$(LWS_LEADER_ADDRESS):6379"]
"""
    workloads = manifests.extract(text)
    assert len(workloads) == 1  # the worker runs Ray, not vLLM
    assert workloads[0].hardware == {"gpus_per_node": 8, "nodes": 2}
    assert workloads[0].source == "LeaderWorkerSet/big, leader container leader"


def test_kserve_runtime_and_non_vllm_model_server():
    text = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata: {name: vllm-runtime}
spec:
  containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.32.0
      args: ["--model", "/mnt/models", "--max-model-len", "4096"]
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: hf}
spec:
  predictor:
    model:
      modelFormat: {name: huggingface}
      args: ["--model_name=llama", "--model_id=meta-llama/Llama-3.1-8B-Instruct"]
"""
    runtime, service = manifests.extract(text)
    assert runtime.vllm_version == "0.32.0" and "--max-model-len" in runtime.command
    assert service.command == ""
    assert "is not `vllm serve`" in service.notes[0].message


def test_production_stack_values_give_one_profile_per_model_spec():
    text = """\
servingEngineSpec:
  modelSpec:
    - name: llama3
      repository: vllm/vllm-openai
      tag: v0.33.0
      modelURL: meta-llama/Llama-3.1-8B-Instruct
      requestGPU: 2
      vllmConfig:
        enableChunkedPrefill: false
        maxModelLen: 16384
        tensorParallelSize: 2
        extraArgs: ["--max-num-seqs", "64"]
        mystery: 1
      env: [{name: VLLM_USE_V2_MODEL_RUNNER, value: "1"}]
    - name: opt
      repository: lmcache/vllm-openai
      tag: latest
      modelURL: facebook/opt-125m
"""
    llama, opt = manifests.extract(text)
    assert shlex.split(llama.command) == [
        "vllm",
        "serve",
        "meta-llama/Llama-3.1-8B-Instruct",
        "--no-enable-chunked-prefill",
        "--no-enable-prefix-caching",
        "--max-model-len",
        "16384",
        "--tensor-parallel-size",
        "2",
        "--max-num-seqs",
        "64",
    ]
    assert llama.vllm_version == "0.33.0" and llama.hardware == {"gpus_per_node": 2}
    assert llama.env == {"VLLM_USE_V2_MODEL_RUNNER": "1"}
    assert [n.message for n in llama.notes] == [
        "modelSpec llama3: vllmConfig.mystery is not used by the chart's template"
    ]
    assert shlex.split(opt.command) == ["vllm", "serve", "facebook/opt-125m"]
    assert opt.vllm_version is None


def test_release_from_image_tags():
    assert manifests.release_from_image("vllm/vllm-openai:v0.33.0") == "0.33.0"
    assert manifests.release_from_image("registry.local:5000/mirror/vllm-openai:0.27.1-cu126") == "0.27.1"
    assert manifests.release_from_image("vllm/vllm-openai:latest") is None
    assert manifests.release_from_image("vllm/vllm-openai@sha256:abc") is None
    assert manifests.release_from_image("nginx:1.27.0") is None


def test_invalid_yaml_names_the_line():
    with pytest.raises(ParseError) as exc:
        manifests.extract("apiVersion: v1\nkind: Pod\nspec: [unclosed\n")
    assert "line 4" in str(exc.value) or "line 3" in str(exc.value)


def test_alias_bomb_is_refused_not_expanded():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    lines.append("apiVersion: v1\nkind: Pod\nspec: {containers: [{name: c, args: *a8}]}")
    with pytest.raises(ParseError) as exc:
        manifests.extract("\n".join(lines))
    assert "YAML nodes" in str(exc.value)


def test_other_yaml_is_no_manifest():
    assert not manifests.looks_like_manifest("model: x\ntensor-parallel-size: 2\n")
    assert manifests.looks_like_manifest("apiVersion: v1\nkind: ConfigMap\n")
    assert manifests.extract("apiVersion: v1\nkind: ConfigMap\ndata: {a: b}\n") == []
