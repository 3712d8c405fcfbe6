"""Release diff (vllmcheck.engine.diff) and rule coverage (vllmcheck.engine.coverage), no database."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from packaging.version import Version

from vllmcheck import RULE_PACK_FIRST_RELEASE
from vllmcheck.engine.catalog import Catalog
from vllmcheck.engine.coverage import messages_match, rule_applies, rule_coverage
from vllmcheck.engine.diff import diff_catalogs, renamed_arguments, render_diff_text
from vllmcheck.engine.rules import load_pack

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = ROOT / "vllmcheck" / "catalogs"


@cache
def catalog(version: str) -> Catalog:
    return Catalog.load(CATALOGS / f"{version}.json")


def arg(name: str, **extra) -> dict:
    return {"name": name, "flags": ["--" + name.replace("_", "-")], "type": "str", "help": "", **extra}


def synthetic(version: str, arguments: list[dict], errors: list[dict] | None = None) -> Catalog:
    return Catalog.from_dict({"version": version, "arguments": arguments, "errors": errors or []})


# ---- diff


def test_diff_of_real_releases():
    diff = diff_catalogs(catalog("0.26.0"), catalog("0.28.0"))
    removed = {a["name"] for a in diff["arguments"]["removed"]}
    assert {"max_num_partial_prefills", "max_long_partial_prefills", "calculate_kv_scales"} <= removed
    assert "return_sampling_mask" in {a["name"] for a in diff["arguments"]["added"]}
    assert diff["summary"]["arguments_removed"] == len(removed)
    assert diff["errors"]["added"] and all(e["sites"][0]["file"] for e in diff["errors"]["added"])
    same = diff_catalogs(catalog("0.33.0"), catalog("0.33.0"))
    assert same["arguments"] == {"added": [], "removed": [], "renamed": [], "changed": []}
    assert same["errors"] == {"added": [], "removed": []}


def test_rename_with_unchanged_help_is_found():
    assert renamed_arguments(catalog("0.30.0"), catalog("0.31.0")) == {
        "enable_mamba_fine_grained_prefix_cache": "enable_mamba_shared_prefix_checkpoint"
    }


def test_renames_from_deprecation_text_help_and_moved_field():
    old = synthetic(
        "1.0.0",
        [
            arg("old_a", deprecated=True, deprecation="Deprecated: use --new-a instead."),
            arg("old_b", help="Some knob. Replaced by `new_b`."),
            arg("old_c", origin={"class": "X", "field": "knob_c"}),
            arg("gone", help="Only useful with `new_a`."),
        ],
    )
    new = synthetic(
        "1.1.0",
        [
            arg("new_a"),
            arg("new_b"),
            arg("new_c", origin={"class": "Y", "field": "knob_c"}),
            arg("brand_new"),
        ],
    )
    diff = diff_catalogs(old, new)
    assert {(r["from"], r["to"], r["reason"]) for r in diff["arguments"]["renamed"]} == {
        ("old_a", "new_a", "deprecation"),
        ("old_b", "new_b", "help"),
        ("old_c", "new_c", "same-field"),
    }
    assert [a["name"] for a in diff["arguments"]["removed"]] == ["gone"]
    assert [a["name"] for a in diff["arguments"]["added"]] == ["brand_new"]


def test_changed_default_choices_type_and_errors():
    old = synthetic(
        "1.0.0",
        [arg("mode", choices=["a", "b"], default="a"), arg("size", type="int", default=1)],
        errors=[
            {"message": "size  must be\n positive", "file": "f.py", "line": 1},
            {"message": "gone", "line": 2},
        ],
    )
    new = synthetic(
        "1.1.0",
        [arg("mode", choices=["a", "c"], default="c"), arg("size", type="float", default=1)],
        errors=[
            {"message": "size must be positive", "file": "f.py", "line": 9},
            {"message": "new", "line": 3},
        ],
    )
    diff = diff_catalogs(old, new)
    changes = {c["name"]: c["changes"] for c in diff["arguments"]["changed"]}
    assert changes["mode"]["choices"]["added"] == ["c"] and changes["mode"]["choices"]["removed"] == ["b"]
    assert changes["mode"]["default"] == {"from": "a", "to": "c"}
    assert changes["size"]["type"] == {"from": "int", "to": "float"}
    assert "default" not in changes["size"]  # 1 == 1
    assert [e["message"] for e in diff["errors"]["added"]] == ["new"]  # whitespace does not count
    assert [e["message"] for e in diff["errors"]["removed"]] == ["gone"]
    text = render_diff_text(diff)
    assert "choices: +'c' -'b'" in text and "default: 'a' -> 'c'" in text


# ---- coverage


def test_messages_match_with_placeholders_on_either_side():
    assert messages_match("Expected {x} to be  positive", "Expected {self.x}\n to be positive")
    assert messages_match("tp must divide {n}", "tp must divide {self.num_heads}")
    assert messages_match("tp must divide 32", "tp must divide {self.num_heads}")
    assert not messages_match("tp must divide 32 heads", "tp must divide {n}.")
    assert not messages_match("something else", "tp must divide {n}")
    assert messages_match("first line.\\n- second", "first line.\n- second")  # escaped newline in a rule


def test_rule_applies_by_version_range():
    assert rule_applies({"versions": ">=0.28.0,<0.32.0"}, "0.31.0")
    assert not rule_applies({"versions": ">=0.28.0,<0.32.0"}, "0.32.0")
    assert rule_applies({"versions": ""}, "0.20.0")


def test_coverage_counts_covered_uncovered_and_stale():
    cat = synthetic(
        "1.0.0",
        [arg("x")],
        errors=[
            {"message": "a must be {a}", "file": "vllm/config/a.py", "line": 1},
            {"message": "b is wrong", "file": "vllm/config/b.py", "line": 2},
            {"message": "c is wrong", "file": "vllm/config/c.py", "line": 3},
        ],
    )
    rules = [
        {"id": "r-a", "category": "vllm", "message": "a must be {self.a}", "versions": ">=1.0"},
        {
            "id": "r-old",
            "category": "vllm",
            "message": "gone",
            "versions": ">=0.9",
            "source": "x/vllm/config/q.py",
        },
        {"id": "r-later", "category": "vllm", "message": "b is wrong", "versions": ">=2.0"},
        {"id": "p", "category": "policy", "message": "c is wrong"},
        {"id": "off", "category": "vllm", "message": "c is wrong", "enabled": False},
        {  # pydantic's error for a field's bound: no raise-site to cover, never stale
            "id": "bound",
            "category": "vllm",
            "message": "x: Input should be greater than or equal to 1",
            "versions": ">=0.9",
            "error_class": "pydantic:greater_than_equal",
        },
    ]
    report = rule_coverage(cat, rules)
    assert report["summary"]["raise_sites"] == 3 and report["summary"]["covered"] == 1
    assert report["summary"]["covered_percent"] == 33.3
    assert report["covered"][0]["rules"] == ["r-a"]
    assert [s["message"] for s in report["uncovered"]] == ["b is wrong", "c is wrong"]
    assert [r["id"] for r in report["stale_rules"]] == ["r-old"]
    assert report["summary"]["rules_claiming"] == 2


def test_builtin_pack_covers_every_release_with_few_stale_rules():
    rules = load_pack(ROOT / "vllmcheck" / "rulepacks" / "builtin.yaml")["rules"]
    for path in sorted(CATALOGS.glob("*.json")):
        if Version(path.stem) < Version(RULE_PACK_FIRST_RELEASE):
            continue  # the old releases' start-up checks are not in the pack (they serve upgrade paths)
        report = rule_coverage(catalog(path.stem), rules)
        summary = report["summary"]
        assert summary["covered"] > 0, path.stem
        # Stale rules are only checks vLLM runs outside vllm/config/ (CLI, platform): none has gone missing.
        assert all(r["outside_config_code"] for r in report["stale_rules"]), (
            path.stem,
            report["stale_rules"],
        )


# ---- value sets and assert sites


def test_value_set_changes_between_releases():
    def with_sets(version, sets):
        return Catalog.from_dict(
            {"version": version, "arguments": [], "value_sets": {k: {"values": v} for k, v in sets.items()}}
        )

    a = with_sets("1.0.0", {"speculative_methods": ["ngram", "medusa"], "gone": ["x"]})
    b = with_sets("1.1.0", {"speculative_methods": ["ngram", "eagle3"], "new_set": ["y", "z"]})
    diff = diff_catalogs(a, b)
    assert diff["value_sets"] == {
        "added": [{"name": "new_set", "values": ["y", "z"]}],
        "removed": [{"name": "gone", "values": ["x"]}],
        "changed": [{"name": "speculative_methods", "added": ["eagle3"], "removed": ["medusa"]}],
    }
    assert diff["summary"]["value_sets_changed"] == 1
    text = render_diff_text(diff)
    assert "Value sets:" in text and "* speculative_methods: +'eagle3' -'medusa'" in text
    # a catalog without value sets (an old import) reports no change rather than every set added
    assert diff_catalogs(synthetic("0.9.0", []), b)["value_sets"]["added"] == []


def test_value_set_changes_of_shipped_releases():
    diff = diff_catalogs(catalog("0.33.0"), catalog("0.34.0"))
    changed = {c["name"]: c for c in diff["value_sets"]["changed"]}
    assert changed, "0.34.0 changed no value set?"
    for entry in changed.values():
        before = set(catalog("0.33.0").values[entry["name"]])
        after = set(catalog("0.34.0").values[entry["name"]])
        assert set(entry["added"]) == after - before and set(entry["removed"]) == before - after


def test_coverage_counts_assert_sites_apart():
    errors = [
        {"message": "x must be positive", "class": "ValueError", "kind": "raise", "file": "f", "line": 1},
        {
            "message": "{n} not divisible by {tp}",
            "class": "AssertionError",
            "kind": "assert",
            "file": "f",
            "line": 2,
        },
        {"message": "never", "class": "AssertionError", "kind": "assert", "file": "f", "line": 3},
    ]
    cat = synthetic("1.0.0", [], errors)
    rules = [{"id": "div", "category": "vllm", "message": "8 not divisible by 3"}]
    report = rule_coverage(cat, rules)
    assert report["summary"]["by_kind"] == {
        "raise": {"sites": 1, "covered": 0},
        "assert": {"sites": 2, "covered": 1},
    }
    assert [e["kind"] for e in report["covered"]] == ["assert"]


def test_coverage_counts_the_sites_of_the_catalogs_own_value_checks():
    errors = [
        {"message": "Unknown quantization method: {q}. Must be one of {s}.", "file": "m.py", "line": 7},
        {"message": "Invalid kv_cache_dtype: {d}", "file": "c.py", "line": 3},
        {"message": "Unknown mode {m}", "file": "cc.py", "line": 9},
    ]
    cat = Catalog.from_dict(
        {
            "version": "1.0.0",
            "arguments": [],
            "errors": errors,
            "value_sets": {"quantization_methods": {"values": ["fp8"]}},
            "value_checks": [
                {
                    "set": "quantization_methods",
                    "argument": "quantization",
                    "site": {"file": "m.py", "line": 7},
                },
                # a check whose value set the catalog does not hold is not run, so it covers nothing
                {"set": "kv_cache_dtypes", "argument": "kv_cache_dtype", "site": {"file": "c.py", "line": 3}},
            ],
        }
    )
    report = rule_coverage(cat, [])
    assert report["summary"]["covered"] == 1
    assert report["covered"][0]["rules"] == ["catalog:quantization"]
    assert [e["file"] for e in report["uncovered"]] == ["c.py", "cc.py"]
    # the real catalogs: the quantization site of every release is the catalog's own check
    for version in ("0.28.0", "0.34.0"):
        covered = rule_coverage(catalog(version), [])["covered"]
        assert any("catalog:quantization" in e["rules"] for e in covered), version
