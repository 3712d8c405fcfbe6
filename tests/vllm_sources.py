"""vLLM's release wheels and their Python sources, for the tests that read them.

The product never imports vLLM; a few tests compare the rule pack and the catalogs with vLLM's real source. They
get it here: ``pip download --no-deps --only-binary :all: vllm==X.Y.Z`` into a cache directory keyed by version,
then only the ``vllm/**/*.py`` files are extracted, once, beside the wheel::

    ~/.cache/vllm-profiles/wheels/            (VLLM_PROFILES_WHEELS overrides it)
        0.33.0/vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl
        0.33.0/vllm/config/vllm.py ...

Each step writes into a private temporary directory of the same file system and renames the result into place,
so two runs that race both end with a complete wheel and a complete ``vllm/`` tree and never see half of one.
The rule-pack tools (``python -m tools.rulepack...``) read the same cache.

From the command line, to warm the cache before a run or for the tools::

    .venv/bin/python -m tests.vllm_sources 0.33.0 0.34.0     # or: --all
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from packaging.version import Version

CATALOGS = Path(__file__).resolve().parents[1] / "vllmcheck" / "catalogs"
# every release the product ships a catalog for
RELEASES = sorted((path.stem for path in CATALOGS.glob("*.json")), key=Version)
DEFAULT_CACHE = "~/.cache/vllm-profiles/wheels"
# Downloads are network-bound and extraction is short: a few at a time fill the link without starving the CPU.
PARALLEL = int(os.environ.get("VLLM_PROFILES_WHEELS_PARALLEL", "4"))


class SourceError(RuntimeError):
    """A release's wheel could not be fetched or read."""


def cache_root() -> Path:
    return Path(os.environ.get("VLLM_PROFILES_WHEELS") or DEFAULT_CACHE).expanduser()


def release_dir(version: str) -> Path:
    return cache_root() / version


def _cached_wheel(version: str) -> Path | None:
    # vllm-0.20.1-1-cp38-...: a build tag may follow the version
    found = sorted(release_dir(version).glob(f"vllm-{version}-*.whl"))
    return found[0] if found else None


def wheel(version: str) -> Path:
    """The release's wheel, downloaded with pip on first use."""
    cached = _cached_wheel(version)
    if cached is not None:
        return cached
    target = release_dir(version)
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target, prefix=".download-") as tmp:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:"]
        command += ["--disable-pip-version-check", "-q", "-d", tmp, f"vllm=={version}"]
        done = subprocess.run(command, capture_output=True, text=True)
        downloaded = sorted(Path(tmp).glob("*.whl"))
        if done.returncode != 0 or not downloaded:
            raise SourceError(f"pip download vllm=={version} failed:\n{done.stdout}{done.stderr}")
        # os.replace is atomic: a racing run that got here first leaves the same file under the same name
        os.replace(downloaded[0], target / downloaded[0].name)
    return _cached_wheel(version)


def source(version: str) -> Path:
    """A directory holding the release's ``vllm/`` package (its .py files only)."""
    target = release_dir(version)
    if (target / "vllm").is_dir():
        return target
    whl = wheel(version)
    tmp = Path(tempfile.mkdtemp(dir=target, prefix=".extract-"))
    try:
        try:
            with zipfile.ZipFile(whl) as archive:
                for info in archive.infolist():
                    if info.filename.startswith("vllm/") and info.filename.endswith(".py"):
                        archive.extract(info, tmp)
        except zipfile.BadZipFile as exc:
            whl.unlink(missing_ok=True)  # a truncated download: the next call fetches it again
            raise SourceError(f"{whl} is not a readable wheel ({exc}); removed") from exc
        try:
            os.rename(tmp / "vllm", target / "vllm")
        except OSError:
            if not (target / "vllm").is_dir():  # not a lost race: a real error
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def sources(versions: Iterable[str], parallel: int = PARALLEL) -> dict[str, Path]:
    """Every release's sources, fetching the missing ones a few at a time."""
    versions = list(versions)
    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        return dict(zip(versions, pool.map(source, versions), strict=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("versions", nargs="*", help="releases, e.g. 0.33.0")
    parser.add_argument("--all", action="store_true", help="every release that has a shipped catalog")
    args = parser.parse_args(argv)
    versions = list(args.versions)
    if args.all:
        versions += RELEASES
    if not versions:
        parser.error("name at least one release, or --all")
    start = time.monotonic()
    for version, path in sources(versions).items():
        print(f"{version}\t{path}", flush=True)
    print(
        f"{len(versions)} release(s) in {time.monotonic() - start:.1f}s under {cache_root()}", file=sys.stderr
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
