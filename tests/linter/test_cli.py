"""`vllm-profiles-lint`: files and directories in, findings with file, line and column out; no server."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jsonschema

from .conftest import HERE, ROOT, SCRIPT, run_lint

MANIFESTS = HERE / "manifests"


def test_directory_of_manifests_text_report_and_exit_1():
    proc = run_lint(str(MANIFESTS.relative_to(ROOT)))
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    # the Deployment runs vLLM 0.31.0 (image tag): refused with vLLM's words, at the flag's line
    assert (
        "tests/linter/manifests/teacher-deployment.yaml:20:15: error [vllm] sampling-replay-no-speculative: "
        "sampling distribution replay does not support speculative decoding"
    ) in out
    # both model specs of the production-stack values are checked, on 0.33.0 (their tag)
    assert "(production-stack values, modelSpec llama3): vLLM 0.33.0: INVALID" in out
    assert "(production-stack values, modelSpec mistral): vLLM 0.33.0: valid" in out
    assert "stack-values.yaml:17:21: error [vllm] max-batched-tokens-ge-max-num-seqs" in out
    # the command file's release comes from its comment; other YAML met in the walk is left alone
    assert "tests/linter/manifests/serve.sh: vLLM 0.33.0: valid" in out
    assert "workflow.yaml" not in out and "not-vllm.yaml" not in out


def test_sarif_report_is_valid_sarif_2_1_0(sarif_schema):
    proc = run_lint("--format", "sarif", str(MANIFESTS.relative_to(ROOT)))
    assert proc.returncode == 1, proc.stderr
    log = json.loads(proc.stdout)
    jsonschema.validate(log, sarif_schema)
    results = log["runs"][0]["results"]
    replay = next(r for r in results if r["ruleId"] == "sampling-replay-no-speculative")
    assert replay["level"] == "error"
    assert replay["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "tests/linter/manifests/teacher-deployment.yaml"},
        "region": {"startLine": 20, "startColumn": 15},
    }
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert rules[replay["ruleIndex"]]["id"] == "sampling-replay-no-speculative"


def test_github_annotations():
    proc = run_lint("--format", "github", str((MANIFESTS / "teacher-deployment.yaml").relative_to(ROOT)))
    assert proc.returncode == 1
    assert (
        "::error file=tests/linter/manifests/teacher-deployment.yaml,line=20,col=15,"
        "title=sampling-replay-no-speculative (vLLM 0.31.0)::sampling distribution replay does not support "
        "speculative decoding"
    ) in proc.stdout.splitlines()


def test_version_flag_overrides_the_image_tag_and_json_report(tmp_path):
    proc = run_lint(
        "--vllm-version", "0.32.0", "--format", "json", str(MANIFESTS / "teacher-deployment.yaml")
    )
    report = json.loads(proc.stdout)
    (profile,) = report["files"][0]["profiles"]
    assert profile["vllm_version"] == "0.32.0"
    assert profile["valid"] is True and proc.returncode == 0  # 0.32.0 allows ngram with replay
    assert report["valid"] is True


def test_exit_codes_for_valid_unparsable_and_unknown_release(tmp_path):
    good = tmp_path / "good.sh"
    good.write_text("vllm serve facebook/opt-125m --max-num-seqs 8\n")
    assert run_lint("--vllm-version", "0.33.0", str(good)).returncode == 0
    bad = tmp_path / "bad.sh"
    bad.write_text("vllm serve m --max-num-seqs 'unclosed\n")
    proc = run_lint(str(bad))
    assert proc.returncode == 2
    assert f"{bad}:" in proc.stdout and "cannot parse" in proc.stdout
    proc = run_lint("--vllm-version", "0.99.0", str(good))
    assert proc.returncode == 2 and "unknown vLLM release '0.99.0'" in proc.stdout


def test_standard_input_and_typo_suggestion():
    proc = run_lint("--vllm-version", "0.33.0", "-", stdin="vllm serve m --tensor-paralel-size 2\n")
    assert proc.returncode == 1
    assert "--tensor-parallel-size" in proc.stdout


def test_pre_commit_mode_skips_named_files_that_are_no_profile():
    named = [str(MANIFESTS / "ci" / "workflow.yaml"), str(MANIFESTS / "serve.sh")]
    assert run_lint("--skip-other-files", *named).returncode == 0
    # named without the flag, a non-vLLM YAML is read as a vLLM config, which it cannot be
    proc = run_lint(named[0])
    assert proc.returncode == 2
    assert "workflow.yaml:1:1: cannot parse: key True: config key True is not a string" in proc.stdout


def test_linter_needs_no_django():
    code = (
        "import sys; from vllmcheck.linter import main; "
        f"rc = main(['--format', 'json', {str(MANIFESTS / 'stack-values.yaml')!r}]); "
        "assert 'django' not in sys.modules, 'django imported'; sys.exit(rc)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["files"][0]["profiles"][0]["valid"] is False


def test_the_kept_rule_set_gives_the_report_of_a_full_compile(tmp_path):
    """The first run compiles the pack in full and keeps the rule set in the user's cache; later runs load it
    and give the same report, also for releases the first run did not plan; a damaged cache is rebuilt."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")

    def lint(*args: str) -> subprocess.CompletedProcess:
        command = [str(SCRIPT), "--format", "json", *args]
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)

    inputs = [str(MANIFESTS / "teacher-deployment.yaml"), str(MANIFESTS / "stack-values.yaml")]
    first = lint(*inputs)
    (kept,) = (tmp_path / "cache" / "vllm-profiles" / "rulesets").glob("*.pickle")
    assert first.returncode == 1 and json.loads(first.stdout)["valid"] is False
    assert lint(*inputs).stdout == first.stdout
    other = lint("--vllm-version", "0.31.0", *inputs)  # a release the first run did not plan
    (again,) = (tmp_path / "cache" / "vllm-profiles" / "rulesets").glob("*.pickle")
    env["XDG_CACHE_HOME"] = str(tmp_path / "fresh")
    assert lint("--vllm-version", "0.31.0", *inputs).stdout == other.stdout
    again.write_bytes(b"not a pickle")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    assert lint(*inputs).stdout == first.stdout
    assert kept.stat().st_size > 1000


def test_scripts_variables_set_and_strict(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text(
        "#!/bin/bash\nexport VLLM_USE_V1=1\n"
        "$ nohup vllm serve facebook/opt-125m --tensor-parallel-size $TP --max-num-seqs 8 > log 2>&1 &\n"
    )
    proc = run_lint("--vllm-version", "0.33.0", str(script))
    assert proc.returncode == 0, proc.stdout
    assert "could not verify: `--tensor-parallel-size` is `$TP`, a shell variable" in proc.stdout
    proc = run_lint("--vllm-version", "0.33.0", "--set", "TP=3", "--hardware", "gpus_per_node=2", str(script))
    assert proc.returncode == 1 and "`$TP`" not in proc.stdout  # bound: checked, and 3 GPUs > 2
    legacy = tmp_path / "legacy.sh"
    legacy.write_text("python -m vllm.entrypoints.api_server --model m\n")
    proc = run_lint(str(legacy))
    assert proc.returncode == 0 and "NOT CHECKED" in proc.stdout and "not-checked" in proc.stdout
    strict = run_lint("--strict", str(legacy))
    assert strict.returncode == 2 and "not checked" in strict.stdout  # nothing checked: as unreadable


def test_config_file_beside_the_command_is_read(tmp_path):
    (tmp_path / "conf.yaml").write_text("max-num-seqs: 0\n")
    command = tmp_path / "serve.sh"
    command.write_text("vllm serve facebook/opt-125m --config conf.yaml\n")
    proc = run_lint("--vllm-version", "0.33.0", str(command))
    assert proc.returncode == 1, proc.stdout
    assert "--max-num-seqs must be at least 1, got 0" in proc.stdout


def test_a_vllm_manifest_without_a_readable_container_says_not_checked(tmp_path):
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: srv}\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: main\n          image: vllm/vllm-openai:v0.33.0\n"
        "          command: [/bin/bash, ./start.sh]\n"
    )
    proc = run_lint(str(manifest))
    assert "NOT CHECKED" in proc.stdout and proc.returncode == 0
    assert run_lint("--strict", str(manifest)).returncode == 2


def test_held_arguments_are_checked_and_unreadable_ones_are_not_checked_in_every_format(tmp_path):
    """A launch held without a command line (vLLM's logged `non-default args`, VLLM_ARGS beside the model
    variable) is checked; an arguments variable that holds none of vLLM's flags is "not checked", an error
    under --strict, in the text report, SARIF and GitHub annotations alike."""
    log = ROOT / "tests" / "fixtures" / "intake_training" / "log-non-default-ascend.txt"
    proc = run_lint("--strict", str(log))
    assert proc.returncode == 0 and "vLLM 0.11.0: valid" in proc.stdout, proc.stdout
    assert "read from vLLM's own log line `non-default args: {...}` on line 2" in proc.stdout
    env = tmp_path / "vllm.env"
    env.write_text("VLLM_MODEL=facebook/opt-125m\nVLLM_ARGS=--max-num-seqs 0 --max-model-len 512\n")
    proc = run_lint("--vllm-version", "0.33.0", str(env))
    assert proc.returncode == 1 and "--max-num-seqs must be at least 1, got 0" in proc.stdout, proc.stdout
    env.write_text("VLLM_MODEL=facebook/opt-125m\nVLLM_ARGS=--custom-flag 1\n")
    why = "it sets a variable of arguments (`...ARGS=`), but shows no launch that passes it on"
    text = run_lint("--strict", str(env))
    assert text.returncode == 2 and why in text.stdout, text.stdout
    sarif = json.loads(run_lint("--strict", "--format", "sarif", str(env)).stdout)
    results = sarif["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("not-checked", "error")]
    assert why in results[0]["message"]["text"]
    github = run_lint("--strict", "--format", "github", str(env)).stdout
    assert github.startswith("::error file=") and why in github


def test_strict_fails_on_not_checked_but_not_on_a_checked_profile(tmp_path):
    good = tmp_path / "serve.sh"
    good.write_text("vllm serve facebook/opt-125m --max-num-seqs 8\n")
    assert run_lint("--strict", "--vllm-version", "0.33.0", str(good)).returncode == 0
    legacy = tmp_path / "legacy.sh"
    legacy.write_text("python -m vllm.entrypoints.api_server --model m\n")
    both = run_lint("--strict", "--vllm-version", "0.33.0", str(good), str(legacy))
    assert both.returncode == 2 and "serve.sh: vLLM 0.33.0: valid" in both.stdout


def test_an_image_tag_without_a_catalog_is_checked_on_the_nearest_release(tmp_path):
    """A Deployment on vllm/vllm-openai:v0.5.0.post1 (older than every shipped catalog): its profile is
    checked against the oldest catalog, and the report says so, instead of "unknown vLLM release"."""
    text = (ROOT / "tests" / "fixtures" / "intake_training" / "deployment-old-tag.yaml").read_text()
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(text)
    proc = run_lint(str(manifest))
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    assert "vLLM 0.8.0:" in proc.stdout
    assert "release 0.5.0 (image vllm/vllm-openai:v0.5.0.post1) has no catalog here" in proc.stdout
