"""`manage.py lint`: validate a profile file the way the API does, for CI pipelines and GitOps.

Exit codes: 0 no error finding, 1 error findings, 2 the input cannot be parsed or the version is unknown.
The model's config.json (and the draft model's) is resolved as the API resolves it: a local directory, the
Hugging Face cache or the Hub (``HF_ENDPOINT``, ``HF_TOKEN``, ``HF_HOME``/``HF_HUB_CACHE``; with
``HF_HUB_OFFLINE=1`` the cache alone), with a short deadline; `--model-config FILE` wins over it. A config
that cannot be fetched is an info finding, never a failure. `--node-type NAME` and `--hardware KEY=VALUE ...`
fill the profile's hardware, so rules about the model (heads vs tensor parallel, max length) and the node
(GPUs per node) can be checked instead of reported as "could not verify".
"""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from profiles import services as profile_services
from validation.errors import DomainError, UnknownRelease


class Command(BaseCommand):
    help = "Validate a `vllm serve` command line, a vLLM --config YAML file or JSON against a vLLM release."

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", help="the file to check, or - for standard input")
        parser.add_argument("--vllm-version", default="", help="target release (default: the fleet's)")
        parser.add_argument("--kind", choices=["serving", "collection"], default="serving")
        parser.add_argument("--format", choices=["text", "json"], default="text")
        parser.add_argument(
            "--model-config", metavar="FILE", help="the model's config.json: the profile's model_config"
        )
        parser.add_argument(
            "--node-type",
            metavar="NAME",
            help="a named node type (see /api/v1/node-types/): its GPUs fill the profile's hardware",
        )
        parser.add_argument(
            "--hardware",
            metavar="KEY=VALUE",
            nargs="+",
            action="extend",
            default=[],
            help="the profile's hardware, e.g. gpus_per_node=8 nodes=1 gpu=H100-80GB (numbers as numbers)",
        )

    def handle(self, *args, **options):
        hardware_items = list(options["hardware"])
        if not options["file"] and hardware_items and "=" not in hardware_items[-1]:
            options["file"] = hardware_items.pop()  # `--hardware a=1 b=2 FILE`: the last word is the file
        if not options["file"]:
            self._fail("give the file to check, or - for standard input")
        try:
            if options["file"] == "-":
                text = sys.stdin.read()
            else:
                with open(options["file"], encoding="utf-8") as handle:
                    text = handle.read()
        except OSError as exc:
            self._fail(f"cannot read {options['file']}: {exc.strerror}")
        fields = {"kind": options["kind"], "vllm_version": options["vllm_version"]}
        fields[profile_services.input_shape(text)] = text
        if options["model_config"]:
            fields["model_config"] = self._model_config(options["model_config"])
        if hardware_items:
            fields["hardware"] = self._hardware(hardware_items)
        if options["node_type"]:
            fields["node_type"] = options["node_type"]
        try:
            verdict = profile_services.profile_dry_run(
                data=profile_services.ProfileInput.from_mapping(fields)
            )
        except UnknownRelease as exc:
            self._fail(exc.message)
        except DomainError as exc:
            where = f"{exc.field}: " if exc.field and exc.field not in ("command", "config") else ""
            self._fail(f"{options['file']}: {where}{exc.message}")
        document = verdict.as_dict()
        if options["format"] == "json":
            self.stdout.write(json.dumps(document, indent=2))
        else:
            self.stdout.write(render_text(document))
        if not verdict.valid:
            sys.exit(1)

    def _model_config(self, path: str) -> dict:
        try:
            with open(path, encoding="utf-8") as handle:
                config = json.load(handle)
        except OSError as exc:
            self._fail(f"cannot read {path}: {exc.strerror}")
        except json.JSONDecodeError as exc:
            self._fail(f"{path}: not JSON: {exc}")
        if not isinstance(config, dict):
            self._fail(f"{path}: the model config must be a JSON object (the model's config.json)")
        return config

    def _hardware(self, items: list[str]) -> dict:
        hardware = {}
        for item in items:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                self._fail(f"--hardware {item!r}: expected KEY=VALUE, e.g. gpus_per_node=8")
            try:
                hardware[key.strip()] = json.loads(value)  # 8 -> 8, true -> True
            except json.JSONDecodeError:
                hardware[key.strip()] = value  # H100-80GB stays a string
        return hardware

    def _fail(self, message: str):
        err = CommandError(message)
        err.returncode = 2
        raise err


def render_text(document: dict) -> str:
    findings = document["findings"]
    errors = sum(1 for f in findings if f["severity"] == "error" and not f.get("waived"))
    warnings = sum(1 for f in findings if f["severity"] == "warning" and not f.get("waived"))
    verdict = "valid" if document["valid"] else "INVALID"
    lines = [
        f"vLLM {document['vllm_version']}, rule set {document['ruleset']}: {verdict} "
        f"({errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)})"
    ]
    for f in findings:
        waived = " (waived)" if f.get("waived") else ""
        lines.append(f"{f['severity']:<8}[{f['category']}] {f['rule']}: {f['message']}{waived}")
        if f.get("fields"):
            lines.append(f"        fields: {', '.join(f['fields'])}")
        for solution in f.get("solutions") or []:
            lines.append(f"        fix: {solution}")
        if f.get("source"):
            lines.append(f"        source: {f['source']}")
    return "\n".join(lines)
