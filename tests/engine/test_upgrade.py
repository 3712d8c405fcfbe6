"""The upgrade path of a profile from an old release to a new one, read from the shipped catalogs."""

from __future__ import annotations

import pytest

from vllmcheck import CATALOG_DIR
from vllmcheck.engine.catalog import Catalog
from vllmcheck.engine.parse import parse_command
from vllmcheck.engine.upgrade import (
    REPLACEMENTS,
    fleet_table,
    releases_between,
    removal_release,
    revision_command,
    upgrade_path,
)

VERSIONS = [p.stem for p in CATALOG_DIR.glob("*.json")]


def catalogs(start: str, target: str) -> list[Catalog]:
    return [Catalog.load(CATALOG_DIR / f"{v}.json") for v in releases_between(VERSIONS, start, target)]


def path_for(command: str, start: str, target: str) -> dict:
    cats = catalogs(start, target)
    parsed = parse_command(command, catalog=cats[0])
    return upgrade_path(parsed["args"], cats)


def changes(path: dict) -> list[tuple[str, str, str, str | None]]:
    return [
        (c["release"], c["flag"], c["kind"], c["replacement"]) for e in path["releases"] for c in e["changes"]
    ]


def test_old_releases_ship_from_0_8_to_0_19():
    old = [v for v in VERSIONS if releases_between([v], "0.8.0", "0.19.99")]
    assert len(old) >= 20
    assert {"0.8.0", "0.8.5", "0.9.2", "0.10.2", "0.11.0", "0.19.1"} <= set(old)


def test_v0_flags_from_0_8_5_to_0_34_0_name_the_release_and_the_replacement():
    path = path_for(
        "vllm serve m --enable-reasoning --reasoning-parser deepseek_r1 --num-scheduler-steps 8 "
        "--max-seq-len-to-capture 8192",
        "0.8.5",
        "0.34.0",
    )
    found = changes(path)
    assert ("0.9.0", "--enable-reasoning", "deprecated", REPLACEMENTS["enable_reasoning"].note) in found
    assert ("0.10.0", "--enable-reasoning", "removed", None) in found
    assert ("0.10.1", "--num-scheduler-steps", "removed", None) in found
    assert ("0.11.0", "--max-seq-len-to-capture", "removed", None) in found
    deprecated = next(c for e in path["releases"] for c in e["changes"] if c["kind"] == "deprecated")
    assert deprecated["removed_in"] == "0.10.0" and deprecated["removed_in_said_by"] == "vllm"
    assert path["refused_at"] == "0.10.0"
    assert path["refusal"] == "unrecognized arguments: --enable-reasoning"
    assert path["revision"]["args"] == {"reasoning_parser": "deepseek_r1"}
    assert revision_command("m", path["revision"]["args"], catalogs("0.34.0", "0.34.0")[0]) == (
        "vllm serve m --reasoning-parser deepseek_r1"
    )


def test_replacements_are_rewritten_into_flags_the_target_has():
    path = path_for(
        'vllm serve m --task embed --disable-log-requests --rope-scaling \'{"rope_type": "yarn"}\'',
        "0.10.2",
        "0.34.0",
    )
    found = changes(path)
    assert ("0.11.1", "--rope-scaling", "removed", "--hf-overrides") in found
    assert ("0.13.0", "--task", "removed", "--runner --convert") in found
    assert ("0.17.0", "--disable-log-requests", "removed", "--no-enable-log-requests") in found
    assert path["refused_at"] == "0.11.1"
    target = catalogs("0.34.0", "0.34.0")[0]
    assert revision_command("m", path["revision"]["args"], target) == (
        'vllm serve m --hf-overrides \'{"rope_scaling":{"rope_type":"yarn"}}\' --runner pooling '
        "--convert embed --no-enable-log-requests"
    )


def test_speculative_model_becomes_a_speculative_config():
    path = path_for("vllm serve m --speculative-model d --num-speculative-tokens 5", "0.8.0", "0.9.2")
    assert ("0.8.3", "--speculative-model", "removed", "--speculative-config") in changes(path)
    assert path["revision"]["args"] == {"speculative_config": {"model": "d", "num_speculative_tokens": 5}}


@pytest.mark.parametrize("name", sorted(REPLACEMENTS))
def test_every_replacement_names_an_argument_vllm_removed_and_flags_the_next_release_has(name):
    cats = catalogs("0.8.0", "0.34.0")
    present = [c.version for c in cats if name in c.by_name]
    assert present, f"{name} is in no catalog"
    after = [c for c in cats if releases_between([c.version], present[-1], "9") and c.version != present[-1]]
    assert after and name not in after[0].by_name
    for flag in REPLACEMENTS[name].flags:
        if flag.startswith("--no-"):
            flag = "--" + flag[5:]
        assert flag in after[0].by_flag, f"{flag} is not in {after[0].version}"


def test_removal_release_is_read_from_vllm_text():
    assert removal_release("This flag (`--enable-reasoning`) will be removed in v0.10.0.") == "0.10.0"
    assert removal_release("[DEPRECATED] Disable logging requests.") is None


def test_fleet_table_marks_each_release():
    rows = fleet_table(
        [
            ("old", {"num_scheduler_steps": 8}, catalogs("0.9.2", "0.11.0")),
            ("plain", {"max_model_len": 4096}, catalogs("0.9.2", "0.11.0")),
        ]
    )
    assert rows[0]["refused_at"] == "0.10.1"
    assert rows[0]["cells"]["0.10.0"] == "ok" and rows[0]["cells"]["0.10.1"] == "refused"
    assert rows[0]["cells"]["0.11.0"] == "refused"
    assert set(rows[1]["cells"].values()) == {"ok"}


def test_no_vllm_rule_claims_a_release_before_the_rule_packs_first():
    import yaml
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    from vllmcheck import BUILTIN_PACK, RULE_PACK_FIRST_RELEASE

    old = [v for v in VERSIONS if Version(v) < Version(RULE_PACK_FIRST_RELEASE)]
    rules = yaml.safe_load(BUILTIN_PACK.read_text())["rules"]
    claiming = [
        (r["id"], v)
        for r in rules
        if r.get("category") == "vllm"
        for v in old
        if r.get("versions") is None or Version(v) in SpecifierSet(r["versions"])
    ]
    assert old and claiming == []
