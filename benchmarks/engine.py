"""Median time the engine takes per profile: catalog checks plus the whole built-in rule pack.

A seeded mix of generated profiles over every shipped release (both kinds; sampling masks, speculative
decoding, Model Runner V2 env, parallelism, random catalog arguments with valid and invalid values).
Plain Python, no database: run `python benchmarks/engine.py [--profiles N] [--seed S]`.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from validation.engine.catalog import Catalog  # noqa: E402
from validation.engine.lint import build_document, validate  # noqa: E402
from validation.engine.rules import compile_ruleset, load_pack  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--profiles", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=20261202)
    options = parser.parse_args()

    catalogs: dict[str, Catalog | None] = {
        path.stem: Catalog.load(path) for path in sorted((ROOT / "validation" / "catalogs").glob("*.json"))
    }
    if not catalogs:
        catalogs = {v: None for v in ("0.28.0", "0.31.0", "0.32.0", "0.33.0")}
    pack = load_pack(ROOT / "validation" / "rulepacks" / "builtin.yaml")
    started = time.perf_counter()
    ruleset = compile_ruleset(pack, version_id=1)
    compile_ms = (time.perf_counter() - started) * 1e3
    docs = generate(catalogs, options.profiles, options.seed)

    for doc in docs[:200]:  # warm-up: per-release plans are built once and cached, as in a worker
        validate(doc, ruleset=ruleset, catalog=catalogs[doc["vllm"]["version"]], history=catalogs)
    timings = []
    invalid = 0
    for doc in docs:
        catalog = catalogs[doc["vllm"]["version"]]
        start = time.perf_counter_ns()
        verdict = validate(doc, ruleset=ruleset, catalog=catalog, history=catalogs)
        timings.append((time.perf_counter_ns() - start) / 1e3)
        invalid += not verdict.valid
    timings.sort()
    result = {
        "profiles": len(docs),
        "releases": len(catalogs),
        "rules": len(ruleset.rules),
        "compile_ms": round(compile_ms, 1),
        "median_us": round(statistics.median(timings), 1),
        "p95_us": round(timings[int(len(timings) * 0.95)], 1),
        "mean_us": round(statistics.fmean(timings), 1),
        "invalid_share": round(invalid / len(docs), 3),
    }
    print(
        f"engine: median {result['median_us']} us per profile (p95 {result['p95_us']} us, mean "
        f"{result['mean_us']} us) over {result['profiles']} generated profiles, {result['rules']} rules, "
        f"{result['releases']} releases; rule set compiled in {result['compile_ms']} ms"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
