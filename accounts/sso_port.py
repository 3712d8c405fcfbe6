"""What a single sign-on asks of the layer above accounts: apply the identity provider's groups to the user's
team memberships.

Teams, their group mappings (``Team.sso_groups``) and memberships are the profiles app's; accounts (the lowest
layer) imports no app. The profiles app registers its implementation here when Django starts
(``ProfilesConfig.ready``), and the OIDC backend (``accounts.oidc``) calls :func:`sso_groups_apply` at each
sign-in. Without a registered one (the profiles app not installed) memberships are left as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_registered: list[Callable[..., Any]] = []


def sso_groups_register(apply: Callable[..., Any]) -> None:
    """Called once by the profiles app when Django starts; registering again replaces it."""
    _registered[:] = [apply]


def sso_groups_apply(*, user, groups: list[str]) -> None:
    """Make the user's SSO memberships follow ``groups`` (see profiles.services.memberships.sso_sign_in)."""
    if _registered:
        _registered[0](user=user, groups=groups)
