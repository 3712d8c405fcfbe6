"""gunicorn's settings for vLLM Profiles' web process; `gunicorn config.wsgi` reads this file from the
working directory (the repository, or /app in the image), so `make run`, the image and the benchmarks run
the same server. Flags on the command line still win.

WEB_WORKERS     processes (default 2: one per core of a small node; each holds its own parsed catalogs)
WEB_THREADS     threads per process (default 4): a request waits on PostgreSQL for part of its time, and
                another thread of the same process answers meanwhile
WEB_KEEPALIVE   seconds an idle keep-alive connection is kept (default 5): API clients, the Kubernetes API
                server and load balancers reuse connections instead of paying a TCP handshake per request
                (gunicorn's own ``gthread`` worker keeps them in its poller between requests)
WEB_ACCESS_LOG  "-" for an access log line per request on stdout (off by default: the request log of a
                proxy or ingress in front usually has it already)
WEB_REUSE_PORT  "false" to share one listening socket between the worker processes (default "true" with
                more than one worker: gunicorn's ``reuse_port`` setting, with which each worker listens on its
                own SO_REUSEPORT socket and the kernel spreads new connections evenly between them; on one
                shared socket the first worker to wake takes them, and 16 keep-alive clients that connect at
                once were seen to end up 13 to 3 or 16 to 0 between two workers, one core idle)
"""

import gc
import logging
import os

workers = int(os.environ.get("WEB_WORKERS", "2"))
threads = int(os.environ.get("WEB_THREADS", "4"))
worker_class = "gthread"
keepalive = int(os.environ.get("WEB_KEEPALIVE", "5"))
reuse_port = os.environ.get("WEB_REUSE_PORT", "true").lower() != "false"
accesslog = os.environ.get("WEB_ACCESS_LOG") or None
# A worker busy for this long (a huge import) is killed and replaced: previews run on Celery, not here.
timeout = int(os.environ.get("WEB_TIMEOUT", "60"))


def _listening_addresses(cfg) -> str:
    """The addresses gunicorn binds, as URLs (``http://127.0.0.1:8000``; a unix socket as ``unix:PATH``)."""
    shown = []
    for address in cfg.address:
        if isinstance(address, tuple):
            host, port = address[0], address[1]
            shown.append(f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}")
        else:
            shown.append(f"unix:{address}")
    return ", ".join(shown)


class _ListeningAddress(logging.Filter):
    """With ``reuse_port`` each worker opens its own socket and the arbiter has none, so gunicorn's
    "Listening at: %s (%s)" line names no address (``Listening at:  (9699)``): the bound addresses are
    written in."""

    def __init__(self, addresses: str):
        super().__init__()
        self.addresses = addresses

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == "Listening at: %s (%s)" and isinstance(record.args, tuple) and not record.args[0]:
            record.args = (self.addresses, *record.args[1:])
        return True


def on_starting(server):
    """One worker (``-w 1`` on the command line too) keeps the arbiter's socket: while it restarts,
    connections wait in that socket's queue instead of being refused (a worker's own socket goes with it)."""
    if server.cfg.workers == 1:
        server.cfg.set("reuse_port", False)
    logging.getLogger("gunicorn.error").addFilter(_ListeningAddress(_listening_addresses(server.cfg)))


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
