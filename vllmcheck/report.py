"""Lint output as text, one implementation for both commands that print it:

- ``vllm-profiles-lint`` (:func:`located_text`): a line per checked profile and per finding, located in
  its file as compilers do (``path:line:column: severity [category] rule: message``);
- ``manage.py lint`` (:func:`verdict_text`): one verdict document (``Verdict.as_dict()``) with its counts,
  then each finding with its fields, fixes and source.

Both write a finding with :func:`finding_line`, and a verdict's state with :func:`state`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["finding_line", "located_text", "state", "verdict_text"]


def state(valid: bool) -> str:
    return "valid" if valid else "INVALID"


def finding_line(severity: str, category: str, rule: str, message: str, *, align: int = 0) -> str:
    """``severity [category] rule: message``; ``align`` pads the severity and its blank to that width."""
    return f"{severity + ' ':<{align}}[{category}] {rule}: {message}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def verdict_text(document: Mapping[str, Any]) -> str:
    """One verdict document: its release, rule set and state, then its findings (waived ones marked)."""
    findings = document["findings"]
    errors = sum(1 for f in findings if f["severity"] == "error" and not f.get("waived"))
    warnings = sum(1 for f in findings if f["severity"] == "warning" and not f.get("waived"))
    lines = [
        f"vLLM {document['vllm_version']}, rule set {document['ruleset']}: {state(document['valid'])} "
        f"({_plural(errors, 'error')}, {_plural(warnings, 'warning')})"
    ]
    for f in findings:
        waived = " (waived)" if f.get("waived") else ""
        lines.append(finding_line(f["severity"], f["category"], f["rule"], f["message"], align=8) + waived)
        if f.get("fields"):
            lines.append(f"        fields: {', '.join(f['fields'])}")
        for solution in f.get("solutions") or []:
            lines.append(f"        fix: {solution}")
        if f.get("source"):
            lines.append(f"        source: {f['source']}")
    return "\n".join(lines)


def located_text(results: Iterable[Any]) -> str:
    """The linter's files: for each, the reason it cannot be parsed, or each profile found in it (its source
    in the file, release and state) and each finding at its line and column. ``results`` are the linter's
    ``FileResult``s (``path``, ``error``, ``error_line``, ``error_column``, ``checked``)."""
    lines: list[str] = []
    for result in results:
        if result.error:
            lines.append(
                f"{result.path}:{result.error_line}:{result.error_column}: cannot parse: {result.error}"
            )
            continue
        for checked in result.checked:
            where = f" ({checked.source})" if checked.source else ""
            said = "NOT CHECKED" if getattr(checked, "not_checked", False) else state(checked.valid)
            lines.append(f"{checked.path}{where}: vLLM {checked.vllm_version}: {said}")
            for finding, line, col in checked.findings:
                lines.append(
                    f"{checked.path}:{line}:{col}: "
                    + finding_line(finding.severity, finding.category, finding.rule, finding.message)
                )
    return "\n".join(lines)
