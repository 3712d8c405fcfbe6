"""In CI a skipped test is a failure unless tests/allowed_skips.txt lists it with a reason.

A test that skips in every CI run checks nothing, and nobody notices: with ``CI=true`` in the environment the
session fails, naming each skipped test that no line of the allow-list matches. A line of the allow-list is
``NODE-ID-PATTERN -- reason`` (an fnmatch pattern over pytest's node id); ``#`` starts a comment line. A line
without a reason is refused. Outside CI skips are reported as usual and change nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

ALLOW_LIST = Path("tests") / "allowed_skips.txt"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def load_allow_list(path: Path) -> list[tuple[str, str]]:
    """``[(pattern, reason)]``; a malformed line is a usage error naming the file and the line."""
    if not path.exists():
        return []
    entries = []
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, separator, reason = (part.strip() for part in line.partition(" -- "))
        if not separator or not pattern or not reason:
            raise pytest.UsageError(f"{path}:{number}: expected 'NODE-ID-PATTERN -- reason', got {line!r}")
        entries.append((pattern, reason))
    return entries


@dataclass(eq=False)  # a plugin object must stay hashable (pluggy keeps plugins in sets)
class SkipPolicy:
    allowed: list[tuple[str, str]]
    path: Path
    skipped: dict[str, str] = field(default_factory=dict)

    def _record(self, report) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            self.skipped.setdefault(report.nodeid, reason)

    def pytest_runtest_logreport(self, report) -> None:
        self._record(report)

    def pytest_collectreport(self, report) -> None:
        self._record(report)

    def unexplained(self) -> dict[str, str]:
        return {
            nodeid: reason
            for nodeid, reason in self.skipped.items()
            if not any(fnmatchcase(nodeid, pattern) for pattern, _ in self.allowed)
        }

    def pytest_sessionfinish(self, session) -> None:
        if self.unexplained() and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter) -> None:
        unexplained = self.unexplained()
        if not unexplained:
            return
        terminalreporter.section("skipped in CI without a reason", sep="=", red=True, bold=True)
        for nodeid, reason in unexplained.items():
            terminalreporter.line(f"{nodeid}: {reason}")
        terminalreporter.line(
            f"{len(unexplained)} unexplained skip(s): make the test run, or list it in {self.path} "
            "as 'NODE-ID-PATTERN -- reason'"
        )


def pytest_configure(config) -> None:
    if in_ci():
        path = config.rootpath / ALLOW_LIST
        config.pluginmanager.register(SkipPolicy(allowed=load_allow_list(path), path=path), "skip-policy")
