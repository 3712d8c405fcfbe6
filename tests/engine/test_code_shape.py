"""The pure package stays readable: no function or method in ``vllmcheck/`` is over 80 lines long.

A longer one is split where it does more than one thing (see ``vllmcheck/engine/rules/`` for how the
evaluator was). Lines count from the ``def`` to the function's last line (``end_lineno - lineno + 1``), its
docstring and comments included, its decorators not.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "vllmcheck"
MAX_LINES = 80


def long_functions(root: Path, limit: int) -> list[str]:
    """``path:line name (N lines)`` for every function or method under ``root`` longer than ``limit``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    where = path.relative_to(root.parent).as_posix()
                    found.append(f"{where}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_in_vllmcheck_is_over_80_lines() -> None:
    too_long = long_functions(PACKAGE, MAX_LINES)
    assert not too_long, f"functions over {MAX_LINES} lines:\n" + "\n".join(too_long)


def test_the_walk_finds_a_long_function_and_a_long_method(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    body = "".join(f"    x{i} = {i}\n" for i in range(80))  # with its `def`: 81 lines
    (package / "sub" / "mod.py").write_text(
        f"def just_80():\n{body[body.index(chr(10)) + 1 :]}\n\n"  # lines 1-80
        f"def long():\n{body}\n\n"  # lines 83-163
        "class C:\n    async def method(self):\n" + body.replace("    ", "        ")  # lines 167-247
    )
    assert long_functions(package, MAX_LINES) == [
        "pkg/sub/mod.py:83 long (81 lines)",
        "pkg/sub/mod.py:167 method (81 lines)",
    ]
