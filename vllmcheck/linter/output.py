"""Reports of the server-free linter: text, JSON, SARIF 2.1.0 (code scanning), GitHub Actions annotations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import report

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def render(fmt: str, results: list, *, data) -> str:
    return {"text": _text, "json": _json, "sarif": _sarif, "github": _github}[fmt](results, data)


def _active(findings):
    return [(f, line, col) for f, line, col in findings if not f.waived]


def _text(results, data) -> str:
    return report.located_text(results)


def _finding_dict(finding, line: int, col: int) -> dict[str, Any]:
    return {**finding.as_dict(), "line": line, "column": col}


def _json(results, data) -> str:
    files = []
    for result in results:
        entry: dict[str, Any] = {"path": result.path}
        if result.error:
            entry["error"] = {
                "message": result.error,
                "line": result.error_line,
                "column": result.error_column,
            }
        entry["profiles"] = [
            {
                "source": c.source,
                "line": c.line,
                "column": c.column,
                "vllm_version": c.vllm_version,
                "ruleset": data.ruleset_label,
                "valid": c.valid,
                "findings": [_finding_dict(f, line, col) for f, line, col in c.findings],
                **({"memory": c.memory} if c.memory is not None else {}),
            }
            for c in result.checked
        ]
        files.append(entry)
    valid = not any(r.error for r in results) and all(c.valid for r in results for c in r.checked)
    return json.dumps({"valid": valid, "files": files}, indent=2)


def _uri(path: str) -> str:
    return Path(path).as_posix().removeprefix("./") if path != "-" else "stdin"


def _sarif(results, data) -> str:
    rules: dict[str, dict[str, Any]] = {}
    out: list[dict[str, Any]] = []
    for result in results:
        if result.error:
            rule_id = "parse-error"
            rules.setdefault(
                rule_id, {"id": rule_id, "shortDescription": {"text": "The input cannot be parsed"}}
            )
            out.append(_sarif_result(rule_id, "error", result.error, result.path, result.error_line, 1))
            continue
        for checked in result.checked:
            for finding, line, col in _active(checked.findings):
                if finding.rule not in rules:
                    rule: dict[str, Any] = {
                        "id": finding.rule,
                        "shortDescription": {"text": _first_line(finding.message)},
                        "properties": {"category": finding.category},
                    }
                    if finding.source:
                        rule["helpUri"] = finding.source
                    if finding.docs or finding.solutions:
                        rule["help"] = {"text": "\n".join([finding.docs or "", *finding.solutions]).strip()}
                    rules[finding.rule] = rule
                where = f" [{checked.source}]" if checked.source else ""
                text = f"vLLM {checked.vllm_version}: {finding.message}{where}"
                out.append(
                    _sarif_result(finding.rule, SARIF_LEVEL[finding.severity], text, checked.path, line, col)
                )
    index = {rule_id: i for i, rule_id in enumerate(rules)}
    for item in out:
        item["ruleIndex"] = index[item["ruleId"]]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "vllm-profiles-lint",
                        "informationUri": "https://github.com/vllm-project/vllm",
                        "rules": list(rules.values()),
                    }
                },
                "results": out,
            }
        ],
    }
    return json.dumps(log, indent=2)


def _sarif_result(rule_id: str, level: str, text: str, path: str, line: int, col: int) -> dict[str, Any]:
    return {
        "ruleId": rule_id,
        "level": level,
        "message": {"text": text},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(path)},
                    "region": {"startLine": max(1, line), "startColumn": max(1, col)},
                }
            }
        ],
    }


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else ""


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _github(results, data) -> str:
    lines: list[str] = []
    for result in results:
        if result.error:
            lines.append(
                f"::error file={_escape_property(result.path)},line={result.error_line},"
                f"title=cannot parse::{_escape_data(result.error)}"
            )
            continue
        for checked in result.checked:
            for finding, line, col in _active(checked.findings):
                title = _escape_property(f"{finding.rule} (vLLM {checked.vllm_version})")
                lines.append(
                    f"::{GITHUB_LEVEL[finding.severity]} file={_escape_property(checked.path)},line={line},"
                    f"col={col},title={title}::{_escape_data(finding.message)}"
                )
    return "\n".join(lines)
