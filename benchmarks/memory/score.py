"""Score the memory model (vllmcheck/engine/memory.py) against published vLLM start-ups (runs.yaml).

    python benchmarks/memory/score.py              # per run, then calibration half, held-out half (old
                                                   # runs, batch 2's new runs), all
    python benchmarks/memory/score.py --calibrate  # grid-search the non-weight terms on the fit half

Per run: the product's weights per GPU against vLLM's "Model loading took" figure, and its KV cache size in
tokens against vLLM's "GPU KV cache size" (or, where the log gives only the KV cache memory, the tokens that
memory holds at the model's page size: vLLM's own num_blocks x block_size). Targets: KV within 10% for at
least 80% of runs, weights within 2%.

Where runs.yaml's ``checkpoints:`` gives the model's published ``model.safetensors.index.json`` total_size,
the estimate gets it as the hub stores it (``model.checkpoint``, basis "checkpoint index") and the weights
column says which basis each run used; ``--shapes`` scores every run on config.json's shapes alone.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vllmcheck.engine import memory  # noqa: E402

HERE = Path(__file__).resolve().parent


def load() -> tuple[list[dict], dict, dict]:
    data = yaml.safe_load((HERE / "runs.yaml").read_text())
    return data["runs"], data["configs"], data.get("checkpoints") or {}


def checkpoint_of(run: dict, checkpoints: dict) -> dict | None:
    """The model's checkpoint as the hub stores it (``model.checkpoint``), when runs.yaml gives its size."""
    published = checkpoints.get(run["model"])
    if not published:
        return None
    return {"size": int(published["total_size"]), "basis": memory.BASIS_INDEX}


def logged_tokens(run: dict, config: dict, est: memory.Estimate) -> int | None:
    logged = run["logged"]
    if logged.get("kv_tokens") is not None:
        return int(logged["kv_tokens"])
    if logged.get("available_gib") is not None:
        available = int(float(logged["available_gib"]) * memory.GiB)
        layout = memory.kv_layout(
            config,
            tp=run["args"].get("tensor_parallel_size", 1),
            pp=run["args"].get("pipeline_parallel_size", 1),
            kv_cache_dtype=run["args"].get("kv_cache_dtype"),
        )
        return memory._kv_tokens(layout, available, est.max_num_seqs)
    return None


def rel(a: float, b: float) -> float:
    if b == 0:
        return 0.0 if a == 0 else 1.0
    return abs(a - b) / abs(b)


def layout_row(run: dict, config: dict, out: list) -> None:
    """The KV layout alone: the tokens vLLM's own logged KV cache memory holds at the product's page size,
    against the tokens vLLM logged (or the maximum length its refusal estimated)."""
    logged = run["logged"]
    if logged.get("available_gib") is None or logged["available_gib"] <= 0:
        return
    available = int(float(logged["available_gib"]) * memory.GiB)
    args = run["args"]
    layout = memory.kv_layout(
        config,
        tp=args.get("tensor_parallel_size", 1),
        pp=args.get("pipeline_parallel_size", 1),
        kv_cache_dtype=args.get("kv_cache_dtype"),
    )
    if logged.get("kv_tokens"):
        out.append(
            (run["id"], "GPU KV cache size", memory._kv_tokens(layout, available, 1), logged["kv_tokens"])
        )
    if logged.get("estimated_max_len"):
        upper = args.get("max_model_len") or memory.derived_max_model_len(config) or 1
        predicted = memory._max_len(layout, available, upper, 8192)
        out.append((run["id"], "estimated max len", predicted, logged["estimated_max_len"]))


def score(runs: list[dict], configs: dict, checkpoints: dict, *, quiet: bool = False) -> dict:
    rows = []
    layouts: list = []
    for run in runs:
        config = configs[run["model"]]
        est = memory.estimate(
            config=config,
            args=run["args"],
            hardware=run["hardware"],
            version=str(run["release"]),
            checkpoint=checkpoint_of(run, checkpoints),
        )
        logged = run["logged"]
        layout_row(run, config, layouts)
        if est is None:
            continue
        w_logged = logged.get("weights_gib")
        w_pred = est.weights / memory.GiB
        kv_logged = logged_tokens(run, config, est)
        kv_pred = est.kv_tokens
        rows.append(
            {
                "id": run["id"],
                "fit": run.get("fit", False),
                "new": run.get("batch") == 2,
                "w_pred": w_pred,
                "w_logged": w_logged,
                "w_err": rel(w_pred, w_logged) if w_logged else None,
                "kv_pred": kv_pred,
                "kv_logged": kv_logged,
                "kv_err": rel(kv_pred, kv_logged) if kv_logged is not None else None,
                "verdict": est.verdict,
                "refused": bool(logged.get("refused")),
                "basis": est.weights_basis,
                # vLLM's logged KV cache memory against ours, relative to the requested memory (refusals
                # included: a negative figure still says how far the non-KV terms are off)
                "avail_err": (
                    abs(est.available - float(logged["available_gib"]) * memory.GiB) / est.requested
                    if logged.get("available_gib") is not None and est.requested
                    else None
                ),
            }
        )
    if not quiet:
        head = f"{'run':46} {'weights GiB (ours/vLLM)':>24} {'basis':>17} {'KV tokens (ours/vLLM)':>26}"
        print(f"{head}  verdict (vLLM)")
        for r in rows:
            w = f"{r['w_pred']:.2f}/{r['w_logged']:.2f}" if r["w_logged"] else f"{r['w_pred']:.2f}/-"
            kv = (
                f"{r['kv_pred']:,}/{r['kv_logged']:,}"
                if r["kv_logged"] is not None
                else f"{r['kv_pred']:,}/-"
            )
            vllm = "refused" if r["refused"] else "started"
            print(f"{r['id']:46} {w:>24} {r['basis']:>17} {kv:>26}  {r['verdict']} ({vllm})")
    if not quiet and layouts:
        print(
            "\nKV layout alone (from vLLM's own logged KV cache memory: page size, layers, block rounding):"
        )
        for run_id, what, ours, theirs in layouts:
            print(f"  {run_id:44} {what:18} {ours:>10,} / {theirs:>10,}  ({100 * rel(ours, theirs):.2f}%)")
        exact = sum(1 for *_, ours, theirs in layouts if rel(ours, theirs) <= 0.01)
        print(f"  within 1%: {exact} of {len(layouts)}\n")
    out = {"layout": layouts}
    for name, subset in (
        ("calibration half (fit)", [r for r in rows if r["fit"]]),
        ("held-out half", [r for r in rows if not r["fit"]]),
        ("held-out old (first 25 runs)", [r for r in rows if not r["fit"] and not r["new"]]),
        ("held-out new (batch 2)", [r for r in rows if r["new"]]),
        ("all", rows),
        ("weights from the checkpoint", [r for r in rows if r["basis"] != memory.BASIS_SHAPES]),
    ):
        kv = [r["kv_err"] for r in subset if r["kv_err"] is not None]
        w = [r["w_err"] for r in subset if r["w_err"] is not None]
        kv_abs = [abs(r["kv_pred"] - r["kv_logged"]) for r in subset if r["kv_logged"] is not None]
        w_abs = [abs(r["w_pred"] - r["w_logged"]) for r in subset if r["w_logged"]]
        avail = [r["avail_err"] for r in subset if r["avail_err"] is not None]
        stats = {
            "avail_mean_rel": sum(avail) / len(avail) if avail else 0.0,
            "runs": len(subset),
            "kv_runs": len(kv),
            "kv_mae_tokens": sum(kv_abs) / len(kv_abs) if kv_abs else None,
            "kv_mean_rel": sum(kv) / len(kv) if kv else None,
            "kv_within_10": sum(1 for e in kv if e <= 0.10) / len(kv) if kv else None,
            "weights_runs": len(w),
            "weights_mae_gib": sum(w_abs) / len(w_abs) if w_abs else None,
            "weights_within_2": sum(1 for e in w if e <= 0.02) / len(w) if w else None,
        }
        out[name] = stats
        if not quiet:
            pct = {k: 100 * (stats[k] or 0) for k in ("kv_mean_rel", "kv_within_10", "weights_within_2")}
            print(
                f"{name}: {stats['runs']} runs; KV: {stats['kv_runs']} runs, MAE "
                f"{stats['kv_mae_tokens'] or 0:,.0f} tokens, mean relative error {pct['kv_mean_rel']:.1f}%, "
                f"within 10%: {pct['kv_within_10']:.0f}%; weights: {stats['weights_runs']} runs, "
                f"MAE {stats['weights_mae_gib'] or 0:.2f} GiB, within 2%: {pct['weights_within_2']:.0f}%"
            )
    return out


def calibrate(runs: list[dict], configs: dict, checkpoints: dict) -> None:
    """Grid-search each release range's activation, sampler, single-GPU and parallel non-torch terms on its
    fit runs (the held-out half is never looked at here); prints the best values to copy into memory.TERMS."""
    saved = {k: dict(v) for k, v in memory.TERMS.items()}
    for era in memory.TERMS:
        fit = [r for r in runs if r.get("fit") and memory.terms_of(str(r["release"]))[0] == era]
        if not fit:
            print(f"{era}: no fit runs")
            continue
        best = None
        grid = itertools.product(
            (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 12.0),
            (0.1, 0.2, 0.35),
            (8.0, 16.0, 20.0, 24.0, 28.0, 32.0, 36.0, 40.0, 44.0, 48.0, 56.0, 64.0),
            (0.2, 0.45, 0.7, 1.0, 1.5, 2.0, 3.0),
        )
        for act, non_torch, sampler, parallel in grid:
            memory.TERMS[era].update(
                act_token=act,
                non_torch=non_torch * memory.GiB,
                sampler=sampler,
                non_torch_tp=parallel * memory.GiB,
            )
            stats = score(fit, configs, checkpoints, quiet=True)["all"]
            # KV tokens within 10% first; then the KV error plus the error on vLLM's logged KV cache memory
            # (which refusals log too, where the token count says only 0)
            loss = (
                1 - (stats["kv_within_10"] or 0),
                round((stats["kv_mean_rel"] or 0) + stats["avail_mean_rel"], 4),
            )
            if best is None or loss < best[0]:
                best = (loss, act, non_torch, sampler, parallel)
        memory.TERMS[era].update(saved[era])
        print(
            f"{era}: {len(fit)} fit runs; best act_token={best[1]} non_torch={best[2]} GiB sampler={best[3]} "
            f"non_torch_tp={best[4]} GiB (within 10%: {100 * (1 - best[0][0]):.0f}%, mean relative KV error "
            f"+ KV memory error {100 * best[0][1]:.1f}%)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--shapes", action="store_true", help="ignore the published checkpoint sizes")
    options = parser.parse_args()
    runs, configs, checkpoints = load()
    if options.shapes:
        checkpoints = {}
    if options.calibrate:
        calibrate(runs, configs, checkpoints)
    else:
        score(runs, configs, checkpoints)


if __name__ == "__main__":
    main()
