"""The one place that says who may do what. Services, pages, the API and the admin all ask here.

- **Team roles** (``Role``): a *viewer* reads the team's profiles, verdicts, history and alerts; an *editor*
  also creates, edits and deletes them, adds Git sources and requests waivers; an *admin* also manages the
  team (members, default node type) and approves waivers.
- **Staff** (``is_staff``: an active user with Django's ``is_staff`` or ``is_superuser``) sees every team and
  alone changes rule sets, releases, the fleet's release and creates teams.
- **A waiver needs a second person**: whoever requested it cannot approve it, staff included.

Checks are plain predicates (``can_...``) for templates and list filters, and ``require(...)`` raises
``DomainError(code="permission")``, which the API answers with 403 and the pages with 403 too.
"""

from __future__ import annotations

from django.db import models

from .errors import DomainError


class Role(models.TextChoices):
    VIEWER = "viewer", "viewer (reads, gets alerts)"
    EDITOR = "editor", "editor (edits profiles)"
    ADMIN = "admin", "admin (manages the team)"


EDITOR_ROLES = (Role.EDITOR, Role.ADMIN)
ADMIN_ROLES = (Role.ADMIN,)
ALL_ROLES = tuple(Role)


def _team_id(team) -> int | None:
    return team if isinstance(team, int) else getattr(team, "pk", None)


def is_staff(user) -> bool:
    """One definition of staff: signed in, active, and Django's ``is_staff`` or ``is_superuser``."""
    return bool(
        user is not None
        and getattr(user, "is_authenticated", False)
        and user.is_active
        and (user.is_staff or user.is_superuser)
    )


def _has_role(user, team, roles) -> bool:
    if is_staff(user):
        return True
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    return _member_role(user, team) in roles


def _member_role(user, team) -> str | None:
    """The user's role in ``team``, or None, read through the user's ``memberships`` relation (the profiles
    app's memberships: accounts imports no app)."""
    return user.memberships.filter(team_id=_team_id(team)).values_list("role", flat=True).first()


def can_view_team(user, team) -> bool:
    return _has_role(user, team, ALL_ROLES)


def can_edit_team(user, team) -> bool:
    """Create, edit and delete the team's profiles; add its Git sources; request waivers."""
    return _has_role(user, team, EDITOR_ROLES)


def can_admin_team(user, team) -> bool:
    """Manage the team: members and their roles, the default node type; approve waivers."""
    return _has_role(user, team, ADMIN_ROLES)


def can_manage_notification_targets(user, team) -> bool:
    """Add, remove and test the team's notification targets (their URLs are secrets): its admins and staff."""
    return _has_role(user, team, ADMIN_ROLES)


def can_request_waiver(user, profile) -> bool:
    return can_edit_team(user, profile.team_id)


def can_approve_waiver(user, *, team, requested_by_id: int | None) -> bool:
    """A team admin or staff who is not the requester: a waiver needs a second person."""
    return can_admin_team(user, team) and user.pk != requested_by_id


def can_revoke_waiver(user, profile) -> bool:
    """Ending an exemption makes the check stricter: the team's admins or staff, no second person needed."""
    return can_admin_team(user, profile.team_id)


def can_manage_git_credentials(user, team) -> bool:
    """Register and remove a team's Git credentials (tokens, SSH keys): the team's admins, or staff. Editors
    name a registered credential in a source, but never see or set its secret."""
    return can_admin_team(user, team)


def can_change_model_configs(user) -> bool:
    """Upload a model's config.json, fetch one anew or refresh a stored one. A stored config serves every
    team's profiles of that repository, so: editors and admins of some team, and staff; viewers and users of
    no team only read them."""
    if is_staff(user):
        return True
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    return user.memberships.filter(role__in=EDITOR_ROLES).exists()


def can_manage_rulesets(user) -> bool:
    return is_staff(user)


def can_manage_fleet(user) -> bool:
    return is_staff(user)


def can_create_team(user) -> bool:
    return is_staff(user)


def visible_team_ids(user):
    """None for staff (every team), else a subquery of the ids of the user's teams, for list filters."""
    if is_staff(user):
        return None
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return []
    return user.memberships.values("team_id")


def editable_team_ids(user):
    """None for staff (every team), else a subquery of the ids of the teams the user edits."""
    if is_staff(user):
        return None
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return []
    return user.memberships.filter(role__in=EDITOR_ROLES).values("team_id")


def audited_team_ids(user):
    """Whose audit entries the user reads: None for staff (every entry), else a subquery of the ids of the
    teams they administer (empty for anyone else)."""
    if is_staff(user):
        return None
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return []
    return user.memberships.filter(role__in=ADMIN_ROLES).values("team_id")


def can_view_audit(user) -> bool:
    """The audit log's page: staff, and the admins of a team (who read their teams' entries)."""
    teams = audited_team_ids(user)
    return teams is None or (not isinstance(teams, list) and teams.exists())


def require(allowed: bool, message: str, *, field: str | None = None) -> None:
    """Raise ``DomainError(code="permission")`` (API: 403) with ``message`` unless ``allowed``."""
    if not allowed:
        raise DomainError(message, field=field, code="permission")
