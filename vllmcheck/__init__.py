"""vllmcheck: checks vLLM launches against the release they will run, in plain Python (no Django).

The parts: ``engine`` (parse a launch, render it, the argument catalogs, the CEL rules, findings, manifests),
``catalog_builder`` (reads a vLLM wheel with ``ast``, writes a catalog), ``modelhub`` (a model's config from a
local folder or the Hugging Face Hub), ``linter`` (the ``vllm-profiles-lint`` command) and the shipped data:
``catalogs/*.json`` (one per vLLM release) and ``rulepacks/builtin.yaml`` (the built-in rule pack).
The Django apps of vLLM Profiles build on this package; it never imports them.
"""

from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent
CATALOG_DIR = PACKAGE_ROOT / "catalogs"
BUILTIN_PACK = PACKAGE_ROOT / "rulepacks" / "builtin.yaml"
# The built-in rule pack's vLLM rules are derived from the sources of the releases from this one on; the
# older catalogs (0.8.0-0.19.x) serve parsing, catalog checks and upgrade paths, and no vllm rule claims them.
RULE_PACK_FIRST_RELEASE = "0.20.0"
