"""The releases the rule-pack tools know (one per catalog in vllmcheck/catalogs/), where their sources are
(VLLM_SRC, one <X.Y.Z>/vllm/ per release) and where the message index is cached (RULEPACK_INDEX)."""

import hashlib
import os
from pathlib import Path

from packaging.version import Version

from vllmcheck import RULE_PACK_FIRST_RELEASE

TOOLS = Path(__file__).resolve().parent
REPO = TOOLS.parents[1]
PACK = REPO / "vllmcheck" / "rulepacks" / "builtin.yaml"
CASES = REPO / "tests" / "engine" / "rulepack_cases"
CATALOGS = REPO / "vllmcheck" / "catalogs"
# the same cache as the tests' (tests/vllm_sources.py fills it: python -m tests.vllm_sources --all)
VLLM_SRC = Path(
    os.environ.get("VLLM_SRC") or os.environ.get("VLLM_PROFILES_WHEELS") or "~/.cache/vllm-profiles/wheels"
).expanduser()
# The cache's name carries a digest of index.py, so a change to what is indexed (files, assert sites) never
# reads an index built by an older index.py.
_INDEXER = hashlib.sha256((TOOLS / "index.py").read_bytes()).hexdigest()[:12]
INDEX = Path(
    os.environ.get(
        "RULEPACK_INDEX", Path(os.environ.get("TMPDIR", "/tmp")) / f"vllm-rulepack-index-{_INDEXER}.json"
    )
)
# the releases the rule pack is derived from: the catalogs from RULE_PACK_FIRST_RELEASE on
RELEASES = sorted(
    (p.stem for p in CATALOGS.glob("*.json") if Version(p.stem) >= Version(RULE_PACK_FIRST_RELEASE)),
    key=Version,
)
if not RELEASES:
    raise SystemExit(f"no release catalogs in {CATALOGS}")
NEWEST = RELEASES[-1]


def source_dir(release):
    """The unpacked wheel of a release: VLLM_SRC/<release>/vllm/..."""
    path = VLLM_SRC / release
    if not (path / "vllm").is_dir():
        raise SystemExit(
            f"no vLLM {release} sources in {path}: pip download --no-deps --only-binary :all: "
            f"vllm=={release} and unzip the wheel there (or set VLLM_SRC)"
        )
    return path
