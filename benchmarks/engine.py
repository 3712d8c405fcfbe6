"""Median time the engine takes per profile: catalog checks plus the whole built-in rule pack.

A seeded mix of generated profiles over every shipped release (both kinds; sampling masks, speculative
decoding, Model Runner V2 env, parallelism, random catalog arguments with valid and invalid values).
Plain Python, no database: run `python benchmarks/engine.py [--profiles N] [--seed S] [--no-memo] [--check]`.

Each profile is validated once, in order, after every release's plan is built (as in a worker that has
served that release before): outcomes the engine reuses (``memo``) are only those of earlier profiles of
the run. ``--no-memo`` computes every outcome afresh. Wall time and the process's CPU time are both printed
(on a loaded machine the wall time includes waiting for a core). The same profiles are then validated once
more and that second pass's CPU median printed beside (every outcome then known, as in a fleet whose values
recur); the first pass is the figure the target reads. ``--check`` then validates every profile
again with everything computed afresh (``plain``) and prints how many verdicts are identical.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import save_figures  # noqa: E402
from vllmcheck.engine.catalog import Catalog  # noqa: E402
from vllmcheck.engine.checks import HistoryIndex  # noqa: E402
from vllmcheck.engine.lint import build_document, validate  # noqa: E402
from vllmcheck.engine.rules import compile_ruleset, load_pack  # noqa: E402

SPECULATIVE = [
    {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4},
    {"method": "eagle3", "model": "org/eagle3-draft", "num_speculative_tokens": 2},
    {"method": "mtp", "num_speculative_tokens": 1},
    {"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 5, "prompt_lookup_min": 2},
]


def sample_value(spec, rng: random.Random):
    if spec.choices:
        return rng.choice([c for c in spec.choices if c is not None] or [None])
    if spec.type == "bool":
        return rng.random() < 0.5
    if spec.type == "int":
        return rng.choice([1, 2, 4, 8, 4096, -3])
    if spec.type == "float":
        return rng.choice([0.5, 0.9, 1.5])
    if spec.type == "list":
        return ["a", "b"]
    if spec.type == "json":
        return {}
    return "x"


def generate(catalogs: dict[str, Catalog | None], count: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    versions = sorted(catalogs)
    docs = []
    for _ in range(count):
        version = rng.choice(versions)
        catalog = catalogs[version]
        args: dict = {}
        if catalog is not None:
            pool = [a for a in catalog.arguments if a.name not in ("model",)]
            for spec in rng.sample(pool, k=min(len(pool), rng.randint(2, 10))):
                args[spec.name] = sample_value(spec, rng)
        if rng.random() < 0.4:
            args["return_sampling_mask"] = True
            args["logprobs_mode"] = rng.choice(["processed_logprobs", "raw_logprobs"])
        if rng.random() < 0.4:
            args["speculative_config"] = rng.choice(SPECULATIVE)
        if rng.random() < 0.3:
            args["tensor_parallel_size"] = rng.choice([1, 2, 4, 8])
        if rng.random() < 0.05:
            args["tensor_paralel_size"] = 2  # a typo: exercises did-you-mean
        env = {"VLLM_USE_V2_MODEL_RUNNER": rng.choice(["0", "1"])} if rng.random() < 0.5 else {}
        docs.append(
            build_document(
                kind=rng.choice(["serving", "collection"]),
                version=version,
                model_name="meta-llama/Llama-3.1-8B-Instruct",
                args=args,
                env=env,
                model_architecture="LlamaForCausalLM" if rng.random() < 0.5 else None,
            )
        )
    return docs


def python_reference_us() -> float:
    """The best of five timings of ``sum(range(1000))``: how fast this interpreter runs on this machine at
    this moment, so that runs made under different loads can be compared (the figures scale with it)."""
    return round(min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000 * 1e6, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--profiles", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--no-memo", action="store_true", help="compute every outcome afresh")
    parser.add_argument("--check", action="store_true", help="compare every verdict with the plain one")
    parser.add_argument("--json", metavar="PATH", help="also write the figures there (benchmarks/report.py)")
    options = parser.parse_args()

    catalogs: dict[str, Catalog | None] = {
        path.stem: Catalog.load(path) for path in sorted((ROOT / "vllmcheck" / "catalogs").glob("*.json"))
    }
    if not catalogs:
        catalogs = {v: None for v in ("0.28.0", "0.31.0", "0.33.0")}
    # The release history the catalog checks explain a removed or renamed argument against, indexed once as
    # the servers (``CatalogHistory``) and the linter keep it, not looked up per profile from a mapping.
    history = HistoryIndex({v: c for v, c in catalogs.items() if c is not None})
    pack = load_pack(ROOT / "vllmcheck" / "rulepacks" / "builtin.yaml")
    started = time.perf_counter()
    ruleset = compile_ruleset(pack, version_id=1)
    compile_ms = (time.perf_counter() - started) * 1e3
    docs = generate(catalogs, options.profiles, options.seed)

    # Warm-up: every release's plan (per kind) is built once and cached, as in a worker; an empty profile
    # sets nothing, so no outcome of the measured profiles is computed here.
    started = time.perf_counter()
    for version, catalog in catalogs.items():
        for kind in ("serving", "collection"):
            empty = build_document(kind=kind, version=version, model_name=None)
            validate(empty, ruleset=ruleset, catalog=catalog, history=history)
    plans_ms = (time.perf_counter() - started) * 1e3
    memo = not options.no_memo
    wall, cpu, verdicts = [], [], []
    invalid = 0
    for doc in docs:
        catalog = catalogs[doc["vllm"]["version"]]
        start, start_cpu = time.perf_counter_ns(), time.process_time_ns()
        verdict = validate(doc, ruleset=ruleset, catalog=catalog, history=history, plain=False, memo=memo)
        cpu.append((time.process_time_ns() - start_cpu) / 1e3)
        wall.append((time.perf_counter_ns() - start) / 1e3)
        invalid += not verdict.valid
        verdicts.append(verdict)
    wall.sort()
    cpu.sort()
    # The same profiles once more: every selection and outcome then known, as in a fleet whose values recur
    # (a figure beside the first pass, which is the one the target reads).
    again = []
    for doc in docs:
        catalog = catalogs[doc["vllm"]["version"]]
        start_cpu = time.process_time_ns()
        validate(doc, ruleset=ruleset, catalog=catalog, history=history, plain=False, memo=memo)
        again.append((time.process_time_ns() - start_cpu) / 1e3)
    result = {
        "profiles": len(docs),
        "releases": len(catalogs),
        "rules": len(ruleset.rules),
        "memo": memo,
        "compile_ms": round(compile_ms, 1),
        "plans_ms": round(plans_ms, 1),
        "median_us": round(statistics.median(wall), 1),
        "p99_us": round(wall[int(len(wall) * 0.99)], 1),
        "mean_us": round(statistics.fmean(wall), 1),
        "cpu_median_us": round(statistics.median(cpu), 1),
        "cpu_p99_us": round(cpu[int(len(cpu) * 0.99)], 1),
        "second_pass_cpu_median_us": round(statistics.median(again), 1),
        "invalid_share": round(invalid / len(docs), 3),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cores": os.cpu_count(),
        "python_reference_us": python_reference_us(),
    }
    print(
        f"engine: median {result['median_us']} us per profile (p99 {result['p99_us']} us, mean "
        f"{result['mean_us']} us; CPU median {result['cpu_median_us']} us, p99 {result['cpu_p99_us']} us) "
        f"over {result['profiles']} generated profiles, {result['rules']} rules, {result['releases']} "
        f"releases, reused outcomes {'on' if memo else 'off'}; rule set compiled in {result['compile_ms']} "
        f"ms, plans built in {result['plans_ms']} ms; load average {result['load_average']} on "
        f"{result['cores']} cores; this interpreter's speed now: sum(range(1000)) in "
        f"{result['python_reference_us']} us"
    )
    print(
        f"second pass, the same profiles again (every selection and outcome known): CPU median "
        f"{result['second_pass_cpu_median_us']} us per profile"
    )
    if options.check:
        same = sum(
            verdict.as_dict()
            == validate(
                doc, ruleset=ruleset, catalog=catalogs[doc["vllm"]["version"]], history=history, plain=True
            ).as_dict()
            for doc, verdict in zip(docs, verdicts, strict=True)
        )
        result["identical_to_plain"] = same
        print(f"check: {same} of {len(docs)} verdicts identical to the plain evaluation (everything afresh)")
    print(json.dumps(result))
    save_figures(options.json, result)
    if options.check and result["identical_to_plain"] != len(docs):
        sys.exit(1)


if __name__ == "__main__":
    main()
