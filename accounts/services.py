"""Writes of accounts: API tokens (created, used, revoked). Every change is in the audit log."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from . import permissions
from .audit import audit_record
from .errors import DomainError
from .models import ApiToken
from .selectors import token_by_digest

KEY_PREFIX = "vpt_"
NAME_MAX = 100
# last_used_at is written at most this often per token, so a busy client costs no write per request
LAST_USED_EVERY = timedelta(minutes=5)


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _snapshot(token: ApiToken) -> dict:
    return {
        "user": token.user.get_username(),
        "name": token.name,
        "prefix": token.prefix,
        "read_only": token.read_only,
        "expires_at": token.expires_at,
        "revoked_at": token.revoked_at,
    }


@transaction.atomic
def token_create(
    *, actor, user, name: str, read_only: bool = False, expires_at: datetime | None = None
) -> tuple[ApiToken, str]:
    """A new token for ``user`` and its key, which is never shown again (only its sha256 is stored).

    ``actor`` None is a management command; otherwise a user creates their own tokens and staff anyone's."""
    if actor is not None:
        permissions.require(
            actor.pk == user.pk or permissions.is_staff(actor), "you may create API tokens for yourself only"
        )
    name = (name or "").strip()
    if not name:
        raise DomainError("give the token a name (what uses it, e.g. ci-deploy)", field="name")
    if len(name) > NAME_MAX:
        raise DomainError(f"the name is longer than {NAME_MAX} characters", field="name")
    if expires_at is not None and expires_at <= timezone.now():
        raise DomainError("the expiry must be in the future", field="expires_at")
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    try:
        with transaction.atomic():
            token = ApiToken.objects.create(
                user=user,
                name=name,
                prefix=key[: len(KEY_PREFIX) + 4],
                digest=key_digest(key),
                read_only=read_only,
                expires_at=expires_at,
            )
    except IntegrityError as exc:
        raise DomainError(f"you have a token named {name!r} already; revoke it first", field="name") from exc
    audit_record(
        actor=actor,
        action="token.create",
        object_type="token",
        object_id=token.pk,
        object_repr=str(token),
        after=_snapshot(token),
    )
    return token, key


@transaction.atomic
def token_revoke(*, actor, token: ApiToken) -> ApiToken:
    if actor is not None:
        permissions.require(
            actor.pk == token.user_id or permissions.is_staff(actor), "you may revoke your own tokens only"
        )
    token = ApiToken.objects.select_for_update().select_related("user").get(pk=token.pk)
    if token.revoked_at is not None:
        return token
    before = _snapshot(token)
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    audit_record(
        actor=actor,
        action="token.revoke",
        object_type="token",
        object_id=token.pk,
        object_repr=str(token),
        before=before,
        after=_snapshot(token),
    )
    return token


def token_authenticate(key: str, *, extra: tuple[str, ...] = ()) -> ApiToken | None:
    """The live token of ``key`` with its user (one indexed query), or None: unknown, revoked or expired.
    ``extra``: scalar subqueries read in the same query (``token.prefetched``; see ``token_by_digest``)."""
    token = token_by_digest(key_digest(key), extra=extra)
    now = timezone.now()
    if token is None or token.revoked_at is not None or (token.expires_at and token.expires_at <= now):
        return None
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
