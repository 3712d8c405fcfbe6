"""The one thing validation (and hub) ask of the layer above them: re-check profiles.

Publishing a rule set, importing a release, moving the fleet's release, a model's config or a node type
changing: each makes verdicts stale. The verdicts, and the re-check that recomputes them, belong to the
profiles app, which builds on validation and hub; so they cannot import it. Instead the profiles app
registers its re-check here when Django starts (``ProfilesConfig.ready``), and they call
:func:`recheck_request`.

``where`` selects the profiles to re-check with a ``Q`` over the profile's own fields (``model_source``,
``node_type`` ...); None: what ``cause`` affects (every profile for a rule set, those on a release for a
release). Without a registered re-check (the profiles app not installed) nothing is re-checked.
"""

from __future__ import annotations

from typing import Any, Protocol

from django.db.models import Q


class Recheck(Protocol):
    def __call__(
        self,
        *,
        cause: str,
        ruleset: Any = None,
        release: Any = None,
        actor: Any = None,
        where: Q | None = None,
    ) -> Any: ...


_registered: list[Recheck] = []


def recheck_register(recheck: Recheck) -> None:
    """Called once by the profiles app when Django starts; registering again replaces it."""
    _registered[:] = [recheck]


def recheck_request(
    *, cause: str, ruleset: Any = None, release: Any = None, actor: Any = None, where: Q | None = None
) -> Any:
    """Start a re-check (returns it), or None when no app has registered one."""
    if not _registered:
        return None
    return _registered[0](cause=cause, ruleset=ruleset, release=release, actor=actor, where=where)
