"""The CUDA graph memory vLLM estimates and subtracts before sizing the KV cache from 0.20 (plain Python).

From 0.20.0 (``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` defaults to 1; 0.19.0 defaulted to 0),
``Worker.determine_available_memory`` subtracts ``GPUModelRunner.profile_cudagraph_memory()``: for each
CUDA graph mode it captures the two largest batch descriptors, keeps the first capture's memory and the
second's as the cost of every further graph (at least 1 MiB), and returns the largest first capture plus,
per mode, (graphs - 1) x that per-graph cost. The graphs counted here are the ones vLLM 0.21.0's
``VllmConfig._set_cudagraph_sizes`` and ``CudagraphDispatcher.get_capture_descs`` give the default
FULL_AND_PIECEWISE mode: PIECEWISE graphs for every capture size, FULL graphs for the uniform-decode sizes
(at most max_num_seqs tokens). The sizes: 1, 2, 4, then every 8 below 256, then every 16 up to
``max_cudagraph_capture_size`` (default min(2 x max_num_seqs, 512), at most max_num_batched_tokens).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MiB = 1 << 20


def capture_sizes(args: Mapping[str, Any], max_num_seqs: int, batched: int) -> list[int]:
    """vLLM's default cudagraph capture sizes (0.21.0 ``_set_cudagraph_sizes``), ascending."""
    largest = args.get("max_cudagraph_capture_size")
    if isinstance(largest, bool) or not isinstance(largest, int) or largest < 1:
        largest = min(max_num_seqs * 2, 512)
    largest = min(batched, largest)
    sizes = [i for i in (1, 2, 4) if i <= largest]
    if largest >= 8:
        sizes += list(range(8, min(largest + 1, 256), 8))
    if largest >= 256:
        sizes += list(range(256, largest + 1, 16))
    if batched <= largest and batched not in sizes:
        sizes.append(batched)
    return sorted(sizes)


def graph_counts(args: Mapping[str, Any], max_num_seqs: int, batched: int) -> tuple[int, int, int]:
    """(PIECEWISE graphs, FULL graphs, the largest capture size) of the default FULL_AND_PIECEWISE mode; (0,
    0, 0) with --enforce-eager or cudagraph mode NONE."""
    compilation = args.get("compilation_config")
    mode = str(compilation.get("cudagraph_mode", "")).upper() if isinstance(compilation, Mapping) else ""
    if args.get("enforce_eager") or mode == "NONE":
        return 0, 0, 0
    sizes = capture_sizes(args, max_num_seqs, batched)
    full = 0 if mode == "PIECEWISE" else sum(1 for s in sizes if s <= max_num_seqs)
    piecewise = 0 if mode in ("FULL", "FULL_DECODE_ONLY") else len(sizes)
    return piecewise, full, max(sizes, default=0)


def cudagraph_estimate(first_capture: float, per_graph: float, piecewise: int, full: int) -> int:
    """``profile_cudagraph_memory``'s total: the first capture (the largest batch) once, then (graphs - 1)
    x the per-graph cost (at least 1 MiB) per mode."""
    if not piecewise and not full:
        return 0
    per_graph = max(per_graph, MiB)
    return int(first_capture + per_graph * (max(0, piecewise - 1) + max(0, full - 1)))
