"""`manage.py admission_manifest`: the ValidatingWebhookConfiguration sending vLLM workloads here."""

from __future__ import annotations

import base64
from pathlib import Path

import yaml
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

# What the webhook understands (vllmcheck/engine/manifests.py): group -> resources.
RULES = (
    ("", ["pods"]),
    ("apps", ["deployments", "statefulsets", "daemonsets", "replicasets"]),
    ("batch", ["jobs", "cronjobs"]),
    ("leaderworkerset.x-k8s.io", ["leaderworkersets"]),
    ("serving.kserve.io", ["servingruntimes", "clusterservingruntimes", "inferenceservices"]),
)


class Command(BaseCommand):
    help = "Print the ValidatingWebhookConfiguration (YAML) for `kubectl apply -f -`."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="", help="the server's base URL (default: SITE_URL), https")
        parser.add_argument(
            "--name", default="vllm-profiles.example.com", help="the webhook's name (a DNS name)"
        )
        parser.add_argument("--ca-bundle", metavar="FILE", help="PEM of the CA that signed the server's cert")
        parser.add_argument("--failure-policy", choices=["Fail", "Ignore"], default="Ignore")
        parser.add_argument("--timeout", type=int, default=5, help="timeoutSeconds, 1 to 30 (default 5)")
        parser.add_argument(
            "--namespace-label",
            default="vllm-profiles.io/validate",
            help="namespaces labelled KEY=disabled are skipped (the namespaceSelector)",
        )
        parser.add_argument(
            "--object-label", default="", help="only objects carrying this label KEY (an objectSelector)"
        )

    def handle(self, *args, **options):
        if not 1 <= options["timeout"] <= 30:
            raise CommandError("--timeout must be between 1 and 30 seconds (Kubernetes' limit)")
        base = (options["url"] or settings.SITE_URL).rstrip("/")
        if not base.startswith("https://"):
            raise CommandError(f"the API server calls webhooks over https only; got {base!r} (give --url)")
        client: dict = {"url": f"{base}/api/v1/admission/"}
        if options["ca_bundle"]:
            try:
                pem = Path(options["ca_bundle"]).read_bytes()
            except OSError as exc:
                raise CommandError(f"cannot read {options['ca_bundle']}: {exc.strerror}") from exc
            client["caBundle"] = base64.b64encode(pem).decode()
        webhook = {
            "name": options["name"],
            "admissionReviewVersions": ["v1"],
            "sideEffects": "None",
            "failurePolicy": options["failure_policy"],
            "timeoutSeconds": options["timeout"],
            "matchPolicy": "Equivalent",
            "clientConfig": client,
            "rules": [
                {
                    "apiGroups": [group],
                    "apiVersions": ["*"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": resources,
                    "scope": "*",
                }
                for group, resources in RULES
            ],
            "namespaceSelector": {
                "matchExpressions": [
                    {"key": options["namespace_label"], "operator": "NotIn", "values": ["disabled"]},
                    {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system"]},
                ]
            },
        }
        if options["object_label"]:
            webhook["objectSelector"] = {
                "matchExpressions": [{"key": options["object_label"], "operator": "Exists"}]
            }
        manifest = {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "vllm-profiles"},
            "webhooks": [webhook],
        }
        self.stdout.write(yaml.safe_dump(manifest, sort_keys=False))
