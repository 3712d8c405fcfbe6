"""Reads of accounts: a user's tokens, the audit log as each user may see it."""

from __future__ import annotations

from functools import cache

from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import QuerySet

from . import permissions
from .models import ApiToken, AuditEvent
from .rows import converters_of, read_row


def tokens_of(user) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("revoked_at", "-created_at")


@cache
def _token_query(extra: tuple[str, ...] = ()) -> tuple[str, list[str], list[str], list[tuple]]:
    """``SELECT token.*, user.* ... WHERE digest = %s``, built once from the models' metadata, with the
    columns' names and the backend's converters (index, converter, column) of the values it returns.
    ``extra``: scalar subqueries selected beside them (see :func:`token_by_digest`).

    Every API request authenticates, so the query is written once rather than compiled by the ORM per
    request (compiling ``select_related("user").filter(digest=...)`` was a third of a validation's CPU)."""
    connection = connections[DEFAULT_DB_ALIAS]
    quote = connection.ops.quote_name
    user_model = get_user_model()
    token_fields = list(ApiToken._meta.concrete_fields)
    user_fields = list(user_model._meta.concrete_fields)
    columns = [f"t.{quote(f.column)}" for f in token_fields] + [f"u.{quote(f.column)}" for f in user_fields]
    columns += [f"({sql})" for sql in extra]
    sql = (
        f"SELECT {', '.join(columns)} FROM {quote(ApiToken._meta.db_table)} t "  # nosec B608  # names from model metadata (quote_name), values are %s parameters
        f"JOIN {quote(user_model._meta.db_table)} u ON u.{quote(user_model._meta.pk.column)} = "
        f"t.{quote(ApiToken._meta.get_field('user').column)} WHERE t.{quote('digest')} = %s"
    )
    converters = converters_of(token_fields + user_fields)
    return sql, [f.attname for f in token_fields], [f.attname for f in user_fields], converters


def token_by_digest(digest: str, *, extra: tuple[str, ...] = ()) -> ApiToken | None:
    """The token whose key hashes to ``digest``, with its user loaded (one indexed query), or None.

    ``extra``: SQL scalar subqueries (no parameters) read in the same statement, their values left in
    ``token.prefetched`` in that order: what a view reads on every request (the reference stamp of a
    validation) then costs no round trip of its own. The statement is prepared where the backend can
    (``prepared_cursor``: PostgreSQL plans it once per connection)."""
    sql, token_names, user_names, converters = _token_query(extra)
    values = read_row(sql, [digest], converters)
    if values is None:
        return None
    split = len(token_names)
    ends = split + len(user_names)
    token = ApiToken.from_db(DEFAULT_DB_ALIAS, token_names, values[:split])
    token.user = get_user_model().from_db(DEFAULT_DB_ALIAS, user_names, values[split:ends])
    token.prefetched = tuple(values[ends:])
    return token


def audit_events_visible_to(user) -> QuerySet[AuditEvent]:
    """Staff: every entry. A team admin: the entries of the teams they administer. Anyone else: none."""
    events = AuditEvent.objects.all()
    if permissions.is_staff(user):
        return events
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return events.none()
    admin_of = user.memberships.filter(role__in=permissions.ADMIN_ROLES).values("team_id")
    return events.filter(team_id__in=admin_of)
