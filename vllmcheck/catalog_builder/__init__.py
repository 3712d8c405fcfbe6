"""The engine-argument catalog extractor: reads a vLLM wheel (or source tree) statically, never importing it.

    python -m vllmcheck.catalog_builder --wheel vllm-0.31.0-....whl [--out DIR]
    python -m vllmcheck.catalog_builder --source /path/to/src --version 0.31.0
    python -m vllmcheck.catalog_builder --fetch 0.31.0   # pip download, then extract

The catalog shape is documented in :mod:`vllmcheck.engine.catalog`; each argument carries the
:class:`~vllmcheck.engine.types.ArgSpec` fields (plus ``origin``: the config class field it comes from).
"""

from __future__ import annotations

import json
import re
import subprocess  # nosec B404  # fetch_wheel runs pip, as an argument list
import sys
from pathlib import Path
from typing import Any

from .. import CATALOG_DIR
from .build import CatalogBuilder
from .source import SourceTree

__all__ = [
    "CATALOG_DIR",
    "CatalogBuilder",
    "SourceTree",
    "dump_catalog",
    "extract",
    "fetch_wheel",
    "write_catalog",
]


def extract(
    *, wheel: str | Path | None = None, source: str | Path | None = None, version: str | None = None
) -> dict:
    """The catalog dict of one release, from a wheel file or an unpacked source directory."""
    if (wheel is None) == (source is None):
        raise ValueError("give exactly one of wheel= or source=")
    tree = SourceTree.from_wheel(wheel) if wheel is not None else SourceTree.from_dir(source)
    version = version or tree.version()
    if not version:
        raise ValueError("cannot tell the vLLM version; pass version=")
    return CatalogBuilder(tree, version).build()


def dump_catalog(catalog: dict[str, Any]) -> str:
    """Deterministic JSON text (sorted keys, indent 1, trailing newline)."""
    return json.dumps(catalog, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def write_catalog(catalog: dict[str, Any], out_dir: str | Path = CATALOG_DIR) -> Path:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{catalog['version']}.json"
    path.write_text(dump_catalog(catalog), encoding="utf-8")
    return path


def fetch_wheel(version: str, dest_dir: str | Path) -> Path:
    """Download the vLLM wheel of ``version`` into ``dest_dir`` and return its path.

    Runs ``pip download --no-deps --only-binary :all: vllm==X -d DIR``; a wheel already there is reused.
    ``version`` must be a version number (it is a requirement's text for pip, never an option: no shell)."""
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)*([a-z0-9.+-]*)", version or ""):
        raise ValueError(f"{version!r} is not a vLLM version number")
    dest = Path(dest_dir)
    dest.mkdir(parents=True, exist_ok=True)
    existing = sorted(dest.glob(f"vllm-{version}-*.whl"))
    if existing:
        return existing[0]
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        f"vllm=={version}",
        "-d",
        str(dest),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)  # nosec B603  # argv of this interpreter's pip; the version is checked above
    found = sorted(dest.glob(f"vllm-{version}-*.whl"))
    if proc.returncode != 0 or not found:
        raise RuntimeError(
            f"pip download vllm=={version} failed: {(proc.stderr or proc.stdout).strip()[-2000:]}"
        )
    return found[0]
