"""A removed argument says the release it went in and what replaces it, from the upgrade path's one table
(``upgrade.REPLACEMENTS``), with a fix that rewrites the command: with the release history and without it."""

from pathlib import Path

import pytest
from packaging.version import Version

from vllmcheck.engine.catalog import Catalog
from vllmcheck.engine.checks import HistoryIndex, check_catalog
from vllmcheck.engine.upgrade import REPLACEMENTS

CATALOGS = Path(__file__).resolve().parents[2] / "vllmcheck" / "catalogs"
VERSIONS = sorted((p.stem for p in CATALOGS.glob("*.json")), key=Version)


def catalog(version: str) -> Catalog:
    return Catalog.load(CATALOGS / f"{version}.json")


@pytest.mark.parametrize("name", sorted(REPLACEMENTS))
def test_each_replacement_names_the_first_release_without_the_argument(name):
    present = [v for v in VERSIONS if name in catalog(v).by_name]
    first_without = next(v for v in VERSIONS if Version(v) > Version(present[-1]))
    assert REPLACEMENTS[name].removed_in == first_without


@pytest.mark.parametrize("history", [True, False])
def test_enable_reasoning_on_0_33_0_says_when_it_went_what_replaces_it_and_drops_it(history):
    target = catalog("0.33.0")
    index = HistoryIndex({v: catalog(v) for v in VERSIONS}) if history else None
    args = {"enable_reasoning": True, "reasoning_parser": "deepseek_r1"}
    [finding] = check_catalog(args, target, history=index)
    assert finding.rule == "catalog-removed-argument"
    assert "--enable-reasoning was removed in vLLM 0.10.0" in finding.message
    assert finding.message.endswith("what replaces it: --reasoning-parser alone enables reasoning")
    assert finding.fix == {"unset": ["enable_reasoning"]}
    assert finding.solutions[0] == "Remove --enable-reasoning."


def test_task_is_rewritten_into_runner_and_convert_as_the_upgrade_path_does():
    [finding] = check_catalog({"task": "embed"}, catalog("0.33.0"))
    assert "--task was removed in vLLM 0.13.0" in finding.message
    assert finding.fix == {"unset": ["task"], "set": {"runner": "pooling", "convert": "embed"}}
    assert finding.solutions[0] == "Remove --task and set --runner, --convert instead."
