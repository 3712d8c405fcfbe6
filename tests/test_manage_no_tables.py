"""A management command that needs the database, run before `migrate`, says so in one sentence (naming
`migrate`, and `vllm-profiles-lint` which needs none) instead of a 60-line traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_lint_before_migrate_says_run_migrate_in_one_line(tmp_path):
    profile = tmp_path / "p.yaml"
    profile.write_text("model: m\n")
    result = subprocess.run(
        [sys.executable, "manage.py", "lint", str(profile)],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}",
            "CELERY_BROKER_URL": "memory://",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert "python manage.py migrate" in lines[0] and "vllm-profiles-lint" in lines[0]
