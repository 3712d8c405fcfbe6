"""Reads of accounts: a user's tokens, the audit log as each user may see it."""

from __future__ import annotations

from django.db.models import Field, QuerySet
from django.db.models.expressions import RawSQL

from . import permissions
from .models import ApiToken, AuditEvent


def tokens_of(user) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("revoked_at", "-created_at")


def token_by_digest(digest: str, *, extra: tuple[str, ...] = ()) -> ApiToken | None:
    """The token whose key hashes to ``digest``, with its user loaded (one indexed query), or None.

    ``extra``: SQL scalar subqueries (no parameters) read in the same query (``RawSQL`` annotations), their
    values left in ``token.prefetched`` in that order: what a view reads on every request (the reference
    stamp of a validation) then costs no round trip of its own."""
    names = [f"prefetched_{number}" for number in range(len(extra))]
    tokens = ApiToken.objects.select_related("user").filter(digest=digest)
    if extra:
        # the subqueries are the product's own constant SQL (validation.selectors), never user input
        annotations = {
            name: RawSQL(sql, (), output_field=Field())  # nosec B611
            for name, sql in zip(names, extra, strict=True)
        }
        tokens = tokens.annotate(**annotations)
    try:
        token = tokens.get()
    except ApiToken.DoesNotExist:
        return None
    token.prefetched = tuple(getattr(token, name) for name in names)
    return token


def audit_events_visible_to(user) -> QuerySet[AuditEvent]:
    """Staff: every entry. A team admin: the entries of the teams they administer. Anyone else: none."""
    events = AuditEvent.objects.all()
    teams = permissions.audited_team_ids(user)
    return events if teams is None else events.filter(team_id__in=teams)
