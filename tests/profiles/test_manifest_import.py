"""Profiles from Kubernetes manifests and production-stack values, and back (API, PostgreSQL)."""

from __future__ import annotations

import shlex

import yaml

from profiles.models import Profile
from vllmcheck.engine import manifests

STACK_VALUES = """\
servingEngineSpec:
  runtimeClassName: ""
  modelSpec:
  - name: "llama3"
    repository: "vllm/vllm-openai"
    tag: "v0.33.0"
    modelURL: "meta-llama/Llama-3.1-8B-Instruct"
    replicaCount: 2
    requestCPU: 10
    requestMemory: "64Gi"
    requestGPU: 2
    pvcStorage: "50Gi"
    vllmConfig:
      enablePrefixCaching: true
      maxModelLen: 16384
      tensorParallelSize: 2
      dtype: "bfloat16"
      extraArgs: ["--max-num-seqs", "64"]
    env:
      - name: VLLM_LOGGING_LEVEL
        value: INFO
  - name: "mistral"
    repository: "vllm/vllm-openai"
    tag: "v0.33.0"
    modelURL: "mistralai/Mistral-7B-Instruct-v0.2"
    requestGPU: 1
    vllmConfig:
      maxModelLen: 4096
      gpuMemoryUtilization: 0.85
"""

TEACHER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: teacher
  annotations: {vllm-profiles.io/kind: collection}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.31.0
          args: [meta-llama/Llama-3.1-8B-Instruct, --return-sampling-mask, --logprobs-mode, processed_logprobs,
                 --speculative-config, '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}']
          env: [{name: VLLM_USE_V2_MODEL_RUNNER, value: "1"}]
"""


def post(api, team, text, **extra):
    body = {"team": team.slug, "manifest": text, "filename": "deploy/values.yaml", **extra}
    return api.post("/api/v1/profiles/import-manifest/", body, format="json")


def test_production_stack_values_with_two_model_specs_give_two_profiles(api, team):
    response = post(api, team, STACK_VALUES)
    assert response.status_code == 201, response.json()
    by_name = {p["name"]: p for p in response.json()["profiles"]}
    assert set(by_name) == {"llama3", "mistral"}
    llama = by_name["llama3"]
    assert llama["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert llama["vllm_version"] == "0.33.0"
    assert llama["engine_args"] == {
        "enable_prefix_caching": True,
        "max_model_len": 16384,
        "tensor_parallel_size": 2,
        "dtype": "bfloat16",
        "max_num_seqs": 64,
    }
    assert llama["env"] == {"VLLM_LOGGING_LEVEL": "INFO"}
    assert llama["hardware"] == {"gpus_per_node": 2}
    assert llama["source"]["type"] == "helm" and llama["source"]["file"] == "deploy/values.yaml"
    assert llama["source"]["container"] == "modelSpec llama3" and llama["source"]["line"] == 4
    mistral = by_name["mistral"]
    assert mistral["engine_args"] == {
        "enable_prefix_caching": False,  # the chart writes --no-enable-prefix-caching when it is not set
        "max_model_len": 4096,
        "gpu_memory_utilization": 0.85,
    }
    assert Profile.objects.filter(team=team).count() == 2


def test_a_refused_profile_stores_nothing_and_names_vllms_message(api, team):
    text = STACK_VALUES + "---\n" + TEACHER
    response = post(api, team, text)
    assert response.status_code == 400
    body = response.json()
    assert "sampling distribution replay does not support speculative decoding" in body["detail"]
    refused = next(p for p in body["profiles"] if p["name"] == "teacher")
    assert refused["findings"]["valid"] is False
    assert refused["source"]["object"] == "Deployment/teacher"
    assert Profile.objects.filter(team=team).count() == 0  # nothing half-saved


def test_kind_from_the_annotation_and_release_from_the_tag(api, team):
    text = TEACHER.replace("v0.31.0", "v0.32.0")
    response = post(api, team, text)
    assert response.status_code == 201, response.json()
    (teacher,) = response.json()["profiles"]
    assert teacher["kind"] == "collection" and teacher["vllm_version"] == "0.32.0"


def test_bad_yaml_and_manifests_without_vllm_are_clear_400s(api, team):
    response = post(api, team, "apiVersion: v1\nkind: Pod\nspec: [unclosed\n")
    assert response.status_code == 400
    assert "not valid YAML" in str(response.json())
    response = post(api, team, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    assert response.status_code == 400
    assert "no container running vLLM" in str(response.json())


def test_export_as_deployment_and_stack_values_round_trips(api, team):
    response = post(api, team, STACK_VALUES)
    llama = next(p for p in response.json()["profiles"] if p["name"] == "llama3")
    exported = api.get(f"/api/v1/profiles/{llama['id']}/export/", {"format": "deployment"})
    assert exported.status_code == 200 and exported["Content-Type"].startswith("application/yaml")
    deployment = yaml.safe_load(exported.content)
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "vllm/vllm-openai:v0.33.0"
    assert container["resources"] == {"limits": {"nvidia.com/gpu": 2}}
    (workload,) = manifests.extract(exported.content.decode())
    assert shlex.split(workload.command)[:3] == ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
    assert workload.vllm_version == "0.33.0" and workload.env == {"VLLM_LOGGING_LEVEL": "INFO"}

    values = api.get(f"/api/v1/profiles/{llama['id']}/export/", {"format": "stack-values"})
    (spec_workload,) = manifests.extract(values.content.decode())
    assert sorted(shlex.split(spec_workload.command)) == sorted(shlex.split(workload.command))
    # importing the export into another team gives the same arguments
    Profile.objects.filter(pk=llama["id"]).update(name="llama3-old")
    again = post(api, team, values.content.decode())
    assert again.status_code == 201, again.json()
    assert again.json()["profiles"][0]["engine_args"] == llama["engine_args"]
