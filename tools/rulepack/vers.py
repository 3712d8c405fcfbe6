"""Shared settings of the rule-pack tools: the releases, where their sources are, where the index is
cached."""

import os
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
REPO = TOOLS.parents[1]
PACK = REPO / "validation" / "rulepacks" / "builtin.yaml"
CASES = REPO / "tests" / "engine" / "rulepack_cases"
VLLM_SRC = Path(os.environ.get("VLLM_SRC", "/work/vllm-src/src"))
INDEX = Path(
    os.environ.get("RULEPACK_INDEX", Path(os.environ.get("TMPDIR", "/tmp")) / "vllm-rulepack-index.json")
)
VERS = (
    "0.20.0 0.20.1 0.20.2 0.21.0 0.22.0 0.22.1 0.23.0 0.24.0 0.25.0 0.25.1 0.26.0 0.27.0 0.27.1 0.28.0 "
    "0.29.0 0.30.0 0.31.0 0.32.0 0.33.0 0.34.0"
).split()
