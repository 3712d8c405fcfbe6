"""What an unreachable Hugging Face Hub costs a save or a dry run: the time to resolve a model's config.json
with ``HF_ENDPOINT`` on a local port nobody listens on (connection refused), online, with an empty cache.

    python benchmarks/hub_unreachable.py [--models 5] [--baseline]

Prints the first resolve (one refused connection, no retries), the next ones (the endpoint is remembered as
unreachable: the local cache alone is read) and, with ``--baseline``, what ``huggingface_hub.hf_hub_download``
alone takes for the same file (its retries back off 1 + 2 + 4 + 8 s), which is what a request waited before.
Plain Python: no database, no server.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models", type=int, default=5, help="distinct repositories resolved after the first"
    )
    parser.add_argument("--baseline", action="store_true", help="also time hf_hub_download alone (~15 s)")
    options = parser.parse_args()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    home = tempfile.mkdtemp(prefix="hf-home-")
    os.environ.update(HF_HOME=home, HF_ENDPOINT=f"http://127.0.0.1:{port}")
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_CACHE"):
        os.environ.pop(name, None)
    import huggingface_hub  # noqa: F401  (its import is not a request's)

    from vllmcheck import modelhub

    started = time.perf_counter()
    first = modelhub.resolve("org/model-0")
    cold = time.perf_counter() - started
    print(f"HF_ENDPOINT=http://127.0.0.1:{port} (closed port), timeout {modelhub.DEFAULT_TIMEOUT:g} s")
    print(f"first resolve:  {cold * 1000:8.1f} ms  {first.error}")
    times = []
    for i in range(1, options.models + 1):
        started = time.perf_counter()
        result = modelhub.resolve(f"org/model-{i}")
        times.append(time.perf_counter() - started)
        assert result.config is None
    median, longest = statistics.median(times) * 1000, max(times) * 1000
    print(f"next {options.models} resolves: median {median:.1f} ms, max {longest:.1f} ms")
    if options.baseline:
        from huggingface_hub import hf_hub_download

        started = time.perf_counter()
        try:
            hf_hub_download("org/model-0", "config.json", cache_dir=os.path.join(home, "hub"))
        except Exception as exc:  # what it raises at the end is not the point: how long it took is
            error = type(exc).__name__
        print(f"hf_hub_download alone: {time.perf_counter() - started:8.1f} s  ({error})")


if __name__ == "__main__":
    main()
