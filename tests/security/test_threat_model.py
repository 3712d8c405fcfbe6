"""docs/security.md names, for each line of the threat model, the test that proves it: each named test exists
(renaming or deleting one without updating the model fails here)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = re.compile(r"(tests/[\w/]+\.py)|::(test_\w+)")


def test_every_test_the_threat_model_names_exists():
    text = (ROOT / "docs" / "security.md").read_text()
    current = None
    named = []
    for match in REFERENCE.finditer(text):
        if match.group(1):
            current = match.group(1)
        else:
            assert current, f"::{match.group(2)} names no file before it"
            named.append((current, match.group(2)))
    assert len(named) >= 40
    missing = []
    for path, name in named:
        tree = ast.parse((ROOT / path).read_text())
        defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
        if name not in defined:
            missing.append(f"{path}::{name}")
    assert missing == []
