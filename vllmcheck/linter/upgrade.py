"""``vllm-profiles-lint --upgrade-from X.Y.Z --vllm-version A.B.C``: what breaks, release by release."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vllmcheck.engine import manifests
from vllmcheck.engine import parse as engine_parse
from vllmcheck.engine.types import ParseError
from vllmcheck.engine.upgrade import releases_between, render_upgrade_text, revision_command, upgrade_path

from .data import ShippedData


def upgrade_report(
    paths: list[tuple[str, bool]], *, data: ShippedData, start: str, target: str, fmt: str
) -> tuple[str, int]:
    """(report text, exit code): 0 nothing refused up to the target, 1 refused on the way, 2 unreadable."""
    from . import UsageError

    for version, what in ((start, "--upgrade-from"), (target, "--vllm-version")):
        if version not in data.versions:
            raise UsageError(
                f"{what} {version!r}: unknown vLLM release (this linter knows {data.versions[0]} to "
                f"{data.newest})"
            )
    versions = releases_between(data.versions, start, target)
    if len(versions) < 2:
        raise UsageError(f"--upgrade-from {start} must be older than --vllm-version {target}")
    catalogs = [data.catalog(v) for v in versions]
    results: list[dict[str, Any]] = []
    code = 0
    for path, _explicit in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
            commands = _commands(text)
        except (OSError, UnicodeDecodeError, ParseError) as exc:
            results.append({"path": path, "error": str(exc)})
            code = 2
            continue
        for source, command_text, fmt_in in commands:
            try:
                parsed = _parse(command_text, fmt_in, catalogs[0])
            except ParseError as exc:
                results.append({"path": path, "source": source, "error": str(exc)})
                code = 2
                continue
            unknown = [u["flag"] for u in parsed.get("unknown") or ()]
            result = upgrade_path(
                parsed["args"], catalogs, unknown=unknown, refuses=_refuses(command_text, fmt_in)
            )
            model = (parsed.get("model") or {}).get("name")
            result["command"] = revision_command(model, result["revision"]["args"], catalogs[-1])
            results.append({"path": path, "source": source, **result})
            if result["refused_at"] and code == 0:
                code = 1
    if fmt == "json":
        return json.dumps(results, indent=1, default=str) + "\n", code
    out = []
    for r in results:
        head = r["path"] + (f" ({r['source']})" if r.get("source") else "")
        if r.get("error"):
            out.append(f"{head}: error: {r['error']}\n")
            continue
        out.append(f"{head}:\n" + render_upgrade_text(r) + f"  proposed revision: {r['command']}\n")
    return "".join(out), code


def _refuses(text: str, fmt: str):
    def refuses(catalog) -> str | None:
        try:
            _parse(text, fmt, catalog)
        except ParseError as exc:
            return exc.detail
        return None

    return refuses


def _commands(text: str) -> list[tuple[str | None, str, str]]:
    fmt = engine_parse.detect_format(text)
    if fmt == "yaml" and manifests.looks_like_manifest(text):
        return [(w.source, w.command, "command") for w in manifests.extract(text) if w.command]
    return [(None, text, fmt)]


def _parse(text: str, fmt: str, catalog) -> dict[str, Any]:
    if fmt == "command":
        return engine_parse.parse_command(text, catalog=catalog)
    if fmt == "json":
        return engine_parse.parse_json(text, catalog=catalog)
    return engine_parse.parse_config_yaml(text, catalog=catalog)
