"""The `vllmcheck` distribution on its own, as a user installs just the linter: `pip install ./vllmcheck` into a
fresh venv (no Django in it), then `vllm-profiles-lint` on a command, a Kubernetes manifest and a
production-stack values file.

The venv is made once per version of ``vllmcheck/pyproject.toml`` (its dependencies) and kept under
~/.cache/vllm-profiles/; every run installs the working tree's ``vllmcheck/`` into it again. The folder is
copied first, so that building the wheel leaves no ``build/`` in the repository and two runs cannot share one.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .conftest import CACHE, HERE, ROOT

DIST = ROOT / "vllmcheck"
MANIFESTS = HERE / "manifests"


def _pip(python: Path, *args: str) -> None:
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, f"pip install {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}"


def _copy_of_dist(into: Path) -> Path:
    target = into / "vllmcheck"
    shutil.copytree(DIST, target, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    return target


@pytest.fixture(scope="module")
def linter_venv(tmp_path_factory) -> Path:
    """A venv holding only the vllmcheck distribution (and its dependencies), with this tree's code."""
    key = hashlib.sha256((DIST / "pyproject.toml").read_bytes() + sys.version.encode()).hexdigest()[:16]
    venv = CACHE / f"linter-dist-{key}"
    python = venv / "bin" / "python"
    dist = _copy_of_dist(tmp_path_factory.mktemp("dist"))
    if not (venv / "ready").exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f"{venv.name}.", dir=CACHE))
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(partial)], check=True, timeout=300)
        # As the README says: pip install ./vllmcheck, which brings the dependencies
        _pip(partial / "bin" / "python", str(dist))
        (partial / "ready").write_text(str(DIST / "pyproject.toml") + "\n")
        try:
            os.rename(partial, venv)  # made aside, then moved: a run stopped half-way leaves no broken venv
        except OSError:  # another run finished first: theirs is as good
            shutil.rmtree(partial, ignore_errors=True)
    # Every run: this tree's code (the console script is written again too, with the venv's final path)
    _pip(python, "--force-reinstall", "--no-deps", str(dist))
    return venv


def _run(venv: Path, *args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "PYTHONPATH")}
    env["HF_HUB_OFFLINE"] = "1"  # no model config is fetched: the findings below need none
    return subprocess.run(
        [str(venv / "bin" / args[0]), *args[1:]],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_the_linter_installs_alone_without_django_and_checks_commands_manifests_and_values(
    linter_venv, tmp_path
):
    work = tmp_path / "work"
    shutil.copytree(MANIFESTS, work)

    # nothing of the dashboard came with it: no Django, and vllmcheck is the installed copy, not the tree's
    proc = _run(linter_venv, "python", "-c", "import django", cwd=work)
    assert proc.returncode == 1 and "No module named 'django'" in proc.stderr
    proc = _run(linter_venv, "python", "-c", "import vllmcheck; print(vllmcheck.__file__)", cwd=work)
    assert proc.returncode == 0 and proc.stdout.startswith(str(linter_venv)), proc.stdout + proc.stderr

    # a command file, valid for the release its comment names
    proc = _run(linter_venv, "vllm-profiles-lint", "serve.sh", cwd=work)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[0] == "serve.sh: vLLM 0.33.0: valid"

    # a command on standard input, with a misspelt flag
    proc = _run(
        linter_venv,
        "vllm-profiles-lint",
        "--vllm-version",
        "0.33.0",
        "-",
        cwd=work,
        stdin="vllm serve m --tensor-paralel-size 2\n",
    )
    assert proc.returncode == 1 and "--tensor-parallel-size" in proc.stdout, proc.stdout + proc.stderr

    # a Kubernetes Deployment running vLLM 0.31.0 (its image tag): refused with vLLM's words, at the flag
    proc = _run(linter_venv, "vllm-profiles-lint", "teacher-deployment.yaml", cwd=work)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (
        "teacher-deployment.yaml:20:15: error [vllm] sampling-replay-no-speculative: "
        "sampling distribution replay does not support speculative decoding"
    ) in proc.stdout

    # production-stack Helm values: each model spec on its own
    proc = _run(linter_venv, "vllm-profiles-lint", "stack-values.yaml", cwd=work)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "(production-stack values, modelSpec llama3): vLLM 0.33.0: INVALID" in proc.stdout
    assert "(production-stack values, modelSpec mistral): vLLM 0.33.0: valid" in proc.stdout
    assert "stack-values.yaml:17:21: error [vllm] max-batched-tokens-ge-max-num-seqs" in proc.stdout
