"""Read a vLLM release's Python sources from a wheel (zip) or an unpacked tree, never importing them."""

from __future__ import annotations

import hashlib
import re
import zipfile
from pathlib import Path

WHEEL_VERSION = re.compile(r"^vllm-(?P<version>[0-9][^-]*)-")
# The vllm/*.py files of a wheel are read into memory: at most this much, uncompressed (vLLM's are tens of
# MB), so a wheel from a compromised index (its sha256 matching the index's) cannot exhaust the worker.
MAX_SOURCE_BYTES = 256 << 20


class SourceTree:
    """Text of the files under ``vllm/``; ``get`` returns None for a file that does not exist."""

    def __init__(
        self, files: dict[str, str], *, origin: str, wheel: str | None = None, sha256: str | None = None
    ):
        self.files = files
        self.origin = origin
        self.wheel = wheel
        self.sha256 = sha256

    @classmethod
    def from_wheel(cls, path: str | Path) -> SourceTree:
        path = Path(path)
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
        files: dict[str, str] = {}
        with zipfile.ZipFile(path) as zf:
            members = [
                m for m in zf.infolist() if m.filename.startswith("vllm/") and m.filename.endswith(".py")
            ]
            total = sum(member.file_size for member in members)
            if total > MAX_SOURCE_BYTES:  # zipfile never reads a member beyond its stated size
                raise ValueError(
                    f"{path.name}: its vllm/*.py files hold {total} bytes, more than {MAX_SOURCE_BYTES}"
                )
            for member in members:
                files[member.filename] = zf.read(member).decode("utf-8", errors="replace")
        return cls(files, origin=str(path), wheel=path.name, sha256=digest.hexdigest())

    @classmethod
    def from_dir(cls, root: str | Path) -> SourceTree:
        root = Path(root)
        if (root / "vllm").is_dir():
            base = root
        elif root.name == "vllm":
            base = root.parent
        else:
            raise FileNotFoundError(f"{root}: no vllm/ package here")
        files: dict[str, str] = {}
        for path in (base / "vllm").rglob("*.py"):
            files[path.relative_to(base).as_posix()] = path.read_text(encoding="utf-8", errors="replace")
        return cls(files, origin=str(root))

    def get(self, path: str) -> str | None:
        return self.files.get(path)

    def module_path(self, dotted: str) -> str | None:
        base = dotted.replace(".", "/")
        for candidate in (f"{base}.py", f"{base}/__init__.py"):
            if candidate in self.files:
                return candidate
        return None

    def listdir(self, prefix: str) -> list[str]:
        """Files directly under ``prefix/`` (sorted)."""
        prefix = prefix.rstrip("/") + "/"
        return sorted(p for p in self.files if p.startswith(prefix) and "/" not in p[len(prefix) :])

    def version(self) -> str | None:
        text = self.get("vllm/_version.py") or ""
        m = re.search(r"""^__version__\s*=\s*(?:\w+\s*=\s*)*['"]([^'"]+)['"]""", text, re.M)
        if m:
            return m.group(1).split("+")[0]
        if self.wheel:
            m = WHEEL_VERSION.match(self.wheel)
            if m:
                return m.group("version")
        return None

    def commit(self) -> str | None:
        """The short git commit from ``vllm/_version.py`` (``'gdb9527a46'`` -> ``'db9527a46'``)."""
        text = self.get("vllm/_version.py") or ""
        m = re.search(r"""^__commit_id__\s*=\s*(?:\w+\s*=\s*)*['"]([^'"]*)['"]""", text, re.M)
        if not m:
            m = re.search(r"""^__version__\s*=.*\+g([0-9a-f]{7,40})""", text, re.M)
            return m.group(1) if m else None
        commit = m.group(1)
        if re.fullmatch(r"g[0-9a-f]{7,40}", commit):
            commit = commit[1:]
        return commit or None
