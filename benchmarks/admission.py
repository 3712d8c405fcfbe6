"""Latency of the Kubernetes admission webhook, POST /api/v1/admission/, against gunicorn on PostgreSQL.

    python benchmarks/admission.py [--requests 1000] [--clients 1] [--database-url URL]

Starts gunicorn as the README runs it (gunicorn.conf.py: 2 workers x 4 threads) on a migrated database of
its own (``vllm_profiles_bench_admission`` on the local PostgreSQL), sends AdmissionReviews shaped as the API
server sends them (a Deployment refused by vLLM 0.31.0, one that 0.33.0 accepts, one without vLLM) from
``--clients`` keep-alive connections, and prints p50, p95, p99 and requests per second after a warm-up.
Target: p99 at most 20 ms (the API server's default webhook timeout is 10 s; admission latency adds to every
kubectl apply).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.common import save_figures  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/vllm_profiles_bench_admission"
TARGET_P99_MS = 20.0
SEED_ARGS = [
    "meta-llama/Llama-3.1-8B-Instruct",
    "--return-sampling-mask",
    "--logprobs-mode",
    "processed_logprobs",
    "--speculative-config",
    '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}',
]


def review(uid: int, image: str, args: list[str]) -> bytes:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": f"d{uid}", "namespace": "ml"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "vllm",
                            "image": image,
                            "args": args,
                            "env": [{"name": "VLLM_USE_V2_MODEL_RUNNER", "value": "1"}],
                            "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        }
                    ]
                }
            }
        },
    }
    body = {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": f"00000000-0000-0000-0000-{uid:012d}",
            "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
            "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
            "namespace": "ml",
            "operation": "CREATE",
            "userInfo": {"username": "kubernetes-admin"},
            "object": deployment,
            "oldObject": None,
            "dryRun": False,
        },
    }
    return json.dumps(body).encode()


BODIES = [
    review(1, "vllm/vllm-openai:v0.31.0", SEED_ARGS),  # denied
    review(2, "vllm/vllm-openai:v0.33.0", ["Qwen/Qwen2.5-7B-Instruct", "-tp", "2", "--max-num-seqs", "64"]),
    review(3, "nginx:1.27", ["nginx"]),  # no vLLM: allowed at once
]


def prepare_database(url: str) -> dict[str, str]:
    import psycopg

    base, name = url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "CELERY_BROKER_URL": "memory://",
        "EMAIL_URL": "memorymail://",
        "CACHE_URL": "locmemcache://",
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    return env


def start_server(env: dict[str, str]) -> tuple[subprocess.Popen, int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    gunicorn = Path(sys.executable).parent / "gunicorn"
    command = [
        str(gunicorn),
        "config.wsgi",
        "--bind",
        f"127.0.0.1:{port}",
    ]  # workers, threads and keep-alive: gunicorn.conf.py, as `make run` and the image use it
    server = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return server, port
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("gunicorn did not start within 60 s")


def client_run(port: int, count: int, offset: int) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=180)  # a new worker warms up first
    times = []
    for i in range(count):
        body = BODIES[(offset + i) % len(BODIES)]
        start = time.perf_counter()
        conn.request("POST", "/api/v1/admission/", body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        payload = response.read()
        times.append((time.perf_counter() - start) * 1000)
        if response.status != 200:
            raise SystemExit(f"HTTP {response.status}: {payload[:300]!r}")
    conn.close()
    return times


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--json", metavar="PATH", help="also write the figures there (benchmarks/report.py)")
    options = parser.parse_args()
    server, port = start_server(prepare_database(options.database_url))
    try:
        client_run(port, 60, 0)  # warm-up: every worker loads catalogs and compiles the rule set once
        per_client = max(1, options.requests // options.clients)
        started = time.perf_counter()
        with ThreadPoolExecutor(options.clients) as pool:
            runs = list(pool.map(lambda k: client_run(port, per_client, k), range(options.clients)))
        elapsed = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait(timeout=30)
    times = [t for run in runs for t in run]
    load = os.getloadavg()
    print(f"POST /api/v1/admission/, gunicorn 2x4, {options.clients} client(s), {len(times)} requests")
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(
        f"p50 {statistics.median(times):.2f} ms  p95 {percentile(times, 95):.2f} ms  "
        f"p99 {percentile(times, 99):.2f} ms  max {max(times):.2f} ms  "
        f"{len(times) / elapsed:.0f} requests/s  (target p99 <= {TARGET_P99_MS:.0f} ms)"
    )
    save_figures(
        options.json,
        {
            "requests": len(times),
            "clients": options.clients,
            "p50_ms": round(statistics.median(times), 2),
            "p95_ms": round(percentile(times, 95), 2),
            "p99_ms": round(percentile(times, 99), 2),
            "max_ms": round(max(times), 2),
            "requests_per_s": round(len(times) / elapsed),
            "target_p99_ms": TARGET_P99_MS,
            "load_average": [round(x, 2) for x in load],
            "cores": os.cpu_count(),
        },
    )


if __name__ == "__main__":
    main()
