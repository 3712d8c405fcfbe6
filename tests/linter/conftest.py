"""The server-free linter, run as users run it: the installed `vllm-profiles-lint` script, a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCRIPT = Path(sys.executable).parent / "vllm-profiles-lint"
SARIF_SCHEMA_PACKAGE = "@microsoft/jest-sarif@1.0.0-beta.0"  # carries OASIS' SARIF 2.1.0 JSON schema
SARIF_SCHEMA_MEMBER = "package/lib/schemas/sarif-2.1.0-rtm.5.json"
CACHE = Path(os.environ.get("VLLM_PROFILES_CACHE", Path.home() / ".cache" / "vllm-profiles"))


def run_lint(*args: str, cwd: Path = ROOT, stdin: str | None = None) -> subprocess.CompletedProcess:
    assert SCRIPT.exists(), f"{SCRIPT} is missing: the package's console script is not installed"
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    return subprocess.run(
        [str(SCRIPT), *args], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120, env=env
    )


@pytest.fixture(scope="session")
def sarif_schema() -> dict:
    """The SARIF 2.1.0 schema, fetched once from the npm registry into the cache (never committed)."""
    target = CACHE / "sarif-2.1.0-rtm.5.json"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                ["npm", "pack", SARIF_SCHEMA_PACKAGE, "--silent", "--pack-destination", tmp],
                check=True,
                capture_output=True,
                timeout=120,
            )
            (tarball,) = Path(tmp).glob("*.tgz")
            with tarfile.open(tarball) as archive:
                data = archive.extractfile(SARIF_SCHEMA_MEMBER).read()
            partial = Path(tmp) / "schema.json"
            partial.write_bytes(data)
            os.replace(partial, target)
    return json.loads(target.read_text())
