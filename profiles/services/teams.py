"""Teams: created, and their default node type."""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from accounts import permissions
from accounts.audit import audit_record
from validation.errors import DomainError

from ..models import Team, TeamMembership
from ..models import Verdict as VerdictRecord
from .profiles import _node_type
from .rechecks import recheck_start


@transaction.atomic
def team_create(*, actor, slug: str, name: str) -> Team:
    permissions.require(permissions.can_create_team(actor), "only staff may create teams")
    if Team.objects.filter(slug=slug).exists():
        raise DomainError(f"a team with slug {slug!r} exists already", field="slug", code="unique")
    team = Team.objects.create(slug=slug, name=name or slug)
    TeamMembership.objects.create(team=team, user=actor, role=TeamMembership.Role.ADMIN, watch=True)
    audit_record(
        actor=actor,
        action="team.create",
        object_type="team",
        object_id=team.pk,
        object_repr=team.slug,
        team=team,
        after={"slug": team.slug, "name": team.name, "admin": actor.get_username()},
    )
    return team


def _team_locked(team: Team, precondition: Callable[[], None] | None) -> Team:
    """The team's row, locked until the transaction ends; then the caller's precondition (an ``If-Match``
    check) under that lock, so that the check and the write that follows are atomic."""
    locked = Team.objects.select_for_update(of=("self",)).select_related("default_node_type").get(pk=team.pk)
    if precondition is not None:
        precondition()
    return locked


def _team_set_audited(actor, team: Team, field: str, value, *, shown: Callable) -> None:
    """Set one field of a locked team and write the audit entry with its value before and after (as
    ``shown`` renders it)."""
    before = {field: shown(getattr(team, field))}
    setattr(team, field, value)
    team.save(update_fields=[field])
    audit_record(
        actor=actor,
        action="team.update",
        object_type="team",
        object_id=team.pk,
        object_repr=team.slug,
        team=team,
        before=before,
        after={field: shown(value)},
    )


def team_set_default_node_type(
    *, actor, team: Team, name: str, precondition: Callable[[], None] | None = None
) -> Team:
    """The node type of the team's profiles that choose none; those profiles are re-checked.
    ``precondition``: run under the team's row lock before anything is written."""
    permissions.require(
        permissions.can_admin_team(actor, team), "only the team's admins may set its default node type"
    )
    node_type = _node_type(name.strip()) if name.strip() else None
    with transaction.atomic():
        team = _team_locked(team, precondition)
        _team_set_audited(
            actor, team, "default_node_type", node_type, shown=lambda value: value.name if value else ""
        )
        followers = VerdictRecord.objects.filter(profile__team=team, profile__node_type__isnull=True)
        recheck_start(cause="manual", verdicts=followers)
    return team


SSO_GROUP_MAX = 200


def team_set_sso_groups(
    *, actor, team: Team, groups: dict[str, str], precondition: Callable[[], None] | None = None
) -> Team:
    """Single sign-on: which of the identity provider's groups make a user a member of the team, and with
    which role (``{"group": "viewer" | "editor" | "admin"}``); applied at each member's next SSO sign-in
    (``profiles.services.memberships.sso_sign_in``). The team's admins and staff set it."""
    permissions.require(
        permissions.can_admin_team(actor, team), "only the team's admins may map SSO groups to roles"
    )
    clean: dict[str, str] = {}
    for group, role in groups.items():
        name = str(group).strip()
        if not name or len(name) > SSO_GROUP_MAX:
            raise DomainError(
                f"a group name is 1 to {SSO_GROUP_MAX} characters: {name[:50]!r}", field="groups"
            )
        if role not in TeamMembership.Role.values:
            raise DomainError(
                f"unknown role {role!r} for group {name!r}; roles: {', '.join(TeamMembership.Role.values)}",
                field="groups",
            )
        clean[name] = role
    with transaction.atomic():
        team = _team_locked(team, precondition)
        _team_set_audited(actor, team, "sso_groups", clean, shown=lambda value: value)
    return team
