"""`manage.py lint` exactly per the contract: exit 0 / 1 / 2, text and JSON output. Run as a real process."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from tests.conftest import MRV2_MESSAGE, SEED_COMMAND, SEED_MESSAGE_031

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


def lint(*args, stdin=None):
    settings = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{settings['USER']}@{settings['HOST']}:{settings['PORT']}/{settings['NAME']}",
    }
    return subprocess.run(
        [sys.executable, "manage.py", "lint", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_seed_command_on_031_exits_1_with_vllms_message(tmp_path):
    path = tmp_path / "teacher.sh"
    path.write_text(SEED_COMMAND + "\n")
    result = lint("--vllm-version", "0.31.0", "--kind", "collection", str(path))
    assert result.returncode == 1, result.stderr
    assert SEED_MESSAGE_031 in result.stdout
    assert "INVALID" in result.stdout


def test_seed_command_on_032_exits_0():
    result = lint("--vllm-version", "0.32.0", "--kind", "collection", "-", stdin=SEED_COMMAND)
    assert result.returncode == 0, result.stdout + result.stderr


def test_json_format_prints_the_findings_document():
    command = SEED_COMMAND.replace("VLLM_USE_V2_MODEL_RUNNER=1 ", "")
    result = lint("--vllm-version", "0.31.0", "--kind", "collection", "--format", "json", "-", stdin=command)
    assert result.returncode == 1
    document = json.loads(result.stdout)
    assert document["valid"] is False and document["vllm_version"] == "0.31.0"
    assert MRV2_MESSAGE in [f["message"] for f in document["findings"] if f["severity"] == "error"]


def test_yaml_config_is_accepted():
    config = "model: m\nreturn-sampling-mask: true\nlogprobs-mode: processed_logprobs\n"
    result = lint("--vllm-version", "0.32.0", "--kind", "collection", "--format", "json", "-", stdin=config)
    document = json.loads(result.stdout)
    # Model Runner V2 is not forced by an env var here; what 0.32.0 decides is in the rule pack.
    assert result.returncode in (0, 1)
    assert document["vllm_version"] == "0.32.0"


@pytest.mark.parametrize(
    ("stdin", "args", "expected"),
    [
        ("vllm serve m --speculative-config '{\"method\": ngram}'", [], "speculative-config"),
        ("vllm serve m --max-model-len '8192", [], "quot"),
        ("- just\n- a list\n", [], "mapping"),
        ("vllm serve m", ["--vllm-version", "0.7.3"], "0.7.3"),
    ],
)
def test_unparseable_input_or_unknown_version_exits_2_and_says_why(stdin, args, expected):
    result = lint(*args, "-", stdin=stdin)
    assert result.returncode == 2, result.stdout + result.stderr
    assert expected in result.stderr.lower() or expected in result.stderr


def test_missing_file_exits_2():
    result = lint("/nonexistent/profile.yaml")
    assert result.returncode == 2 and "cannot read" in result.stderr


def test_model_config_and_hardware_options_fill_the_profile(tmp_path):
    """--model-config and --hardware turn "could not verify" findings into real ones, as the API's fields do."""
    command = "vllm serve m -tp 16 --enable-expert-parallel"
    base = ("--vllm-version", "0.31.0", "--format", "json")
    infos = {f["rule"] for f in json.loads(lint(*base, "-", stdin=command).stdout)["findings"]}
    assert {"world-size-exceeds-node-gpus", "expert-parallel-requires-moe"} <= infos

    config = tmp_path / "config.json"
    config.write_text(json.dumps({"architectures": ["LlamaForCausalLM"], "num_attention_heads": 32}))
    # KEY=VALUE words before the file: the last word without "=" is the file
    result = lint(
        *base, "--model-config", str(config), "--hardware", "gpus_per_node=8", "nodes=1", "-", stdin=command
    )
    assert result.returncode == 1, result.stderr
    errors = {f["rule"] for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"}
    assert {"world-size-exceeds-node-gpus", "expert-parallel-requires-moe"} <= errors

    fits = lint(*base, "--hardware", "gpus_per_node=16", "gpu=H100-80GB", "-", stdin="vllm serve m -tp 16")
    assert fits.returncode == 0, fits.stdout + fits.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--model-config", "/nonexistent/config.json"], "cannot read"),
        (["--hardware", "gpus_per_node"], "KEY=VALUE"),
    ],
)
def test_bad_model_config_or_hardware_exits_2(args, expected):
    result = lint(*args, "-", stdin="vllm serve m")
    assert result.returncode == 2, result.stdout + result.stderr
    assert expected in result.stderr


def test_a_directory_and_several_files_in_one_call(tmp_path):
    """Each file gets the verdict it gets alone; one that cannot be parsed is named, the others still checked."""
    folder = tmp_path / "profiles"
    (folder / "nested").mkdir(parents=True)
    (folder / "teacher.sh").write_text(SEED_COMMAND + "\n")
    (folder / "nested" / "plain.yaml").write_text("model: m\nmax-num-seqs: 8\n")
    (folder / "notes.txt").write_text("not a profile: not a file name the walk reads\n")
    broken = tmp_path / "broken.sh"
    broken.write_text("vllm serve m --max-num-seqs 'unclosed\n")
    args = ("--vllm-version", "0.31.0", "--kind", "collection", "--format", "json")

    result = lint(*args, str(folder))
    assert result.returncode == 1, result.stderr
    documents = json.loads(result.stdout)
    assert [d["file"] for d in documents] == [
        str(folder / "teacher.sh"),
        str(folder / "nested" / "plain.yaml"),
    ]
    alone = json.loads(lint(*args, str(folder / "teacher.sh")).stdout)
    assert {k: v for k, v in documents[0].items() if k != "file"} == alone
    assert SEED_MESSAGE_031 in [f["message"] for f in documents[0]["findings"]]
    assert documents[0]["valid"] is False and documents[1]["valid"] is True

    result = lint(*args, str(folder / "nested" / "plain.yaml"), str(broken))
    assert result.returncode == 2
    plain, failed = json.loads(result.stdout)
    assert plain["valid"] is True and failed["file"] == str(broken) and "error" in failed

    text = lint("--vllm-version", "0.31.0", "--kind", "collection", str(folder))
    assert text.returncode == 1
    assert f"== {folder / 'teacher.sh'}" in text.stdout and "INVALID" in text.stdout
