"""Writes of accounts: API tokens (created, used, revoked). Every change is in the audit log."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
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


# --- single sign-on --------------------------------------------------------------------------------------

_ROLE_RANK = {permissions.Role.VIEWER: 0, permissions.Role.EDITOR: 1, permissions.Role.ADMIN: 2}


def _membership_model():
    """The team membership model, through the user's ``memberships`` relation (accounts imports no app)."""
    return get_user_model()._meta.get_field("memberships").related_model


def sso_roles(groups: list[str]) -> dict:
    """The teams the groups map to, each with its role: the highest one any of the groups gives
    (``Team.sso_groups``: {group: role})."""
    team_model = _membership_model()._meta.get_field("team").related_model
    wanted: dict = {}
    for team in team_model.objects.filter(sso_groups__has_any_keys=list(groups)) if groups else ():
        for group in groups:
            role = team.sso_groups.get(group)
            if role in _ROLE_RANK and (team not in wanted or _ROLE_RANK[role] > _ROLE_RANK[wanted[team]]):
                wanted[team] = role
    return wanted


@transaction.atomic
def sso_sign_in(*, user, groups: list[str]) -> None:
    """At each SSO sign-in: the user's memberships given by SSO follow the teams' group mappings. A team a
    group maps to makes the user its member with the mapped role; a membership SSO gave whose team no longer
    maps any of the user's groups is removed. A membership set by hand (``via_sso`` false) is left alone."""
    membership_model = _membership_model()
    wanted = sso_roles(groups)
    wanted_by_id = {team.pk: (team, role) for team, role in wanted.items()}
    memberships = membership_model.objects.select_for_update(of=("self",)).filter(user=user)
    for membership in memberships.select_related("team"):
        team, role = wanted_by_id.pop(membership.team_id, (membership.team, None))
        if not membership.via_sso or membership.role == role:
            continue
        before = {"user": user.get_username(), "role": membership.role, "via_sso": True}
        if role is None:
            pk = membership.pk
            membership.delete()
            _audit_membership(user, team, "membership.delete", pk, before, None, groups)
        else:
            membership.role = role
            membership.save(update_fields=["role"])
            after = {**before, "role": role}
            _audit_membership(user, team, "membership.update", membership.pk, before, after, groups)
    for team, role in wanted_by_id.values():
        membership = membership_model.objects.create(team=team, user=user, role=role, via_sso=True)
        after = {"user": user.get_username(), "role": role, "via_sso": True}
        _audit_membership(user, team, "membership.create", membership.pk, None, after, groups)


def _audit_membership(user, team, action: str, pk, before, after, groups: list[str]) -> None:
    audit_record(
        actor=user,
        action=action,
        object_type="membership",
        object_id=pk,
        object_repr=f"{user.get_username()} in {team.slug}",
        team=team,
        before=before,
        after=None if after is None else {**after, "groups": sorted(groups)},
    )
