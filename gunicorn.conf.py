"""gunicorn's settings for vLLM Profiles' web process; `gunicorn config.wsgi` reads this file from the
working directory (the repository, or /app in the image), so `make run`, the image and the benchmarks run
the same server. Flags on the command line still win.

WEB_WORKERS     processes (default 2: one per core of a small node; each holds its own parsed catalogs)
WEB_THREADS     threads per process (default 4): a request waits on PostgreSQL for part of its time, and
                another thread of the same process answers meanwhile
WEB_KEEPALIVE   seconds an idle keep-alive connection is kept (default 5): API clients, the Kubernetes API
                server and load balancers reuse connections instead of paying a TCP handshake per request
WEB_ACCESS_LOG  "-" for an access log line per request on stdout (off by default: the request log of a
                proxy or ingress in front usually has it already)
"""

import gc
import os

workers = int(os.environ.get("WEB_WORKERS", "2"))
threads = int(os.environ.get("WEB_THREADS", "4"))
worker_class = "gthread"
keepalive = int(os.environ.get("WEB_KEEPALIVE", "5"))
accesslog = os.environ.get("WEB_ACCESS_LOG") or None
# A worker busy for this long (a huge import) is killed and replaced: previews run on Celery, not here.
timeout = int(os.environ.get("WEB_TIMEOUT", "60"))


def post_worker_init(worker):
    """Parse the fleet's catalog and compile the current rule set before the first request arrives, so the
    first requests of a new worker do not each pay for it (a restart would otherwise show as p99)."""
    from validation.selectors import warm_up

    try:
        warm_up()
    except Exception as exc:  # a database not migrated yet: the first request will say so
        worker.log.warning("warm-up skipped: %s", exc)
    # What is loaded now (modules, catalogs, the compiled rule set: millions of objects) stays for the
    # process's life: moved out of the garbage collector's generations, a full collection no longer walks it
    # (without this, one request in a few hundred paid a 100-300 ms collection).
    gc.freeze()
