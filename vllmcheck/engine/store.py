"""Keeping a compiled rule set, with the release plans it built, between processes.

Compiling the built-in pack (a few hundred CEL programs) and planning a release (read sets, ``has()``
guards, every rule run once on the release's empty profile) costs seconds; loading the result costs
milliseconds. The server-free linter keeps it in the user's cache, the server in Django's cache: both key it
by the pack, :func:`engine_fingerprint` (this engine's source and the CEL build it runs on) and the catalogs
the plans were built from, so a change to any of them is never served from a stale copy.

A pickled rule set holds each CEL program as its source (``messages.LazyProgram``: compiled again when
first executed) and no memoised outcome (``rules.plan._ReleasePlan.__getstate__``): only what compiling and
planning computed.
"""

from __future__ import annotations

import hashlib
import pickle  # nosec B403  # see loads()
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

ENGINE_DIR = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """A digest of what a stored rule set depends on besides its pack and catalogs: the engine's module path
    and source, the Python and ``packaging`` versions (release ranges) and the CEL extension module."""
    import cel
    import packaging

    # The package's name too: pickles name their classes by module path (vllmcheck.engine.*), so moving the
    # engine must not reuse a rule set pickled under the old path.
    digest = hashlib.sha256(f"{__name__}|{sys.version}|{packaging.__version__}".encode())
    for source in sorted(ENGINE_DIR.rglob("*.py")):  # the rules' subpackage too
        digest.update(source.relative_to(ENGINE_DIR).as_posix().encode())
        digest.update(source.read_bytes())
    for path in sorted(Path(cel.__file__).parent.glob("*.so")):
        stat = path.stat()
        digest.update(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def dumps(ruleset: Any) -> bytes | None:
    """The rule set as bytes, or None if it cannot be pickled now (a plan being added by another thread)."""
    try:
        return pickle.dumps(ruleset, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError, RuntimeError):
        return None


def loads(data: bytes) -> Any:
    return pickle.loads(data)  # nosec B301  # bytes from Django's cache, written by this server only
