"""Instructions the engine executes per profile, counted by Valgrind's callgrind: host-independent.

``benchmarks/engine.py`` times the engine, and its figures move with the host's speed (the other processes
on a shared machine, the CPU's clock). This driver validates the same generated profiles (the first
``--profiles`` of ``engine.py``'s seeded sequence, the same catalogs, rule pack and warm-up) and prints the
median number of instructions per profile, first pass and second pass, as ``engine.py`` reads them:

    python benchmarks/engine_instructions.py --profiles 500

It runs itself under ``valgrind --tool=callgrind`` with instrumentation off while the rule set compiles and
the release plans are built (several times slower than natively, not fifty), switches it on for the measured
loop, and around each ``validate`` call zeroes and dumps callgrind's counters through its client requests
(a small C shim compiled with ``gcc`` against ``valgrind/callgrind.h``); each dump's ``totals`` is one
profile's count. Needs ``valgrind`` (with its headers) and ``gcc``. The ctypes calls around each profile add
a constant few thousand instructions, the same before and after a change. Run with ``PYTHONHASHSEED=0``
(set for the child) so that dict and set orders, and so the counts, repeat from run to run.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHIM = r"""
#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void cg_zero(void) { CALLGRIND_ZERO_STATS; }
void cg_dump(void) { CALLGRIND_DUMP_STATS; }
"""


def _shim(directory: Path) -> ctypes.CDLL:
    source = directory / "cg_shim.c"
    library = directory / "cg_shim.so"
    source.write_text(SHIM)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    return ctypes.CDLL(str(library))


def measure(profiles: int, seed: int, directory: Path) -> None:
    """The child, under callgrind: set up as engine.py does, then one dump per validated profile."""
    from benchmarks.engine import generate
    from vllmcheck.engine.catalog import Catalog
    from vllmcheck.engine.checks import HistoryIndex
    from vllmcheck.engine.lint import build_document, validate
    from vllmcheck.engine.rules import compile_ruleset, load_pack

    shim = _shim(directory)
    catalogs = {
        path.stem: Catalog.load(path) for path in sorted((ROOT / "vllmcheck" / "catalogs").glob("*.json"))
    }
    history = HistoryIndex({v: c for v, c in catalogs.items() if c is not None})
    ruleset = compile_ruleset(load_pack(ROOT / "vllmcheck" / "rulepacks" / "builtin.yaml"), version_id=1)
    docs = generate(catalogs, profiles, seed)
    for version, catalog in catalogs.items():
        for kind in ("serving", "collection"):
            empty = build_document(kind=kind, version=version, model_name=None)
            validate(empty, ruleset=ruleset, catalog=catalog, history=history)
    shim.cg_start()
    zero, dump = shim.cg_zero, shim.cg_dump
    for _ in range(2):  # the first pass, then the second (every outcome known)
        for doc in docs:
            catalog = catalogs[doc["vllm"]["version"]]
            zero()
            validate(doc, ruleset=ruleset, catalog=catalog, history=history, plain=False, memo=True)
            dump()


def totals(directory: Path, prefix: str) -> list[int]:
    """Each dump's total instructions, in the order dumped (file suffix ``.N``, N from 1)."""
    found = []
    for path in directory.iterdir():
        name = path.name
        if name.startswith(prefix + ".") and name[len(prefix) + 1 :].isdigit():
            number = int(name[len(prefix) + 1 :])
            for line in path.read_text().splitlines():
                if line.startswith("totals:"):
                    found.append((number, int(line.split()[1])))
                    break
    found.sort()
    return [count for _, count in found]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--profiles", type=int, default=500)
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        measure(options.profiles, options.seed, Path(options.child))
        return
    with tempfile.TemporaryDirectory(prefix="engine-instructions-") as tmp:
        directory = Path(tmp)
        prefix = "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            "--dump-instr=no",
            "--dump-line=no",
            "--compress-strings=yes",
            f"--callgrind-out-file={directory / prefix}",
            sys.executable,
            str(Path(__file__).resolve()),
            "--profiles",
            str(options.profiles),
            "--seed",
            str(options.seed),
            "--child",
            str(directory),
        ]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        subprocess.run(command, check=True, env=env, stderr=subprocess.DEVNULL)
        counts = totals(directory, prefix)
    n = options.profiles
    if len(counts) < 2 * n:
        sys.exit(f"expected {2 * n} dumps, found {len(counts)}")
    first, second = counts[:n], counts[n : 2 * n]
    result = {
        "profiles": n,
        "first_pass_median_instructions": int(statistics.median(first)),
        "first_pass_mean_instructions": int(statistics.fmean(first)),
        "second_pass_median_instructions": int(statistics.median(second)),
        "second_pass_mean_instructions": int(statistics.fmean(second)),
    }
    first, second = "first_pass", "second_pass"
    print(
        f"engine: median {result[first + '_median_instructions']:,} instructions per profile on the first "
        f"pass (mean {result[first + '_mean_instructions']:,}), {result[second + '_median_instructions']:,} "
        f"on the second (mean {result[second + '_mean_instructions']:,}) over {n} generated profiles"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
