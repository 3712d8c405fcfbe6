"""Prometheus metrics at /metrics, computed from the database at scrape time.

Web, worker and beat are separate processes, so in-process counters would each see a part; the database
(and the broker, for the queue depth) sees everything. Each scrape costs a handful of aggregate queries.
Set METRICS_TOKEN to require `Authorization: Bearer <token>` (compared in constant time).
"""

from __future__ import annotations

import hmac
import os

import redis
from django.conf import settings
from django.db.models import Avg, Count, F, Sum
from django.http import HttpResponse, HttpResponseForbidden
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from profiles.models import Alert, Profile, Recheck, Verdict


class DatabaseCollector:
    def collect(self):
        profiles = GaugeMetricFamily("vllm_profiles_profiles", "Stored profiles by state", labels=["state"])
        by_state = dict(
            Verdict.objects.values_list("state").annotate(n=Count("pk")).values_list("state", "n")
        )
        unverified = Profile.objects.count() - sum(by_state.values()) + by_state.pop("unverified", 0)
        for state in ("valid", "warning", "invalid"):
            profiles.add_metric([state], by_state.get(state, 0))
        profiles.add_metric(["unverified"], unverified)
        yield profiles

        rechecks = CounterMetricFamily("vllm_profiles_rechecks", "Re-checks by state", labels=["state"])
        for state, count in (
            Recheck.objects.values_list("state").annotate(n=Count("pk")).values_list("state", "n")
        ):
            rechecks.add_metric([state], count)
        yield rechecks
        checked = Recheck.objects.filter(state="done").aggregate(n=Sum("done"))["n"] or 0
        yield CounterMetricFamily(
            "vllm_profiles_rechecked_profiles", "Profiles looked at by re-checks", value=checked
        )

        finished = Recheck.objects.filter(state="done", started_at__isnull=False, finished_at__isnull=False)
        average = finished.aggregate(d=Avg(F("finished_at") - F("started_at")))["d"]
        yield GaugeMetricFamily(
            "vllm_profiles_recheck_duration_seconds",
            "Mean duration of finished re-checks",
            value=average.total_seconds() if average else 0.0,
        )
        last = finished.order_by("-finished_at").first()
        rate = 0.0
        if last is not None:
            seconds = (last.finished_at - last.started_at).total_seconds()
            rate = last.total / seconds if seconds > 0 else float(last.total)
        yield GaugeMetricFamily(
            "vllm_profiles_recheck_throughput",
            "Profiles per second of the last finished re-check",
            value=rate,
        )

        alerts = CounterMetricFamily("vllm_profiles_alerts", "Alerts by state", labels=["state"])
        counts = dict(Alert.objects.values_list("state").annotate(n=Count("pk")).values_list("state", "n"))
        for state in ("pending", "sending", "sent", "failed", "suppressed"):
            alerts.add_metric([state], counts.get(state, 0))
        yield alerts

        depth = queue_depth()
        if depth is not None:
            yield GaugeMetricFamily(
                "vllm_profiles_queue_depth", "Messages waiting in the Celery queue", value=depth
            )


def queue_depth() -> int | None:
    """LLEN of the default queue on a Redis broker (cheap); None for other brokers."""
    url = settings.CELERY_BROKER_URL
    if not url.startswith(("redis://", "rediss://")):
        return None
    try:
        return int(redis.Redis.from_url(url, socket_timeout=1).llen("celery"))
    except Exception:
        return None


REGISTRY = CollectorRegistry(auto_describe=False)
REGISTRY.register(DatabaseCollector())


def metrics_view(request):
    token = os.environ.get("METRICS_TOKEN")
    if token:
        given = request.headers.get("Authorization") or ""
        # Constant time: how long the comparison takes says nothing of how much of the token was right.
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            return HttpResponseForbidden("metrics need the bearer token")
    return HttpResponse(generate_latest(REGISTRY), content_type=CONTENT_TYPE_LATEST)
