"""Read side of model knowledge: what is stored; never the network."""

from __future__ import annotations

import threading
from typing import Any

from django.db.models import QuerySet

from validation.selectors import reference_part

from .models import ModelConfig, NodeType


def model_configs() -> QuerySet[ModelConfig]:
    return ModelConfig.objects.select_related("uploaded_by").order_by("repo", "revision")


def model_config_stored(repo: str, revision: str = "") -> ModelConfig | None:
    """The stored config of ``repo`` at ``revision``. Inside a pinned validation reference (a validation, a
    save, an admission review) rows are kept in this process's memory until the stamp of the model configs
    (:func:`model_configs_stamp_sql`) changes; elsewhere the database is read. The rows are shared: read
    them, never change them."""
    global _rows_stamp
    stamp = reference_part(STAMP_PART)
    if stamp is None:
        return ModelConfig.objects.filter(repo=repo, revision=revision).first()
    with _rows_lock:
        if stamp != _rows_stamp:
            _rows.clear()
            _rows_stamp = stamp
        row = _rows.get((repo, revision))
    if row is None:
        row = ModelConfig.objects.filter(repo=repo, revision=revision).first()
        if row is not None:
            with _rows_lock:
                if stamp == _rows_stamp:  # read after the stamp: at least as new as it
                    _rows[(repo, revision)] = row
    return row


STAMP_PART = "hub.modelconfig"
_rows: dict[tuple[str, str], ModelConfig] = {}
_rows_stamp: Any = None
_rows_lock = threading.Lock()


def model_configs_stamp_sql(vendor: str) -> str:
    """One value that changes with any write to the stored model configs, whoever makes it (a service, the
    admin, SQL). On PostgreSQL: the rows' ``xmin`` (the transaction that wrote each row version). Elsewhere
    (the embedded SQLite) a coarser one that changes with any commit to the database and any change made by
    this connection: correct, only invalidated more often."""
    table = ModelConfig._meta.db_table
    if vendor == "postgresql":
        return f"SELECT count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) FROM {table}"  # nosec B608  # the table name from model metadata; no value
    return "SELECT (SELECT data_version FROM pragma_data_version()) || ':' || total_changes()"


def node_types() -> QuerySet[NodeType]:
    return NodeType.objects.order_by("name")
