"""Latency and throughput of the API where users and automation wait, against gunicorn on PostgreSQL.

    python benchmarks/api.py [--clients 1,16,64] [--duration 10] [--endpoints validate,save,admission]
                             [--database-url URL] [--gunicorn-args "..."] [--client wrk|python]

Starts gunicorn exactly as ``make run`` does (``gunicorn config.wsgi``, which reads ``gunicorn.conf.py``:
workers, threads, keep-alive) with DEBUG off, on a migrated database of its own
(``vllm_profiles_bench_api`` on the local PostgreSQL; the cache on the local Redis, database 5, or
``CACHE_URL``) with a staff user, an API token, a team and the
config.json of each model stored (as after their first fetch, so no request reaches the network). Then, for
each endpoint and each number of clients, it drives the server with ``wrk`` (keep-alive connections, one
per client; ``--client python`` uses one Python process per client instead) for ``--duration`` seconds after
a warm-up, and prints p50, p99 and requests per second:

- ``validate``:  ``POST /api/v1/validate/``, three realistic commands for 0.33.0 (one refused);
- ``validate-new``: the same three commands, each request with a ``--max-num-seqs`` of its own (its
                 number), so that no request repeats one the server has answered before (the engine reuses
                 the outcomes of values it has seen; this row shows a request that cannot);
- ``save``:      ``POST /api/v1/profiles/``, a new profile each time (validated, stored with its revision and
                 verdict), alternating two valid commands;
- ``admission``: ``POST /api/v1/admission/``, the AdmissionReviews of ``benchmarks/admission.py``.

Targets (issue 31, with stock gunicorn, Django, DRF and psycopg): validate p50 <= 3 ms at 1 client and
>= 500 requests/s at 16 clients; save no worse than twice that; admission p99 <= 20 ms (issue 13).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import re
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.admission import BODIES as ADMISSION_BODIES  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/vllm_profiles_bench_api"
DEFAULT_CACHE = "redis://127.0.0.1:6379/5"
USER = "bench-api"
TEAM = "bench-api"

# A Llama-style config.json, stored for every benchmark model as a first fetch from the Hub would store it.
MODEL_CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "max_position_embeddings": 131072,
    "vocab_size": 128256,
    "torch_dtype": "bfloat16",
    "rope_theta": 500000.0,
}
MODELS = [
    "meta-llama/Llama-3.1-8B-Instruct",
    "Qwen/Qwen2.5-7B-Instruct",
    "mistralai/Mistral-7B-Instruct-v0.3",
]
VALIDATE_BODIES = [
    {
        "kind": "serving",
        "vllm_version": "0.33.0",
        "command": "vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2 --max-model-len 32768 "
        "--gpu-memory-utilization 0.92 --enable-prefix-caching --max-num-seqs 128",
    },
    {
        "kind": "serving",
        "vllm_version": "0.33.0",
        "command": "vllm serve Qwen/Qwen2.5-7B-Instruct --dtype bfloat16 --max-num-batched-tokens 8192 "
        "--enable-chunked-prefill --kv-cache-dtype fp8",
    },
    {
        "kind": "collection",
        "vllm_version": "0.33.0",
        "command": "vllm serve mistralai/Mistral-7B-Instruct-v0.3 --return-sampling-mask --logprobs-mode "
        "processed_logprobs --speculative-config "
        '\'{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}\'',
    },
]
SAVE_BODIES = [dict(b, team=TEAM) for b in VALIDATE_BODIES[:2]]
TARGETS = {
    "validate": "p50 <= 3 ms at 1 client; >= 500 req/s at 16 clients",
    "validate-new": "as validate",
    "save": "p50 <= 6 ms at 1 client; >= 250 req/s at 16 clients",
    "admission": "p99 <= 20 ms",
}


# ---- the server


def prepare(url: str) -> tuple[dict[str, str], str]:
    """A migrated database with the benchmark's user, team and stored model configs; returns the server's
    environment and an API token."""
    from benchmarks.common import setup_django

    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "CELERY_BROKER_URL": os.environ.get("CELERY_BROKER_URL", "memory://"),
        "EMAIL_URL": "memorymail://",
        # The cache on Redis, as the README runs it with PostgreSQL: the throttle's counts are shared there.
        "CACHE_URL": os.environ.get("CACHE_URL", DEFAULT_CACHE),
        "HF_HUB_OFFLINE": "1",
        # One token sends hundreds of requests a second: throttled (its cost is measured), never refused.
        "API_THROTTLE_USER": os.environ.get("API_THROTTLE_USER", "1000000000/minute"),
    }
    os.environ.update({k: env[k] for k in ("CELERY_BROKER_URL", "EMAIL_URL", "CACHE_URL", "HF_HUB_OFFLINE")})
    setup_django(url)
    from io import StringIO

    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username=USER, defaults={"is_staff": True})
    from hub import services as hub_services
    from profiles import services as profile_services
    from profiles.models import Team

    if not Team.objects.filter(slug=TEAM).exists():
        profile_services.team_create(actor=user, slug=TEAM, name="API benchmark")
    for repo in MODELS:
        hub_services.model_config_upload(actor=user, repo=repo, config=MODEL_CONFIG)
    out = StringIO()
    call_command("create_api_token", USER, stdout=out)
    token = out.getvalue().strip().split()[-1]
    return env, token


def start_server(env: dict[str, str], extra: list[str]) -> tuple[subprocess.Popen, int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    gunicorn = Path(sys.executable).parent / "gunicorn"
    command = [str(gunicorn), "config.wsgi", "--bind", f"127.0.0.1:{port}", *extra]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn exited: {server.stderr.read().decode()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return server, port
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("gunicorn did not start within 60 s")


# ---- what is sent


def requests_for(endpoint: str, token: str) -> tuple[str, dict[str, str], list[bytes]]:
    headers = {"Content-Type": "application/json"}
    if endpoint == "admission":
        return "/api/v1/admission/", headers, list(ADMISSION_BODIES)
    headers["Authorization"] = f"Token {token}"
    if endpoint == "validate":
        return "/api/v1/validate/", headers, [json.dumps(b).encode() for b in VALIDATE_BODIES]
    if endpoint == "validate-new":
        bodies = [dict(b, command=_numbered(b["command"])) for b in VALIDATE_BODIES]
        return "/api/v1/validate/", headers, [json.dumps(b).encode() for b in bodies]
    # save: a unique name per request is filled in by the client (NAME_MARK)
    return "/api/v1/profiles/", headers, [json.dumps(dict(b, name=NAME_MARK)).encode() for b in SAVE_BODIES]


NAME_MARK = "@@NAME@@"
NUMBER_MARK = "@@NUM@@"
EXPECTED = {"validate": (200,), "validate-new": (200,), "save": (201,), "admission": (200,)}


def _number_base() -> int:
    """Where a run's request numbers start: each run (warm-up included) numbers its requests afresh."""
    return random.randrange(1, 2**40) * 100_000_000


def _numbered(command: str) -> str:
    """The command with ``--max-num-seqs`` set to the request's number (filled in by the client)."""
    words = command.split()
    if "--max-num-seqs" in words:
        index = words.index("--max-num-seqs")
        del words[index : index + 2]
    return " ".join([*words, "--max-num-seqs", NUMBER_MARK])


WRK_SCRIPT = r"""
local bodies = {%(bodies)s}
local headers = {%(headers)s}
local counter = 0
local prefix = "%(prefix)s"
local created = 0
local threads = {}
function setup(thread)
  created = created + 1
  thread:set("tid", created)
  table.insert(threads, thread)
end
function init(args)
  errors = 0
end
request = function()
  counter = counter + 1
  local body = bodies[(counter %% #bodies) + 1]
  body = string.gsub(body, "@@NAME@@", prefix .. "-" .. tid .. "-" .. counter)
  body = string.gsub(body, "@@NUM@@", string.format("%%d", %(base)d + tid * 10000000 + counter))
  return wrk.format("POST", "%(path)s", headers, body)
end
response = function(status, headers, body)
  if status ~= %(status)d then
    errors = errors + 1
    if errors == 1 then io.stderr:write("HTTP " .. status .. ": " .. string.sub(body, 1, 300) .. "\n") end
  end
end
function done(summary, latency, requests)
  local bad = 0
  for _, t in ipairs(threads) do bad = bad + t:get("errors") end
  io.write(string.format("BENCH requests=%%d bad=%%d p50=%%f p99=%%f\n", summary.requests, bad,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
"""


def lua_string(data: bytes) -> str:
    return '"' + "".join(f"\\{b:03d}" if b < 32 or b in (34, 92) or b > 126 else chr(b) for b in data) + '"'


def run_wrk(port: int, endpoint: str, token: str, clients: int, duration: float, prefix: str) -> dict:
    path, headers, bodies = requests_for(endpoint, token)
    script = WRK_SCRIPT % {
        "bodies": ", ".join(lua_string(b) for b in bodies),
        "headers": ", ".join(
            f"[{lua_string(k.encode())}] = {lua_string(v.encode())}" for k, v in headers.items()
        ),
        "prefix": prefix,
        "base": _number_base(),
        "path": path,
        "status": EXPECTED[endpoint][0],
    }
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
        handle.write(script)
    try:
        threads = max(1, min(clients, 2))
        started = time.perf_counter()
        out = subprocess.run(
            [
                "wrk",
                "-t",
                str(threads),
                "-c",
                str(clients),
                "-d",
                f"{max(1, round(duration))}s",
                "--timeout",
                "10s",
                "-s",
                handle.name,
                f"http://127.0.0.1:{port}",
            ],
            capture_output=True,
            text=True,
        )
        elapsed = time.perf_counter() - started
    finally:
        os.unlink(handle.name)
    if out.returncode:
        raise SystemExit(f"wrk failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
    if os.environ.get("BENCH_DEBUG"):
        print(out.stdout, out.stderr)
    match = re.search(r"BENCH requests=(\d+) bad=(\d+) p50=([\d.]+) p99=([\d.]+)", out.stdout)
    if not match:
        raise SystemExit(f"wrk said:\n{out.stdout}\n{out.stderr}")
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out.stdout)
    requests, bad = int(match[1]), int(match[2])
    if bad:
        raise SystemExit(
            f"{endpoint}: {bad} of {requests} answers were not {EXPECTED[endpoint]}: {out.stderr}"
        )
    return {
        "requests": requests,
        "p50": float(match[3]),
        "p99": float(match[4]),
        "rps": float(rps[1]) if rps else requests / elapsed,
    }


def _python_client(args) -> list[float]:
    import http.client

    port, path, headers, bodies, duration, prefix, index, expected = args
    base = _number_base()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times: list[float] = []
    end = time.perf_counter() + duration
    i = 0
    while time.perf_counter() < end:
        i += 1
        body = bodies[i % len(bodies)].replace(NAME_MARK.encode(), f"{prefix}-{index}-{i}".encode())
        body = body.replace(NUMBER_MARK.encode(), str(base + (index + 1) * 10_000_000 + i).encode())
        start = time.perf_counter()
        conn.request("POST", path, body, headers)
        response = conn.getresponse()
        payload = response.read()
        times.append((time.perf_counter() - start) * 1000)
        if response.status not in expected:
            raise SystemExit(f"HTTP {response.status}: {payload[:300]!r}")
    conn.close()
    return times


def run_python(port: int, endpoint: str, token: str, clients: int, duration: float, prefix: str) -> dict:
    path, headers, bodies = requests_for(endpoint, token)
    jobs = [(port, path, headers, bodies, duration, prefix, k, EXPECTED[endpoint]) for k in range(clients)]
    started = time.perf_counter()
    with multiprocessing.Pool(clients) as pool:
        runs = pool.map(_python_client, jobs)
    elapsed = time.perf_counter() - started
    times = sorted(t for run in runs for t in run)
    return {
        "requests": len(times),
        "p50": statistics.median(times),
        "p99": times[min(len(times) - 1, round(0.99 * (len(times) - 1)))],
        "rps": len(times) / elapsed,
    }


def warm_up(run, port: int, endpoint: str, token: str, prefix: str) -> None:
    """Until every worker answers within 2 s (a cold one takes seconds: a new worker parses the fleet's
    catalog and plans the rule set, and each release or kind met first costs a plan too), at most 90 s."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        result = run(port, endpoint, token, 8, 3.0, prefix)
        if result["requests"] >= 16 and result["p99"] < 2000:
            return
        prefix += "w"
    print(f"{endpoint}: still answering slowly after 90 s of warm-up; measuring anyway", file=sys.stderr)


def cpu_seconds(server_pid: int, database: str) -> tuple[float, float]:
    """CPU seconds used so far by gunicorn's workers and by the PostgreSQL backends serving ``database``
    (Linux /proc; a figure that a busy machine does not inflate as it does wall times)."""
    tick = os.sysconf("SC_CLK_TCK")
    web = db = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        used = (int(fields[11]) + int(fields[12])) / tick
        if int(fields[1]) == server_pid:
            web += used
        elif cmdline.startswith("postgres: ") and f" {database} " in cmdline:
            db += used
    return web, db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default="1,16,64", help="comma-separated numbers of concurrent clients")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per measurement")
    parser.add_argument("--endpoints", default="validate,save,admission")
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument(
        "--gunicorn-args", default="", help="extra gunicorn flags (override gunicorn.conf.py)"
    )
    parser.add_argument(
        "--client", choices=["wrk", "python"], default="wrk" if shutil.which("wrk") else "python"
    )
    options = parser.parse_args()
    env, token = prepare(options.database_url)
    extra = shlex.split(options.gunicorn_args)
    server, port = start_server(env, extra)
    database = options.database_url.rsplit("/", 1)[1]
    run = run_wrk if options.client == "wrk" else run_python
    prefix = f"b{int(time.time())}"
    rows = []
    try:
        for endpoint in options.endpoints.split(","):
            warm_up(run, port, endpoint, token, f"{prefix}w")
            for clients in [int(c) for c in options.clients.split(",")]:
                web0, db0 = cpu_seconds(server.pid, database)
                result = run(port, endpoint, token, clients, options.duration, prefix)
                web1, db1 = cpu_seconds(server.pid, database)
                result["web_cpu"] = (web1 - web0) * 1000 / max(1, result["requests"])
                result["db_cpu"] = (db1 - db0) * 1000 / max(1, result["requests"])
                rows.append((endpoint, clients, result))
                prefix += "x"
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    load = os.getloadavg()
    print(
        f"gunicorn config.wsgi {' '.join(extra) or '(gunicorn.conf.py)'}; client {options.client}; "
        f"{options.duration:.0f} s per row"
    )
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(
        f"{'endpoint':<12} {'clients':>7} {'requests':>9} {'p50 ms':>8} {'p99 ms':>8} {'req/s':>8} "
        f"{'web CPU ms/req':>15} {'db CPU ms/req':>14}"
    )
    for endpoint, clients, r in rows:
        print(
            f"{endpoint:<12} {clients:>7} {r['requests']:>9} {r['p50']:>8.2f} {r['p99']:>8.2f} "
            f"{r['rps']:>8.0f} {r['web_cpu']:>15.2f} {r['db_cpu']:>14.2f}"
        )
    print(
        "CPU per request: the web workers' and the database's own CPU time over the requests answered; "
        f"{os.cpu_count()} cores / their sum bounds requests/s on an otherwise idle machine"
    )
    for endpoint in dict.fromkeys(e for e, _, _ in rows):
        print(f"target {endpoint}: {TARGETS[endpoint]}")


if __name__ == "__main__":
    main()
