"""Who is in a team, with which role (viewer, editor, admin) and whether they watch its profiles."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.db import transaction

from accounts import permissions
from accounts.audit import audit_record
from validation.errors import DomainError

from ..models import Team, TeamMembership
from .teams import _team_locked


def team_add_member(
    *,
    actor,
    team: Team,
    user,
    role: str = TeamMembership.Role.EDITOR,
    watch: bool = False,
    precondition: Callable[[], None] | None = None,
):
    """Add a member, or change the role of one. ``precondition``: run under the team's row lock first."""
    permissions.require(permissions.can_admin_team(actor, team), "only the team's admins may add members")
    if role not in TeamMembership.Role.values:
        raise DomainError(
            f"unknown role {role!r}; roles: {', '.join(TeamMembership.Role.values)}", field="role"
        )
    with transaction.atomic():
        team = _team_locked(team, precondition)
        old = TeamMembership.objects.filter(team=team, user=user).values("role", "watch").first()
        membership, _ = TeamMembership.objects.update_or_create(
            team=team, user=user, defaults={"role": role, "watch": watch, "via_sso": False}
        )
        audit_record(
            actor=actor,
            action="membership.create" if old is None else "membership.update",
            object_type="membership",
            object_id=membership.pk,
            object_repr=f"{user.get_username()} in {team.slug}",
            team=team,
            before=old,
            after={"user": user.get_username(), "role": role, "watch": watch},
        )
    return membership


def team_member_update(
    *, actor, membership: TeamMembership, role: str | None = None, watch: bool | None = None
):
    """Change a member's role and/or whether they watch the team (alerts for every profile of it). A team
    keeps at least one admin: the last one cannot be made viewer or editor."""
    team = membership.team
    permissions.require(
        permissions.can_admin_team(actor, team), "only the team's admins may change members' roles"
    )
    before = {"user": membership.user.get_username(), "role": membership.role, "watch": membership.watch}
    if role is not None:
        if role not in TeamMembership.Role.values:
            raise DomainError(
                f"unknown role {role!r}; roles: {', '.join(TeamMembership.Role.values)}", field="role"
            )
        last_admin = (
            membership.role == TeamMembership.Role.ADMIN
            and role != TeamMembership.Role.ADMIN
            and not team.memberships.filter(role=TeamMembership.Role.ADMIN).exclude(pk=membership.pk).exists()
        )
        if last_admin:
            raise DomainError(
                f"{membership.user.username} is the last admin of {team.slug}; "
                "make another member admin first",
                field="role",
            )
        membership.role = role
        membership.via_sso = False  # set by hand: SSO no longer changes it
    if watch is not None:
        membership.watch = watch
    with transaction.atomic():
        membership.save(update_fields=["role", "watch", "via_sso"])
        audit_record(
            actor=actor,
            action="membership.update",
            object_type="membership",
            object_id=membership.pk,
            object_repr=f"{membership.user.get_username()} in {team.slug}",
            team=team,
            before=before,
            after={**before, "role": membership.role, "watch": membership.watch},
        )
    return membership


def team_add_member_by_username(*, actor, team: Team, username: str, role: str, watch: bool = False):
    """Add (or re-add) a member by their user name, naming it when no such user exists."""
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None:
        raise DomainError(f"no user named {username.strip()!r}", field="username")
    return team_add_member(actor=actor, team=team, user=user, role=role, watch=watch)


# --- single sign-on: the identity provider's groups give memberships (called through accounts.sso_port) ---

_ROLE_RANK = {permissions.Role.VIEWER: 0, permissions.Role.EDITOR: 1, permissions.Role.ADMIN: 2}


def sso_roles(groups: list[str]) -> dict:
    """The teams the groups map to, each with its role: the highest one any of the groups gives
    (``Team.sso_groups``: {group: role})."""
    wanted: dict = {}
    for team in Team.objects.filter(sso_groups__has_any_keys=list(groups)) if groups else ():
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
    wanted = sso_roles(groups)
    wanted_by_id = {team.pk: (team, role) for team, role in wanted.items()}
    memberships = TeamMembership.objects.select_for_update(of=("self",)).filter(user=user)
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
        membership = TeamMembership.objects.create(team=team, user=user, role=role, via_sso=True)
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
