"""What the server-free linter ships with: the argument catalogs and the rule pack (built-in or exported)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # validation/
CATALOG_DIR = PACKAGE_ROOT / "catalogs"
BUILTIN_PACK = PACKAGE_ROOT / "rulepacks" / "builtin.yaml"


def _version_key(version: str) -> Version:
    try:
        return Version(version)
    except InvalidVersion:
        return Version("0")


class ShippedData:
    """Catalogs (read when first asked for) and the compiled rule set, shared by every file of one run."""

    def __init__(self, *, ruleset_path: str | None = None, catalog_dir: Path = CATALOG_DIR):
        self.catalog_dir = catalog_dir
        self.ruleset_path = Path(ruleset_path) if ruleset_path else None
        if self.ruleset_path is not None and not self.ruleset_path.is_file():
            from . import UsageError

            raise UsageError(f"--ruleset {ruleset_path}: no such file")
        self._catalogs: dict[str, Any] = {}

    @cached_property
    def versions(self) -> tuple[str, ...]:
        return tuple(sorted((p.stem for p in self.catalog_dir.glob("*.json")), key=_version_key))

    @property
    def newest(self) -> str:
        return self.versions[-1]

    def catalog(self, version: str):
        from validation.engine.catalog import Catalog

        if version not in self._catalogs:
            self._catalogs[version] = Catalog.load(self.catalog_dir / f"{version}.json")
        return self._catalogs[version]

    @cached_property
    def history(self) -> Mapping[str, Any]:
        return _LazyCatalogs(self)

    @cached_property
    def pack(self) -> dict[str, Any]:
        import yaml

        from validation.engine.rules import load_pack

        path = self.ruleset_path or BUILTIN_PACK
        raw = path.read_bytes()
        cached = _pack_cache_path(raw)
        try:
            data = json.loads(cached.read_bytes())
        except (OSError, ValueError):
            text = raw.decode("utf-8")
            if path.suffix == ".json":
                data = json.loads(text)
            else:
                data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
            _write_quietly(cached, json.dumps(data))
        if isinstance(data, dict) and "pack" not in data and isinstance(data.get("ruleset"), dict):
            data = data["ruleset"]  # the API's export wraps the pack with the rule set's number
        return load_pack(data)

    @cached_property
    def ruleset(self):
        from validation.engine.rules import compile_ruleset

        return compile_ruleset(self.pack)

    @property
    def ruleset_label(self) -> str:
        return str(self.ruleset_path) if self.ruleset_path else "built-in"


def _pack_cache_path(raw: bytes) -> Path:
    """Where the parsed pack is kept as JSON (about 100 times faster to read), keyed by its digest."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "vllm-profiles" / "packs" / f"{hashlib.sha256(raw).hexdigest()}.json"


def _write_quietly(path: Path, text: str) -> None:
    """A cache write that never fails the run (read-only home, full disk): the next run parses again."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(text)
        os.replace(partial, path)
    except OSError:
        pass


class _LazyCatalogs(Mapping[str, Any]):
    """Every shipped catalog, loaded only when an unknown argument needs the history to be explained."""

    def __init__(self, data: ShippedData):
        self._data = data
        self._index = None

    def __getitem__(self, version: str):
        if version not in self._data.versions:
            raise KeyError(version)
        return self._data.catalog(version)

    def __iter__(self) -> Iterator[str]:
        return iter(self._data.versions)

    def __len__(self) -> int:
        return len(self._data.versions)

    def history_index(self):
        from validation.engine.checks import HistoryIndex

        if self._index is None:
            self._index = HistoryIndex({v: self._data.catalog(v) for v in self._data.versions})
        return self._index
