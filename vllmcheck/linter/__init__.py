"""`vllm-profiles-lint`: check vLLM profiles in files, with no server, no database and no Django.

It uses the engine, the argument catalogs shipped with the product and the built-in rule pack (or a rule set
exported from a server with ``GET /api/v1/rulesets/{id}/export/``, given as ``--ruleset FILE``). Inputs are
files and directories: `vllm serve` command files, vLLM ``--config`` YAML, Kubernetes manifests and the vLLM
production-stack chart's values. The release of each profile is, first to last: ``--vllm-version``, the
image tag (``vllm/vllm-openai:v0.33.0``), a ``# vllm-version: X.Y.Z`` comment, the newest shipped catalog.

Exit codes, as ``manage.py lint``: 0 no error finding, 1 error findings, 2 an input cannot be read or parsed
(with ``--strict``, also an input that looks like vLLM but yields no profile: "not checked").
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vllmcheck.engine.types import Finding, ParseError

from .data import ShippedData
from .output import FORMATS, render

DEFAULT_PATTERNS = ("*.yaml", "*.yml", "*.json", "*.sh", "*.cmd", "*.vllm", "Dockerfile", "*.Dockerfile")
NOT_CHECKED_RULE = "not-checked"  # a file, manifest or container that looks like vLLM but could not be read
SKIP_DIRS = frozenset({".git", ".venv", "venv", "node_modules", "__pycache__", ".tox"})


@dataclass
class Checked:
    """One profile checked: where it is, which release, and the findings with their positions."""

    path: str
    source: str | None  # the manifest object and container, None for a plain profile file
    line: int
    column: int
    vllm_version: str | None
    findings: list[tuple[Finding, int, int]] = field(default_factory=list)
    memory: dict[str, Any] | None = None  # the GPU memory estimate (engine/memory.py), when it could be made

    @property
    def has_errors(self) -> bool:
        return any(f.severity == "error" and not f.waived for f, _, _ in self.findings)

    @property
    def not_checked(self) -> bool:
        """Something that looks like vLLM could not be read: never reported as valid."""
        return any(f.rule == NOT_CHECKED_RULE for f, _, _ in self.findings)

    @property
    def valid(self) -> bool:
        return not self.has_errors and not self.not_checked


@dataclass
class FileResult:
    path: str
    checked: list[Checked] = field(default_factory=list)
    error: str | None = None  # the input cannot be read or parsed (exit 2)
    error_line: int = 1
    error_column: int = 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vllm-profiles-lint",
        description="Check vLLM profiles (command lines, vLLM config YAML, Kubernetes manifests, "
        "production-stack Helm values) against the vLLM release they will run, with no server.",
    )
    parser.add_argument("paths", nargs="*", default=["."], help="files or directories (- for standard input)")
    parser.add_argument("--vllm-version", default="", help="the release for every input (default: per file)")
    parser.add_argument("--kind", choices=["serving", "collection"], default="serving")
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--ruleset", metavar="FILE", help="a rule set exported from a server (YAML or JSON)")
    parser.add_argument("--model-config", metavar="FILE", help="the model's config.json, for every input")
    parser.add_argument(
        "--hardware",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="e.g. gpus_per_node=8 (repeatable)",
    )
    parser.add_argument(
        "--include",
        metavar="GLOB",
        action="append",
        default=[],
        help=f"file names to read in directories (default: {' '.join(DEFAULT_PATTERNS)})",
    )
    parser.add_argument(
        "--skip-other-files",
        action="store_true",
        help="skip named files that are no profile (YAML that is neither a manifest nor a vLLM config, "
        "scripts without `vllm serve`), as in a directory; for pre-commit, which names every changed file",
    )
    parser.add_argument(
        "--set",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        dest="variables",
        help="bind a shell variable the inputs leave open, e.g. --set TP=8 (repeatable)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="a file, manifest or container that looks like vLLM but cannot be read is an error and the "
        "exit code is 2, as for an input that cannot be parsed (by default a 'not checked' note)",
    )
    parser.add_argument(
        "--upgrade-from",
        metavar="X.Y.Z",
        help="instead of checking: list, release by release from X.Y.Z to --vllm-version, every argument "
        "the profiles set that is removed, renamed, retyped or deprecated, and the first release that "
        "refuses them",
    )
    parser.add_argument("--output", "-o", metavar="FILE", help="write the report here instead of stdout")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    options = build_parser().parse_args(argv)
    try:
        data = ShippedData(ruleset_path=options.ruleset)
        defaults = _profile_defaults(options)
    except UsageError as exc:
        print(f"vllm-profiles-lint: {exc}", file=sys.stderr)
        return 2
    if options.upgrade_from:
        return _upgrade(options, data)
    results = [
        lint_file(path, data=data, defaults=defaults, explicit=explicit and not options.skip_other_files)
        for path, explicit in iter_inputs(options.paths, options.include or DEFAULT_PATTERNS)
    ]
    data.save_ruleset()
    text = render(options.format, results, data=data)
    if options.output:
        Path(options.output).write_text(text)
    else:
        sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    if any(r.error for r in results):
        return 2
    if options.strict and any(c.not_checked for r in results for c in r.checked):
        return 2  # looks like vLLM, yet nothing of it was checked: as unreadable as a parse error
    return 1 if any(c.has_errors for r in results for c in r.checked) else 0


class UsageError(Exception):
    pass


def _upgrade(options: argparse.Namespace, data: ShippedData) -> int:
    from .upgrade import upgrade_report

    target = options.vllm_version.strip() or data.newest
    paths = list(iter_inputs(options.paths, options.include or DEFAULT_PATTERNS))
    try:
        text, code = upgrade_report(
            paths, data=data, start=options.upgrade_from.strip(), target=target, fmt=options.format
        )
    except UsageError as exc:
        print(f"vllm-profiles-lint: {exc}", file=sys.stderr)
        return 2
    if options.output:
        Path(options.output).write_text(text)
    else:
        sys.stdout.write(text)
    return code


def _profile_defaults(options: argparse.Namespace) -> dict[str, Any]:
    hardware: dict[str, Any] = {}
    for item in options.hardware:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--hardware {item!r}: expected KEY=VALUE, e.g. gpus_per_node=8")
        try:
            hardware[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            hardware[key.strip()] = value
    model_config = None
    if options.model_config:
        try:
            model_config = json.loads(Path(options.model_config).read_text())
        except OSError as exc:
            raise UsageError(f"cannot read {options.model_config}: {exc.strerror}") from exc
        except json.JSONDecodeError as exc:
            raise UsageError(f"{options.model_config}: not JSON: {exc}") from exc
        if not isinstance(model_config, dict):
            raise UsageError(f"{options.model_config}: the model config must be a JSON object")
    variables: dict[str, str] = {}
    for item in options.variables:
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise UsageError(f"--set {item!r}: expected NAME=VALUE, e.g. TP=8")
        variables[key.strip()] = value
    return {
        "variables": variables,
        "strict": options.strict,
        "kind": options.kind,
        "vllm_version": options.vllm_version.strip() or None,
        "hardware": hardware,
        "model_config": model_config,
    }


def iter_inputs(paths: Sequence[str], patterns: Sequence[str]) -> Iterator[tuple[str, bool]]:
    """(path, given explicitly) for every input: files as given, directories walked in name order."""
    for raw in paths:
        path = Path(raw)
        if raw == "-" or not path.is_dir():
            yield raw, True
            continue
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in sorted(files):
                if any(fnmatch.fnmatch(name, pattern) for pattern in patterns):
                    yield str(Path(root) / name), False


def lint_file(path: str, *, data: ShippedData, defaults: dict[str, Any], explicit: bool = True) -> FileResult:
    from .check import check_text  # the engine (CEL, catalogs) loads on the first file, not at start-up

    result = FileResult(path=path)
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        result.error = f"cannot read: {exc.strerror}"
        return result
    except UnicodeDecodeError as exc:
        result.error = f"not UTF-8 text (byte {exc.start})"
        return result
    try:
        result.checked = check_text(text, path=path, data=data, defaults=defaults, explicit=explicit)
    except ParseError as exc:
        result.error = str(exc)
        result.error_line = _line_of(exc, text)
    except UsageError as exc:
        result.error = str(exc)
    return result


def _line_of(exc: ParseError, text: str) -> int:
    if exc.position is not None:
        return text.count("\n", 0, exc.position) + 1
    where = exc.where or ""
    if where.startswith("line "):
        digits = "".join(ch for ch in where[5:] if ch.isdigit() or ch == ",").split(",")[0]
        if digits.isdigit():
            return int(digits)
    return 1
