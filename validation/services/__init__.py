"""Write-side business logic of validation: releases and their catalogs, rule sets, the fleet's release.

Reads (the current rule set, the fleet's release, a release, its parsed catalog) are in
``validation.selectors``. Verdicts, re-checks, waivers and alerts are the profiles app's (profiles.services);
what changes here asks for a re-check through ``validation.recheck_port``. The modules import one another
downwards only: fleet, releases, rulesets -> selectors -> models.
"""

from django.db import transaction

from ..errors import DomainError, UnknownRelease
from .releases import CATALOG_DIR, KNOWN_RELEASES, releases_load_builtin
from .rulesets import BUILTIN_PACK, ruleset_load_builtin

__all__ = [
    "BUILTIN_PACK",
    "CATALOG_DIR",
    "KNOWN_RELEASES",
    "DomainError",
    "UnknownRelease",
    "builtin_data_load",
]


@transaction.atomic
def builtin_data_load() -> None:
    """Releases, shipped catalogs and the built-in rule pack; idempotent (run after every migrate)."""
    releases_load_builtin()
    ruleset_load_builtin()
