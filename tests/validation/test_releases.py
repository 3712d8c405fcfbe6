"""Releases: import (service and command), show_release, release_diff, rule_coverage and their endpoints."""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from profiles.models import Recheck
from validation.models import VllmRelease
from validation.selectors import CatalogHistory, catalog_for
from validation.services.releases import release_coverage, release_import

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = ROOT / "vllmcheck" / "catalogs"
pytestmark = pytest.mark.django_db


def shipped(version: str) -> dict:
    return json.loads((CATALOGS / f"{version}.json").read_text())


def command(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


# ---- import


def test_reimporting_an_unchanged_catalog_writes_nothing(django_capture_on_commit_callbacks):
    before = VllmRelease.objects.get(version="0.33.0")
    with django_capture_on_commit_callbacks() as callbacks:
        result = release_import(version="0.33.0", catalog=shipped("0.33.0"))
    assert (result.created, result.changed, result.recheck_scheduled) == (False, False, False)
    assert callbacks == []
    after = VllmRelease.objects.get(version="0.33.0")
    assert after.imported_at == before.imported_at and after.catalog_sha256 == before.catalog_sha256


def test_a_changed_catalog_updates_the_release_and_rechecks_it(django_capture_on_commit_callbacks):
    catalog = copy.deepcopy(shipped("0.33.0"))
    catalog["arguments"] = [a for a in catalog["arguments"] if a["name"] != "mamba_cache_mode"]
    before = VllmRelease.objects.get(version="0.33.0").catalog_sha256
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        result = release_import(version="0.33.0", catalog=catalog)
    assert (result.created, result.changed, result.recheck_scheduled) == (False, True, True)
    assert result.previous_digest == before != result.digest
    assert len(callbacks) >= 1
    release = VllmRelease.objects.get(version="0.33.0")
    assert "mamba_cache_mode" not in catalog_for(release).by_name
    assert Recheck.objects.filter(cause="release", release=release).count() == 1


def test_the_recheck_is_started_only_after_commit(django_capture_on_commit_callbacks):
    # validation starts it through its port (validation.recheck_port), which the profiles app registered.
    catalog = copy.deepcopy(shipped("0.32.0"))
    catalog["errors"] = catalog["errors"][1:]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        release_import(version="0.32.0", catalog=catalog)
    release = VllmRelease.objects.get(version="0.32.0")
    assert not Recheck.objects.filter(cause="release", release=release).exists() and len(callbacks) == 1
    callbacks[0]()
    recheck = Recheck.objects.get(cause="release", release=release)
    assert (recheck.cause_detail, recheck.created_by) == ("vLLM release 0.32.0", None)


def test_a_new_release_is_created_without_a_recheck(django_capture_on_commit_callbacks):
    catalog = {**shipped("0.34.0"), "version": "0.35.0"}
    with django_capture_on_commit_callbacks() as callbacks:
        result = release_import(version="0.35.0", catalog=catalog)
    assert (result.created, result.changed, result.recheck_scheduled) == (True, True, False)
    assert callbacks == []
    assert catalog_for(VllmRelease.objects.get(version="0.35.0")).version == "0.35.0"


def test_a_catalog_of_another_version_is_refused():
    with pytest.raises(Exception, match="not '0.31.0'"):
        release_import(version="0.31.0", catalog=shipped("0.33.0"))


def test_history_index_is_shared_until_a_catalog_changes():
    first = CatalogHistory().history_index()
    assert CatalogHistory().history_index() is first
    catalog = copy.deepcopy(shipped("0.30.0"))
    catalog["errors"] = []
    release_import(version="0.30.0", catalog=catalog)
    assert CatalogHistory().history_index() is not first


def test_import_command_from_the_wheel_is_idempotent(tmp_path, vllm_wheel):
    wheel = vllm_wheel("0.33.0")
    out = command("import_vllm_release", "0.33.0", "--wheel", str(wheel), "--write-catalog", str(tmp_path))
    assert "catalog unchanged" in out and "nothing written" in out
    assert json.loads((tmp_path / "0.33.0.json").read_text()) == shipped("0.33.0")


def test_import_command_refuses_what_it_cannot_read(tmp_path):
    with pytest.raises(CommandError) as exc:
        command("import_vllm_release", "0.33.0", "--wheel", str(tmp_path / "missing.whl"))
    assert exc.value.returncode == 2 and "no such wheel" in str(exc.value)
    with pytest.raises(CommandError) as exc:
        command("import_vllm_release", "not-a-version")
    assert exc.value.returncode == 2


# ---- show_release


def test_show_release_json_is_the_design_shape():
    document = json.loads(command("show_release", "0.33.0", "--format", "json"))
    assert set(document) == {"version", "arguments"} and document["version"] == "0.33.0"
    tp = next(a for a in document["arguments"] if a["name"] == "tensor_parallel_size")
    assert tp["flags"] == ["--tensor-parallel-size", "-tp"]
    assert list(tp)[:7] == ["flags", "name", "type", "default", "choices", "deprecated", "deprecation"]
    assert (tp["type"], tp["default"], tp["choices"], tp["deprecated"]) == ("int", 1, None, False)
    assert len(document["arguments"]) == len(shipped("0.33.0")["arguments"])


def test_show_release_text_is_a_table():
    text = command("show_release", "0.33.0")
    assert text.startswith("vLLM 0.33.0: 320 arguments")
    assert any(line.startswith("--tensor-parallel-size, -tp") for line in text.splitlines())


def test_show_release_of_an_unknown_version_exits_2_listing_the_known_ones():
    with pytest.raises(CommandError) as exc:
        command("show_release", "9.9.9", "--format", "json")
    assert exc.value.returncode == 2
    assert "unknown vLLM release '9.9.9'" in str(exc.value) and "0.20.0" in str(exc.value)


def test_show_release_exit_code_as_a_process():
    settings = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{settings['USER']}@{settings['HOST']}:{settings['PORT']}/{settings['NAME']}",
    }
    run = subprocess.run(
        [sys.executable, "manage.py", "show_release", "9.9.9"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 2 and "known releases: 0.8.0" in run.stderr


def test_lint_suggests_the_flag_and_names_removals(tmp_path):
    settings = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{settings['USER']}@{settings['HOST']}:{settings['PORT']}/{settings['NAME']}",
    }
    path = tmp_path / "serve.sh"
    path.write_text(
        "vllm serve m --tensor-paralel-size 2 --max-num-partial-prefills 2 --calculate-kv-scales\n"
    )
    run = subprocess.run(
        [sys.executable, "manage.py", "lint", "--vllm-version", "0.33.0", "--format", "json", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 1, run.stderr
    findings = {f["fields"][0]: f for f in json.loads(run.stdout)["findings"] if f["category"] == "catalog"}
    assert "did you mean --tensor-parallel-size?" in findings["tensor_paralel_size"]["message"]
    assert findings["max_num_partial_prefills"]["rule"] == "catalog-removed-argument"
    assert "removed in vLLM 0.27.0" in findings["max_num_partial_prefills"]["message"]
    assert "removed in vLLM 0.28.0" in findings["calculate_kv_scales"]["message"]


# ---- diff


def test_release_diff_command_and_endpoint(api):
    document = json.loads(command("release_diff", "0.30.0", "0.31.0", "--format", "json"))
    renamed = document["arguments"]["renamed"]
    assert [(r["from"], r["to"]) for r in renamed] == [
        ("enable_mamba_fine_grained_prefix_cache", "enable_mamba_shared_prefix_checkpoint")
    ]
    assert "logging_config" in {a["name"] for a in document["arguments"]["added"]}
    response = api.get("/api/v1/releases/0.30.0/diff/0.31.0/")
    assert response.status_code == 200
    assert response.json() == document
    text = command("release_diff", "0.26.0", "0.28.0")
    assert text.startswith("vLLM 0.26.0 -> 0.28.0") and "--calculate-kv-scales" in text
    assert api.get("/api/v1/releases/0.30.0/diff/9.9.9/").status_code == 404


def test_release_diff_shows_value_set_changes(api):
    document = json.loads(command("release_diff", "0.33.0", "0.34.0", "--format", "json"))
    changed = {c["name"]: c for c in document["value_sets"]["changed"]}
    assert "tool_call_parsers" in changed and changed["tool_call_parsers"]["added"]
    assert document["summary"]["value_sets_changed"] == len(changed)
    assert api.get("/api/v1/releases/0.33.0/diff/0.34.0/").json()["value_sets"] == document["value_sets"]
    text = command("release_diff", "0.33.0", "0.34.0")
    assert "\nValue sets:\n" in text and "  * tool_call_parsers: +" in text


def test_release_diff_of_an_unknown_release_exits_2():
    with pytest.raises(CommandError) as exc:
        command("release_diff", "0.30.0", "9.9.9")
    assert exc.value.returncode == 2


# ---- coverage


def test_rule_coverage_command_and_endpoint(api):
    report = json.loads(command("rule_coverage", "0.31.0", "--format", "json"))
    summary = report["summary"]
    assert summary["raise_sites"] == len(shipped("0.31.0")["errors"])
    assert summary["covered"] + summary["uncovered"] == summary["raise_sites"]
    assert 0 < summary["covered_percent"] < 100
    assert summary["rules_claiming"] == summary["rules_matched"] + summary["rules_stale"]
    seed = "sampling distribution replay does not support speculative decoding"
    assert any(seed in site["message"] and site["rules"] for site in report["covered"])
    response = api.get("/api/v1/releases/0.31.0/coverage/")
    assert response.status_code == 200 and response.json() == report
    assert api.get("/api/v1/releases/9.9.9/coverage/").status_code == 404
    text = command("rule_coverage", "0.31.0", "--limit", "2")
    assert f"{summary['covered']} of {summary['raise_sites']} raise-sites covered" in text


def test_coverage_of_a_release_without_catalog_says_how_to_import_it(api):
    VllmRelease.objects.create(version="0.7.3", major=0, minor=7, patch=3)
    with pytest.raises(Exception, match="import_vllm_release 0.7.3"):
        release_coverage(version="0.7.3")
    assert api.get("/api/v1/releases/0.7.3/coverage/").status_code == 404
