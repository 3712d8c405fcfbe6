"""The intake step: shell shapes the fixtures do not cover, one each."""

from __future__ import annotations

from vllmcheck.engine import parse
from vllmcheck.engine.intake import find_launches, nearest_release, release_from_tag, unknown_reference


def one(text, **kwargs):
    (launch,) = find_launches(text, **kwargs).launches
    return launch, parse.parse_command(launch.command)


def test_root_prompt_written_with_a_hash_is_read_when_nothing_else_is():
    launch, doc = one("root@box:/# vllm serve m -tp 2\n# vllm serve m --port 1\n")
    assert doc["args"] == {"tensor_parallel_size": 2}


def test_bash_c_uv_run_and_chains():
    _, doc = one("ray start --head && bash -c 'export A=1; uv run --with x vllm serve m --port 9'")
    assert doc["env"] == {"A": "1"} and doc["args"] == {"port": 9}


def test_heredoc_body_is_read_as_script_lines():
    launch, doc = one("ssh node1 <<EOF\nexport VLLM_USE_V1=0\nvllm serve m --max-num-seqs 4\nEOF\n")
    assert doc["env"] == {"VLLM_USE_V1": "0"} and launch.line == 3


def test_loop_variables_sourced_files_and_defaults_are_said():
    text = (
        "source env.sh\nfor i in 0 1; do\n  vllm serve ${MODEL:-m} --port 800$i --max-model-len $LEN\ndone\n"
    )
    launch, doc = one(text)
    assert doc["model"]["name"] == "m" and doc["args"]["max_model_len"] == "$LEN"
    assert launch.variables["i"] == {"unknown": True, "how": "a loop variable"}
    assert any("`source env.sh`" in n for n in launch.notes)
    assert any("default 'm' is used" in n for n in launch.notes)


def test_bound_variables_fill_the_launch():
    _, doc = one("vllm serve m --tensor-parallel-size $TP", variables={"TP": "8"})
    assert doc["args"] == {"tensor_parallel_size": 8}


def test_podman_with_entrypoint_and_env():
    launch, doc = one("podman run --rm --entrypoint vllm -e HF_HOME=/h img:1 serve m --port 7")
    assert doc["model"]["name"] == "m" and doc["env"] == {"HF_HOME": "/h"} and launch.image == "img:1"


def test_release_of_an_image_tag_and_the_nearest_catalog():
    assert release_from_tag("vllm/vllm-openai:v0.9.2") == "0.9.2"
    assert release_from_tag("vllm/vllm-openai:latest") is None and release_from_tag("nginx:1.2.3") is None
    assert nearest_release("0.31.5", ["0.20.0", "0.31.0", "0.32.0"]) == "0.31.0"
    assert nearest_release("0.9.2", ["0.20.0", "0.31.0"]) == "0.20.0"


def test_unknown_references():
    assert unknown_reference("$TP") == "a shell variable"
    assert unknown_reference("$(nproc)") == "a command substitution"
    assert unknown_reference("$(MAX_LEN)") == "a Kubernetes variable"
    assert unknown_reference("$(nvidia-smi -L | wc -l)") == "a command substitution"
    assert unknown_reference("<n_of_tokens>") == "a placeholder"
    assert unknown_reference("{{.Name}}") == "a template variable"
    assert unknown_reference("a<b>c") is None and unknown_reference("8") is None


def test_a_text_about_vllm_without_a_launch_is_not_checked():
    found = find_launches("from vllm import SamplingParams\nparams = SamplingParams(temperature=0.8)\n")
    assert not found.launches and "Python" in found.not_checked[0]
    assert not find_launches("echo hello\n").not_checked
