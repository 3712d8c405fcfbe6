"""`vllm-profiles-lint --upgrade-from X --vllm-version Y`: what breaks on the way, run as a real process."""

from __future__ import annotations

import json

from .conftest import run_lint

V0_PROFILE = (
    "vllm serve m --enable-reasoning --reasoning-parser deepseek_r1 --num-scheduler-steps 8 "
    "--max-seq-len-to-capture 8192\n"
)


def test_upgrade_from_0_8_5_names_each_flag_its_release_and_replacement(tmp_path):
    profile = tmp_path / "old.sh"
    profile.write_text(V0_PROFILE)
    proc = run_lint("--upgrade-from", "0.8.5", "--vllm-version", "0.34.0", str(profile))
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    assert "upgrade 0.8.5 -> 0.34.0" in out
    assert "0.9.0: --enable-reasoning deprecated (vLLM says: removed in 0.10.0)" in out
    assert "0.10.0: --enable-reasoning removed; nothing replaces it, drop it (--reasoning-parser alone" in out
    assert "0.10.1: --num-scheduler-steps removed; nothing replaces it" in out
    assert "0.11.0: --max-seq-len-to-capture removed; nothing replaces it" in out
    assert "first refused by 0.10.0: unrecognized arguments: --enable-reasoning" in out
    assert "proposed revision: vllm serve m --reasoning-parser deepseek_r1" in out


def test_upgrade_json_and_a_profile_that_survives(tmp_path):
    profile = tmp_path / "fine.sh"
    profile.write_text("vllm serve m --max-model-len 4096\n")
    proc = run_lint("--upgrade-from", "0.9.2", "--vllm-version", "0.20.0", "--format", "json", str(profile))
    assert proc.returncode == 0, proc.stderr
    [result] = json.loads(proc.stdout)
    assert result["from"] == "0.9.2" and result["to"] == "0.20.0" and result["refused_at"] is None


def test_upgrade_from_an_unknown_release_is_a_usage_error(tmp_path):
    profile = tmp_path / "p.sh"
    profile.write_text(V0_PROFILE)
    proc = run_lint("--upgrade-from", "0.7.3", "--vllm-version", "0.34.0", str(profile))
    assert proc.returncode == 2
    assert "--upgrade-from '0.7.3': unknown vLLM release (this linter knows 0.8.0 to 0.34.0)" in proc.stderr


def test_a_value_a_later_release_parses_differently_is_refused_there(tmp_path):
    profile = tmp_path / "mm.sh"
    profile.write_text("vllm serve m --limit-mm-per-prompt image=2\n")
    proc = run_lint("--upgrade-from", "0.8.5", "--vllm-version", "0.10.2", str(profile))
    assert proc.returncode == 1, proc.stderr
    assert "0.9.0: --limit-mm-per-prompt refused (argument --limit-mm-per-prompt: invalid JSON" in proc.stdout
    assert "first refused by 0.9.0" in proc.stdout
