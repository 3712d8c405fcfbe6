"""Write side of model knowledge: resolve config.json (network, short deadline), store, refresh, upload.

Only these functions ever reach the network; a re-check reads what they stored (``selectors``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts import permissions
from accounts.audit import audit_record
from validation.recheck_port import recheck_request
from vllmcheck import modelhub, modelhub_weights
from vllmcheck.modelhub_weights import INDEX_NAME

from .models import ModelConfig, NodeType
from .selectors import model_config_stored

# A failed fetch is not retried by ordinary saves for this long (an explicit refresh always retries).
RETRY_FAILED_AFTER = timedelta(minutes=10)
# A config fetched for a dry run (POST /api/v1/validate/, a refused save, `manage.py lint`) is kept in
# Django's cache (CACHE_URL), never as a stored model config: a dry run stores nothing.
DRY_RUN_KEPT_FOR = timedelta(hours=1)


class HubError(Exception):
    """Bad input for the hub: names what and where (``field``)."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


def _store(repo: str, revision: str, **values: Any) -> ModelConfig:
    values.setdefault("fetched_at", timezone.now())
    for _ in range(2):  # two concurrent first fetches of one repo: the loser updates the winner's row
        try:
            with transaction.atomic():
                row, _ = ModelConfig.objects.update_or_create(repo=repo, revision=revision, defaults=values)
            return row
        except IntegrityError:
            continue
    raise HubError(f"could not store the config of {repo}")  # pragma: no cover - needs three racing writers


def _was_read_locally(repo: str, revision: str) -> bool:
    """The stored config of ``repo`` at ``revision`` was read from a local directory."""
    row = model_config_stored(repo, revision)
    return row is not None and row.source == ModelConfig.Source.LOCAL


_NOTHING_KNOWN = {
    "config": None,
    "source": "",
    "commit": "",
    "files": None,
    "tokens": None,
    "encoder_config": None,
    "tokenizer_max_length": None,
    "checkpoint_size": None,
    "checkpoint_dtypes": None,
    "weights_basis": "",
}


def _weight_values(weights: modelhub_weights.CheckpointWeights | None) -> dict[str, Any]:
    """The row's fields for the checkpoint's weights (modelhub_weights); all empty when not known."""
    if weights is None:
        return {"checkpoint_size": None, "checkpoint_dtypes": None, "weights_basis": ""}
    return {
        "checkpoint_size": weights.size,
        "checkpoint_dtypes": weights.dtypes,
        "weights_basis": weights.basis,
    }


def model_config_fetch(repo: str, revision: str = "", *, force: bool = False) -> ModelConfig:
    """Resolve now (local directory, HF cache or Hub) and store the outcome. A failure keeps the last good
    config of the row, if any, and records the error. ``force``: ask the Hub even if it was unreachable a
    moment ago (an explicit refresh; otherwise modelhub answers from the cache alone for a few minutes).
    A local directory is read only under the operator's MODEL_LOCAL_DIRS (none by default); a config read
    from a directory that cannot be read now is not kept (it may be one that is no longer allowed)."""
    hub = modelhub.HubSettings.from_env(local_roots=tuple(settings.MODEL_LOCAL_DIRS))
    result = modelhub.resolve(repo, revision, settings=hub, force=force)
    if result.config is None and _was_read_locally(repo, revision):
        return _store(repo, revision, error=result.error, **_NOTHING_KNOWN)
    if result.config is not None:
        return _store(
            repo,
            revision,
            config=result.config,
            source=result.source,
            commit=result.commit,
            files=list(result.files) if result.files is not None else None,
            tokens=result.tokens,
            encoder_config=result.encoder_config,
            tokenizer_max_length=result.tokenizer_max_length,
            **_weight_values(result.weights),
            error="",
            uploaded_by=None,
        )
    return _store(repo, revision, error=result.error)


def _needs_fetch(row: ModelConfig | None, *, refresh: bool = False) -> bool:
    """A reference is fetched (again) if it was never resolved, if its last fetch failed long enough ago,
    if it is a local directory (cheap, and it may have changed), or if ``refresh``."""
    if row is None or refresh:
        return True
    old = timezone.now() - row.fetched_at > RETRY_FAILED_AFTER
    stale_failure = row.config is None and old
    # A config fetched before the checkpoint's files (or its weights) were read, or whose file list the Hub
    # did not give: fetched again, as rarely as a failure, so the checks that read the files stop saying
    # "could not verify" and the memory estimate gets the checkpoint's size.
    stale_facts = (
        row.config is not None
        and row.source in (ModelConfig.Source.HUB, ModelConfig.Source.CACHE)
        and (row.files is None or not row.weights_basis)
        and old
    )
    return stale_failure or stale_facts or row.source == ModelConfig.Source.LOCAL


def model_config_for(ref: modelhub.ModelRef, *, refresh: bool = False) -> ModelConfig:
    """The stored config of a reference, fetched (and stored) first when :func:`_needs_fetch` says so."""
    row = model_config_stored(ref.repo, ref.revision)
    if _needs_fetch(row, refresh=refresh):
        row = model_config_fetch(ref.repo, ref.revision, force=refresh)
    return row


def _dry_run_key(hub: modelhub.HubSettings, ref: modelhub.ModelRef) -> str:
    # The Hub settings are part of the key: another endpoint, cache or token may answer otherwise.
    text = repr((hub, ref.repo, ref.revision)).encode()
    return "hub:dry-run:" + hashlib.sha256(text).hexdigest()


def model_config_peek(ref: modelhub.ModelRef) -> ModelConfig:
    """The config of a reference for a dry run, stored nowhere in the database: the stored row when it is
    good as it is, else the resolution kept in Django's cache, else resolved now and kept in the cache (a
    failure for as long as a stored failure is not retried). The row returned for the latter two is unsaved
    (``pk`` None): :func:`model_config_keep` stores it when a save goes through."""
    row = model_config_stored(ref.repo, ref.revision)
    if not _needs_fetch(row):
        return row
    hub = modelhub.HubSettings.from_env(local_roots=tuple(settings.MODEL_LOCAL_DIRS))
    key = _dry_run_key(hub, ref)
    values = None
    with contextlib.suppress(Exception):  # a cache that is down: resolved again, as if it were empty
        values = cache.get(key)
    if values is None:
        result = modelhub.resolve(ref.repo, ref.revision, settings=hub)
        values = {
            "config": result.config,
            "source": result.source,
            "commit": result.commit,
            "files": list(result.files) if result.files is not None else None,
            "tokens": result.tokens,
            "encoder_config": result.encoder_config,
            "tokenizer_max_length": result.tokenizer_max_length,
            **_weight_values(result.weights),
            "error": result.error if result.config is None else "",
            "fetched_at": timezone.now(),
        }
        kept = DRY_RUN_KEPT_FOR if result.config is not None else RETRY_FAILED_AFTER
        if result.source != ModelConfig.Source.LOCAL:  # a local directory is read again each time (cheap)
            with contextlib.suppress(Exception):  # a cache that is down: the dry run answers all the same
                cache.set(key, values, timeout=int(kept.total_seconds()))
    if row is not None and values["config"] is None and row.config is not None:
        return row  # a failed fetch keeps the last good config, as a stored fetch does
    row = ModelConfig(repo=ref.repo, revision=ref.revision, **values)
    row.dry_run_key = key  # forgotten from the cache once stored: the stored row is then what counts
    return row


def model_config_keep(row: ModelConfig | None) -> ModelConfig | None:
    """Store a config a dry run resolved (an unsaved row of :func:`model_config_peek`): a save went through
    with it. A stored row is returned as it is."""
    if row is None or row.pk is not None:
        return row
    values = {name: getattr(row, name) for name in (*_NOTHING_KNOWN, "error", "fetched_at")}
    stored = _store(row.repo, row.revision, uploaded_by=None, **values)
    with contextlib.suppress(Exception):  # a cache that is down: the entry expires by itself
        cache.delete(getattr(row, "dry_run_key", ""))
    return stored


def model_sources_resolve(
    model: str | None, args: Mapping[str, Any] | None, *, fetch: bool = True, store: bool = True
) -> dict[str, ModelConfig | None]:
    """{"model": row, "draft": row or None} for a profile's model and speculative draft model; with
    ``fetch=False`` only what is stored already (None for the rest); with ``store=False`` (a dry run) what is
    fetched is kept in the cache only (:func:`model_config_peek`)."""
    rows: dict[str, ModelConfig | None] = {"model": None, "draft": None}
    for ref in modelhub.model_refs(model, args):
        if not fetch:
            rows[ref.role] = model_config_stored(ref.repo, ref.revision)
        elif store:
            rows[ref.role] = model_config_for(ref)
        else:
            rows[ref.role] = model_config_peek(ref)
    return rows


def model_sources_refresh(model: str | None, args: Mapping[str, Any] | None) -> list[ModelConfig]:
    """Fetch every config a profile needs again (the "refresh model config" action)."""
    return [model_config_for(ref, refresh=True) for ref in modelhub.model_refs(model, args)]


def profiles_recheck(config: ModelConfig):
    """Re-check (on the worker) every profile whose model or draft model reads this config."""
    return recheck_request(cause="manual", where=Q(model_source=config) | Q(draft_source=config))


def model_config_fetch_by(*, actor, repo: str, revision: str = "") -> ModelConfig:
    """A user's "fetch it now" (``POST /api/v1/model-configs/`` without a config): editors and staff."""
    permissions.require(
        permissions.can_change_model_configs(actor), "only editors of a team and staff fetch model configs"
    )
    return model_config_fetch(repo, revision, force=True)


def model_config_refresh(*, actor, config: ModelConfig) -> ModelConfig:
    """Fetch a stored config again; the profiles that read it are re-checked when it changed. Editors of a
    team and staff (``accounts.permissions.can_change_model_configs``)."""
    permissions.require(
        permissions.can_change_model_configs(actor), "only editors of a team and staff refresh model configs"
    )

    def facts(row):
        return (
            row.config,
            row.error,
            row.files,
            row.tokens,
            row.encoder_config,
            row.tokenizer_max_length,
            row.checkpoint_size,
            row.weights_basis,
        )

    before = facts(config)
    config = model_config_fetch(config.repo, config.revision, force=True)
    if facts(config) != before:
        profiles_recheck(config)
    return config


def _uploaded_index(index: Any) -> dict[str, Any]:
    """The weights fields of an uploaded model.safetensors.index.json (text, bytes or parsed JSON); a
    HubError on the ``index`` field naming what is wrong with it."""
    if index is None or (isinstance(index, str | bytes) and not index.strip()):
        return _weight_values(None)
    if not isinstance(index, str | bytes):
        try:
            index = json.dumps(index)
        except (TypeError, ValueError) as exc:
            raise HubError(
                f"the uploaded {INDEX_NAME} is not JSON: {exc}", field="safetensors_index"
            ) from exc
    try:
        return _weight_values(modelhub_weights.index_weights(index, where=f"the uploaded {INDEX_NAME}"))
    except ValueError as exc:
        raise HubError(str(exc), field="safetensors_index") from exc


def model_config_upload(
    *, actor, repo: str, revision: str = "", config: Any, index: Any = None
) -> ModelConfig:
    """Store a config.json given by a user (private models), and with it, when given, the checkpoint's
    model.safetensors.index.json (its total_size: the weights' bytes for the memory estimate): they serve
    every profile of that repository and revision until it is refreshed from the Hub. Editors of a team
    and staff."""
    permissions.require(
        permissions.can_change_model_configs(actor), "only editors of a team and staff upload model configs"
    )
    repo = (repo or "").strip()
    if not repo:
        raise HubError("give the repository (or directory) the config.json belongs to", field="repo")
    if isinstance(config, str | bytes):
        try:
            config = modelhub.parse_config(config, where="the uploaded config.json")
        except ValueError as exc:
            raise HubError(str(exc), field="config") from exc
    if not isinstance(config, dict):
        raise HubError("config must be a JSON object (the model's config.json)", field="config")
    weights = _uploaded_index(index)
    row = _store(
        repo,
        (revision or "").strip(),
        config=config,
        source=ModelConfig.Source.UPLOAD,
        commit="",
        files=None,  # an uploaded config.json says nothing of the other files
        tokens=None,
        encoder_config=None,
        tokenizer_max_length=None,
        **weights,
        error="",
        uploaded_by=actor if getattr(actor, "pk", None) else None,
    )
    profiles_recheck(row)
    return row


def node_type_get(name: str) -> NodeType:
    node = NodeType.objects.filter(name=name).first()
    if node is None:
        known = ", ".join(NodeType.objects.values_list("name", flat=True)) or "none"
        raise HubError(f"unknown node type {name!r}; known: {known}", field="node_type")
    return node


NODE_TYPE_FIELDS = ("name", "gpu", "gpus_per_node", "gpu_memory_gb", "interconnect", "description")


@transaction.atomic
def node_type_save(*, actor, node_type: NodeType, before: Mapping[str, Any] | None) -> NodeType:
    """Store a node type (the admin's form, staff only) and re-check the profiles on it: those that name it
    and those whose team defaults to it. ``before``: its fields before the edit, None when new."""
    permissions.require(permissions.is_staff(actor), "only staff may change node types")
    node_type.full_clean()
    node_type.save()
    after = {name: getattr(node_type, name) for name in NODE_TYPE_FIELDS}
    audit_record(
        actor=actor,
        action="node_type.create" if before is None else "node_type.update",
        object_type="node_type",
        object_id=node_type.pk,
        object_repr=node_type.name,
        before=dict(before) if before is not None else None,
        after=after,
    )
    if before is not None and dict(before) != after:
        on_it = Q(node_type=node_type) | Q(node_type__isnull=True, team__default_node_type=node_type)
        recheck_request(cause="manual", where=on_it)
    return node_type
