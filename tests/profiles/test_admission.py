"""The admission webhook, called with AdmissionReview documents shaped as the Kubernetes API server sends them."""

from __future__ import annotations

import copy
import io

import pytest
import yaml
from django.core.management import call_command
from django.test import override_settings
from rest_framework.test import APIClient

SEED_ARGS = [
    "meta-llama/Llama-3.1-8B-Instruct",
    "--return-sampling-mask",
    "--logprobs-mode",
    "processed_logprobs",
    "--speculative-config",
    '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}',
]


def review(obj, *, operation="CREATE", dry_run=False, uid="b3a0c3e4-5a5e-4a37-9d4e-2f2f7c1d9a10"):
    """An AdmissionReview as kube-apiserver v1.30 sends it for a namespaced apps/v1 Deployment."""
    return {
        "kind": "AdmissionReview",
        "apiVersion": "admission.k8s.io/v1",
        "request": {
            "uid": uid,
            "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
            "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
            "requestKind": {"group": "apps", "version": "v1", "kind": "Deployment"},
            "requestResource": {"group": "apps", "version": "v1", "resource": "deployments"},
            "name": obj["metadata"]["name"],
            "namespace": "ml-platform",
            "operation": operation,
            "userInfo": {
                "username": "kubernetes-admin",
                "groups": ["kubeadm:cluster-admins", "system:authenticated"],
            },
            "object": obj if operation != "DELETE" else None,
            "oldObject": None if operation == "CREATE" else obj,
            "dryRun": dry_run,
            "options": {
                "kind": "CreateOptions",
                "apiVersion": "meta.k8s.io/v1",
                "fieldManager": "kubectl-client-side-apply",
            },
        },
    }


def deployment(image="vllm/vllm-openai:v0.31.0", args=SEED_ARGS, env=None, annotations=None):
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "teacher",
            "namespace": "ml-platform",
            "uid": "",
            "creationTimestamp": None,
            "annotations": annotations or {},
        },
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "teacher"}},
            "template": {
                "metadata": {"labels": {"app": "teacher"}, "creationTimestamp": None},
                "spec": {
                    "containers": [
                        {
                            "name": "vllm",
                            "image": image,
                            "args": list(args),
                            "env": env
                            if env is not None
                            else [{"name": "VLLM_USE_V2_MODEL_RUNNER", "value": "1"}],
                            "resources": {"limits": {"nvidia.com/gpu": "1"}},
                            "terminationMessagePath": "/dev/termination-log",
                            "imagePullPolicy": "IfNotPresent",
                        }
                    ],
                    "restartPolicy": "Always",
                    "dnsPolicy": "ClusterFirst",
                },
            },
        },
        "status": {},
    }


@pytest.fixture
def kube(db):
    return APIClient()  # the API server does not log in


def post(client, body, **headers):
    return client.post("/api/v1/admission/", body, format="json", **headers)


def test_deployment_on_031_with_replay_and_speculation_is_denied_with_vllms_message(kube):
    response = post(kube, review(deployment()))
    assert response.status_code == 200
    body = response.json()
    assert body["apiVersion"] == "admission.k8s.io/v1" and body["kind"] == "AdmissionReview"
    answer = body["response"]
    assert answer["uid"] == "b3a0c3e4-5a5e-4a37-9d4e-2f2f7c1d9a10"
    assert answer["allowed"] is False
    assert answer["status"]["code"] == 403
    assert (
        "container vllm: vLLM 0.31.0: sampling distribution replay does not support speculative decoding "
        "[sampling-replay-no-speculative]"
    ) in answer["status"]["message"]


def test_same_deployment_on_032_is_allowed_with_the_policy_warning(kube):
    answer = post(kube, review(deployment(image="vllm/vllm-openai:v0.32.0")))
    answer = answer.json()["response"]
    assert answer["allowed"] is True and "status" not in answer
    assert any("policy-serving-returns-sampling-mask" in w for w in answer["warnings"])


def test_collection_annotation_makes_it_a_collection_profile(kube):
    obj = deployment(image="vllm/vllm-openai:v0.32.0", annotations={"vllm-profiles.io/kind": "collection"})
    answer = post(kube, review(obj)).json()["response"]
    assert answer["allowed"] is True
    assert not any("policy-serving-returns-sampling-mask" in w for w in answer.get("warnings", []))


def test_untagged_image_uses_the_fleet_release(kube):
    from validation.selectors import fleet_release

    answer = post(
        kube,
        review(
            deployment(
                image="vllm/vllm-openai:latest",
                args=["m", "--max-num-batched-tokens", "8", "--max-num-seqs", "256"],
            )
        ),
    ).json()["response"]
    assert answer["allowed"] is False
    assert f"vLLM {fleet_release().version}:" in answer["status"]["message"]
    assert "max-batched-tokens-ge-max-num-seqs" in answer["status"]["message"]


def test_dry_run_and_delete_are_answered_without_side_effects(kube):
    dry = post(kube, review(deployment(), dry_run=True)).json()["response"]
    assert dry["allowed"] is False  # a dry run is judged like a real one: the webhook stores nothing
    deleted = post(kube, review(deployment(), operation="DELETE")).json()["response"]
    assert deleted == {"uid": "b3a0c3e4-5a5e-4a37-9d4e-2f2f7c1d9a10", "allowed": True}


def test_objects_without_vllm_are_allowed(kube):
    obj = deployment(image="nginx:1.27", args=["nginx", "-g", "daemon off;"])
    assert post(kube, review(obj)).json()["response"] == {
        "uid": "b3a0c3e4-5a5e-4a37-9d4e-2f2f7c1d9a10",
        "allowed": True,
    }


def test_not_an_admission_review_is_a_400_naming_what_is_wrong(kube):
    body = review(deployment())
    body["apiVersion"] = "admission.k8s.io/v1beta1"
    response = post(kube, body)
    assert response.status_code == 400
    assert "admission.k8s.io/v1" in response.json()["detail"]
    body = copy.deepcopy(review(deployment()))
    del body["request"]["uid"]
    assert "request.uid" in post(kube, body).json()["detail"]


@override_settings(ADMISSION_WEBHOOK_TOKEN="s3cret")
def test_bearer_token_when_configured(kube):
    assert post(kube, review(deployment())).status_code in (401, 403)
    assert post(kube, review(deployment()), HTTP_AUTHORIZATION="Bearer wrong").status_code in (401, 403)
    assert post(kube, review(deployment()), HTTP_AUTHORIZATION="Bearer s3cret").status_code == 200


def test_admission_manifest_command_prints_the_webhook_configuration(tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    out = io.StringIO()
    call_command(
        "admission_manifest",
        url="https://profiles.example.com",
        ca_bundle=str(ca),
        failure_policy="Fail",
        timeout=3,
        stdout=out,
    )
    manifest = yaml.safe_load(out.getvalue())
    assert manifest["kind"] == "ValidatingWebhookConfiguration"
    (hook,) = manifest["webhooks"]
    assert hook["clientConfig"]["url"] == "https://profiles.example.com/api/v1/admission/"
    assert hook["failurePolicy"] == "Fail" and hook["timeoutSeconds"] == 3 and hook["sideEffects"] == "None"
    assert {
        "apiGroups": ["apps"],
        "apiVersions": ["*"],
        "operations": ["CREATE", "UPDATE"],
        "resources": ["deployments", "statefulsets", "daemonsets", "replicasets"],
        "scope": "*",
    } in hook["rules"]
    assert hook["namespaceSelector"]["matchExpressions"][0]["operator"] == "NotIn"


def test_a_vllm_container_that_cannot_be_read_is_a_warning_not_a_silent_pass(kube):
    obj = deployment(image="vllm/vllm-openai:v0.32.0", args=["./start-server.sh"])
    obj["spec"]["template"]["spec"]["containers"][0]["command"] = ["/bin/bash"]
    response = post(kube, review(obj)).json()["response"]
    assert response["allowed"] is True
    (warning,) = response["warnings"]
    assert "not checked" in warning
