"""Write-side business logic of validation: releases, rule sets, verdicts, re-checks, alerts.

Also the bridge between the database and the pure engine: compiled rule sets and parsed catalogs are cached
per process, keyed so that a change in the database is never served stale.
"""

from django.db import transaction

from .errors import DomainError, UnknownRelease
from .releases import (
    CATALOG_DIR,
    KNOWN_RELEASES,
    CatalogHistory,
    catalog_digest,
    catalog_for,
    fleet_release,
    release_ensure,
    release_get,
    release_store_catalog,
    releases_load_builtin,
)
from .rulesets import (
    BUILTIN_PACK,
    RULE_FIELDS,
    ruleset_compiled,
    ruleset_create_from_pack,
    ruleset_current,
    ruleset_load_builtin,
    ruleset_pack,
)
from .verdicts import document_validate, verdict_record

__all__ = [
    "BUILTIN_PACK",
    "CATALOG_DIR",
    "KNOWN_RELEASES",
    "RULE_FIELDS",
    "CatalogHistory",
    "DomainError",
    "UnknownRelease",
    "builtin_data_load",
    "catalog_digest",
    "catalog_for",
    "document_validate",
    "fleet_release",
    "release_ensure",
    "release_get",
    "release_store_catalog",
    "releases_load_builtin",
    "ruleset_compiled",
    "ruleset_create_from_pack",
    "ruleset_current",
    "ruleset_load_builtin",
    "ruleset_pack",
    "verdict_record",
]


@transaction.atomic
def builtin_data_load() -> None:
    """Releases, shipped catalogs and the built-in rule pack; idempotent (run after every migrate)."""
    releases_load_builtin()
    ruleset_load_builtin()
