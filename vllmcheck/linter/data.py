"""What the server-free linter ships with: the argument catalogs and the rule pack (built-in or exported)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle  # nosec B403  # the user's own cache, see below
from collections.abc import Iterator, Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from .. import BUILTIN_PACK, CATALOG_DIR


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
        self._loaded_plans = -1  # release plans the rule set held when loaded from the cache

    @cached_property
    def versions(self) -> tuple[str, ...]:
        return tuple(sorted((p.stem for p in self.catalog_dir.glob("*.json")), key=_version_key))

    @property
    def newest(self) -> str:
        return self.versions[-1]

    def catalog(self, version: str):
        if version not in self._catalogs:
            self._catalogs[version] = _load_catalog(self.catalog_dir / f"{version}.json")
        return self._catalogs[version]

    @cached_property
    def history(self) -> Mapping[str, Any]:
        return _LazyCatalogs(self)

    @cached_property
    def _pack_raw(self) -> bytes:
        return (self.ruleset_path or BUILTIN_PACK).read_bytes()

    @cached_property
    def pack(self) -> dict[str, Any]:
        import yaml

        from vllmcheck.engine.rules import load_pack

        path = self.ruleset_path or BUILTIN_PACK
        raw = self._pack_raw
        cached = _pack_cache_path(raw)
        try:
            data = json.loads(cached.read_bytes())
        except (OSError, ValueError):
            text = raw.decode("utf-8")
            if path.suffix == ".json":
                data = json.loads(text)
            else:
                data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # nosec B506  # the Loader is yaml's SafeLoader (C or Python)
            _write_quietly(cached, json.dumps(data))
        if isinstance(data, dict) and "pack" not in data and isinstance(data.get("ruleset"), dict):
            data = data["ruleset"]  # the API's export wraps the pack with the rule set's number
        return load_pack(data)

    @cached_property
    def ruleset(self):
        """The compiled rule set, its CEL programs compiled when first executed.

        The first run with a pack compiles it in full (a CEL error names its rule then, never mid-run) and
        keeps the rule set, with the release plans it built, in the user's cache (``_compiled_path``); later
        runs with the same pack, engine and catalogs load it instead of parsing, compiling and planning
        again. The cache is the user's own, as Python's ``__pycache__`` is.
        """
        from vllmcheck.engine.rules import CompiledRuleSet, compile_ruleset

        try:
            with self._compiled_path.open("rb") as handle:
                ruleset = pickle.load(handle)  # nosec B301  # the user's own cache (~/.cache), like __pycache__
            if isinstance(ruleset, CompiledRuleSet) and ruleset.lazy:
                self._loaded_plans = len(ruleset._plans)
                return ruleset
        except Exception:  # nosec B110  # an unreadable cache is rebuilt below
            pass
        pack = self.pack
        compile_ruleset(pack)
        self._loaded_plans = -1
        return compile_ruleset(pack, lazy=True)

    @cached_property
    def _compiled_path(self) -> Path:
        from vllmcheck.engine.store import engine_fingerprint

        digest = hashlib.sha256(self._pack_raw)
        digest.update(engine_fingerprint().encode())
        for path in sorted(self.catalog_dir.glob("*.json")):
            stat = path.stat()
            digest.update(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
        return _cache_dir() / "rulesets" / f"{digest.hexdigest()}.pickle"

    def save_ruleset(self) -> None:
        """Keep the rule set for the next run if this run built it or planned a new release (never fails)."""
        ruleset = self.__dict__.get("ruleset")
        if ruleset is None or len(ruleset._plans) == self._loaded_plans:
            return
        try:
            data = pickle.dumps(ruleset, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError):
            return
        _write_quietly(self._compiled_path, data)

    @property
    def ruleset_label(self) -> str:
        return str(self.ruleset_path) if self.ruleset_path else "built-in"


def _load_catalog(path: Path):
    """A shipped catalog, parsed once and then kept in the user's cache as a pickle (several times faster to
    read than the JSON: an unknown argument makes the linter read every release's catalog), keyed by the
    file and the engine (``engine.store``)."""
    from vllmcheck.engine.catalog import Catalog
    from vllmcheck.engine.store import engine_fingerprint

    stat = path.stat()
    digest = hashlib.sha256(f"{path}:{stat.st_size}:{stat.st_mtime_ns}:{engine_fingerprint()}".encode())
    cached = _cache_dir() / "catalogs" / f"{digest.hexdigest()}.pickle"
    try:
        with cached.open("rb") as handle:
            catalog = pickle.load(handle)  # nosec B301  # the user's own cache (~/.cache), like __pycache__
        if isinstance(catalog, Catalog):
            return catalog
    except Exception:  # nosec B110  # no cache yet, or one this code cannot read: parse the JSON
        pass
    catalog = Catalog.load(path)
    with contextlib.suppress(pickle.PicklingError, TypeError, AttributeError):
        _write_quietly(cached, pickle.dumps(catalog, protocol=pickle.HIGHEST_PROTOCOL))
    return catalog


def _cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "vllm-profiles"


def _pack_cache_path(raw: bytes) -> Path:
    """Where the parsed pack is kept as JSON (about 100 times faster to read), keyed by its digest."""
    return _cache_dir() / "packs" / f"{hashlib.sha256(raw).hexdigest()}.json"


def _write_quietly(path: Path, content: str | bytes) -> None:
    """A cache write that never fails the run (read-only home, full disk): the next run parses again."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        if isinstance(content, bytes):
            partial.write_bytes(content)
        else:
            partial.write_text(content)
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
        from vllmcheck.engine.checks import HistoryIndex

        if self._index is None:
            self._index = HistoryIndex({v: self._data.catalog(v) for v in self._data.versions})
        return self._index
