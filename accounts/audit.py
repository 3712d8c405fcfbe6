"""The audit log's one writer: the services call ``audit_record`` inside their transaction, so an entry is
written exactly when the change is (a rolled-back change leaves no entry)."""

from __future__ import annotations

import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder

from .context import current_origin
from .models import AuditEvent


def _plain(value: Any) -> Any:
    """JSON-safe (dates, decimals, UUIDs as strings), so before/after are stored as they were."""
    if value is None:
        return None
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder, default=str))


def audit_record(**entry: Any) -> AuditEvent:
    """Record one change (see :func:`audit_event` for the arguments)."""
    event = audit_event(**entry)
    event.save(force_insert=True)
    return event


def audit_event(
    *,
    actor,
    action: str,
    object_type: str,
    object_id: Any = "",
    object_repr: str = "",
    team=None,
    before: Any = None,
    after: Any = None,
) -> AuditEvent:
    """The unsaved entry of one change, to be saved with it (:func:`audit_record`, or in the statement that
    inserts the object). ``actor`` None is the system (a worker, beat, migrate); ``team`` a Team or None."""
    origin = current_origin()
    user = actor if actor is not None and getattr(actor, "is_authenticated", False) else None
    return AuditEvent(
        actor_id=None if user is None else user.pk,  # the key: nothing reads the entry's actor back
        actor_name=user.get_username() if user is not None else "",
        via=origin.via,
        address=origin.address,
        action=action,
        object_type=object_type,
        object_id="" if object_id is None else str(object_id),
        object_repr=str(object_repr)[:300],
        team_id=getattr(team, "pk", None),
        team_slug=getattr(team, "slug", "") or "",
        before=_plain(before),
        after=_plain(after),
    )
