"""The test suite's own support: the CI skip policy (tests/skip_policy.py) and the wheel cache
(tests/vllm_sources.py). No database; the wheels here are small synthetic ones."""

from __future__ import annotations

import zipfile
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests import vllm_sources
from tests.skip_policy import ALLOW_LIST, load_allow_list

TWO_TESTS = """
import pytest

def test_runs():
    assert True

def test_needs_a_gpu():
    pytest.skip("no GPU here")
"""


@pytest.fixture
def suite(pytester):
    pytester.makepyfile(test_suite=TWO_TESTS)
    # like the real suite, a conftest that covers only a subfolder: pytest then calls hooks on plugin subsets
    pytester.mkpydir("sub").joinpath("conftest.py").write_text("")
    return pytester


def run(pytester):
    return pytester.runpytest_inprocess(
        "-p", "tests.skip_policy", "-p", "no:django", "-p", "no:cacheprovider"
    )


def test_in_ci_an_unlisted_skip_fails_the_run_naming_the_test(suite, monkeypatch):
    monkeypatch.setenv("CI", "true")
    result = run(suite)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*skipped in CI without a reason*",
            "test_suite.py::test_needs_a_gpu: *no GPU here",
            "1 unexplained skip(s): make the test run, or list it in *allowed_skips.txt*",
        ]
    )


def test_in_ci_a_skip_listed_with_a_reason_passes(suite, monkeypatch):
    monkeypatch.setenv("CI", "true")
    suite.mkdir("tests")
    (suite.path / "tests" / "allowed_skips.txt").write_text(
        "# comment\n\ntest_suite.py::test_needs_* -- CI machines have no GPU; runs on the lent GPU machine\n"
    )
    result = run(suite)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1, skipped=1)
    assert "without a reason" not in result.stdout.str()


def test_in_ci_an_allow_list_line_without_a_reason_is_refused(suite, monkeypatch):
    monkeypatch.setenv("CI", "true")
    suite.mkdir("tests")
    (suite.path / "tests" / "allowed_skips.txt").write_text("test_suite.py::test_needs_a_gpu\n")
    result = run(suite)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*allowed_skips.txt:1: expected 'NODE-ID-PATTERN -- reason'*"])


def test_outside_ci_a_skip_is_only_reported(suite, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    result = run(suite)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1, skipped=1)


def test_the_shipped_allow_list_names_tests_and_gives_reasons(pytestconfig):
    for pattern, reason in load_allow_list(pytestconfig.rootpath / ALLOW_LIST):
        assert pattern.startswith("tests/") and len(reason.split()) >= 3, (pattern, reason)


# ---- the wheel cache


def fake_wheel(cache, version: str, build: str = "") -> None:
    folder = cache / version
    folder.mkdir(parents=True)
    with zipfile.ZipFile(folder / f"vllm-{version}{build}-cp38-abi3-manylinux_2_28_x86_64.whl", "w") as wheel:
        wheel.writestr("vllm/__init__.py", "")
        wheel.writestr("vllm/config/vllm.py", 'raise ValueError("sampling replay")\n')
        wheel.writestr("vllm/_C.abi3.so", b"\x7fELF")
        wheel.writestr(f"vllm-{version}.dist-info/METADATA", "Name: vllm\n")


def test_sources_are_the_python_files_of_the_cached_wheel(tmp_path, monkeypatch):
    monkeypatch.setenv("VLLM_PROFILES_WHEELS", str(tmp_path))
    fake_wheel(tmp_path, "9.9.0", build="-1")
    root = vllm_sources.source("9.9.0")
    assert root == tmp_path / "9.9.0"
    extracted = sorted(str(p.relative_to(root)) for p in (root / "vllm").rglob("*") if p.is_file())
    assert extracted == ["vllm/__init__.py", "vllm/config/vllm.py"]
    assert sorted(p.name for p in root.iterdir()) == [
        "vllm",
        "vllm-9.9.0-1-cp38-abi3-manylinux_2_28_x86_64.whl",
    ]


def test_racing_runs_each_get_the_complete_tree(tmp_path, monkeypatch):
    monkeypatch.setenv("VLLM_PROFILES_WHEELS", str(tmp_path))
    fake_wheel(tmp_path, "9.9.1")
    with ThreadPoolExecutor(max_workers=8) as pool:
        roots = list(pool.map(lambda _: vllm_sources.source("9.9.1"), range(8)))
    assert set(roots) == {tmp_path / "9.9.1"}
    assert (
        tmp_path / "9.9.1" / "vllm" / "config" / "vllm.py"
    ).read_text() == 'raise ValueError("sampling replay")\n'
    assert [p.name for p in (tmp_path / "9.9.1").iterdir() if p.name.startswith(".")] == []


def test_a_truncated_wheel_is_refused_and_dropped_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VLLM_PROFILES_WHEELS", str(tmp_path))
    (tmp_path / "9.9.2").mkdir()
    broken = tmp_path / "9.9.2" / "vllm-9.9.2-cp38-abi3-manylinux_2_28_x86_64.whl"
    broken.write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(vllm_sources.SourceError, match="is not a readable wheel"):
        vllm_sources.source("9.9.2")
    assert not broken.exists() and not (tmp_path / "9.9.2" / "vllm").exists()


def test_a_wheel_pip_cannot_get_is_an_error_naming_the_release_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("VLLM_PROFILES_WHEELS", str(tmp_path / "cache"))
    # pip offline with an empty wheel folder: it fails at once, as it would without a network
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path))
    with pytest.raises(
        vllm_sources.SourceError, match=r"(?s)pip download vllm==0\.34\.0 failed:\n.*No matching distribution"
    ):
        vllm_sources.source("0.34.0")
    assert list((tmp_path / "cache" / "0.34.0").iterdir()) == []
