"""`manage.py lint`: validate profile files the way the API does, for CI pipelines and GitOps.

One file (or - for standard input) prints its verdict; several paths or a directory (walked for the file
names `vllm-profiles-lint` reads: *.sh, *.cmd, *.vllm, *.yaml, *.yml, *.json) print one verdict per file,
Django starting once for all of them. Exit codes: 0 no error finding, 1 error findings, 2 an input cannot be
read or parsed or the version is unknown (the other files are still checked).
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
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from profiles import services as profile_services
from validation.errors import DomainError, UnknownRelease
from validation.selectors import reference_pinned, ruleset_keep_compiled
from vllmcheck.report import verdict_text


class Command(BaseCommand):
    help = "Validate `vllm serve` command lines, vLLM --config YAML files or JSON against a vLLM release."
    # A CI step checking profiles need not wait for Django's system checks (`manage.py check` runs them).
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):
        parser.add_argument(
            "paths", nargs="*", metavar="PATH", help="files or directories to check, or - for standard input"
        )
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
        try:
            # The releases, the fleet's release and the rule set read once for every file (lint only reads).
            with reference_pinned():
                self._handle(options)
        finally:
            # The rule set compiled and planned here serves the next call (and the servers) from the cache.
            ruleset_keep_compiled()

    def _handle(self, options):
        paths = list(options["paths"])
        hardware_items = list(options["hardware"])
        if not paths and hardware_items and "=" not in hardware_items[-1]:
            paths = [hardware_items.pop()]  # `--hardware a=1 b=2 FILE`: the last word is the file
        if not paths:
            self._fail("give the file to check, or - for standard input")
        common: dict = {"kind": options["kind"], "vllm_version": options["vllm_version"]}
        if options["model_config"]:
            common["model_config"] = self._model_config(options["model_config"])
        if hardware_items:
            common["hardware"] = self._hardware(hardware_items)
        if options["node_type"]:
            common["node_type"] = options["node_type"]
        if len(paths) == 1 and (paths[0] == "-" or not Path(paths[0]).is_dir()):
            verdict = self._check(paths[0], common)
            document = verdict.as_dict()
            self.stdout.write(
                json.dumps(document, indent=2) if options["format"] == "json" else verdict_text(document)
            )
            if not verdict.valid:
                sys.exit(1)
            return
        from vllmcheck.linter import DEFAULT_PATTERNS, iter_inputs

        results = []
        for path, _explicit in iter_inputs(paths, DEFAULT_PATTERNS):
            try:
                results.append({"file": path, **self._check(path, common).as_dict()})
            except CommandError as exc:
                results.append({"file": path, "error": str(exc)})
        if options["format"] == "json":
            self.stdout.write(json.dumps(results, indent=2))
        else:
            for result in results:
                body = f"error: {result['error']}" if "error" in result else verdict_text(result)
                self.stdout.write(f"== {result['file']}\n{body}")
        if any("error" in r for r in results):
            sys.exit(2)
        if any(not r["valid"] for r in results):
            sys.exit(1)

    def _check(self, path: str, common: dict):
        """The verdict of one file; CommandError (exit 2) when it cannot be read or checked."""
        try:
            if path == "-":
                text = sys.stdin.read()
            else:
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
        except OSError as exc:
            self._fail(f"cannot read {path}: {exc.strerror}")
        except UnicodeDecodeError as exc:
            self._fail(f"{path}: not UTF-8 text (byte {exc.start})")
        fields = {**common, profile_services.input_shape(text): text}
        try:
            return profile_services.profile_dry_run(data=profile_services.ProfileInput.from_mapping(fields))
        except UnknownRelease as exc:
            self._fail(exc.message)
        except DomainError as exc:
            where = f"{exc.field}: " if exc.field and exc.field not in ("command", "config") else ""
            self._fail(f"{path}: {where}{exc.message}")

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
