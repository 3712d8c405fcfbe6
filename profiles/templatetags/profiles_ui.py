"""Template helpers of the dashboard: the header (user, teams, fleet release) and value formatting."""

from __future__ import annotations

import json
import re

from django import template

from accounts import permissions
from validation.errors import DomainError
from validation.selectors import fleet_release
from vllmcheck import modelhub
from vllmcheck.engine import missing as missing_lib

register = template.Library()


@register.simple_tag(takes_context=True)
def dashboard_header(context) -> dict:
    """The header's facts, looked up once per request (two small queries, one in a view that pinned the
    reference data), for every page using base."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if request is None or not getattr(user, "is_authenticated", False):
        return {}
    cached = getattr(request, "_dashboard_header", None)
    if cached is None:
        try:
            fleet = fleet_release().version  # no query within a view that pinned the reference data
        except DomainError:  # no fleet release set yet
            fleet = ""
        teams = list(user.memberships.order_by("team__slug").values_list("team__slug", "role"))
        cached = {
            "teams": teams,
            "fleet": fleet,
            # the audit log's link: staff, and the admins of a team (who read their team's entries)
            "audit": permissions.is_staff(user) or any(role == permissions.Role.ADMIN for _, role in teams),
        }
        request._dashboard_header = cached
    return cached


@register.filter
def arg_value(value) -> str:
    """An argument's value as vLLM's command line would spell it: JSON for objects, lists and booleans."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True)


@register.filter
def flag(name: str) -> str:
    return "--" + str(name).replace("_", "-")


@register.filter
def split_unverifiable(findings) -> dict:
    """Infos saying a check "could not verify" (the model's config.json is missing, so a rule about some
    model family could not be decided) apart from the rest: the panel folds them away unless asked. A config
    that could not be fetched because the Hub cannot be reached is said once, by the page's banner
    (``hub_unreachable``), not as a finding of every profile."""
    shown, unverifiable = [], []
    for f in findings:
        if hub_unreachable_reason(f):
            continue
        quiet = f.get("severity") == "info" and (
            bool(f.get("missing")) or str(f.get("message", "")).startswith("could not verify")
        )
        (unverifiable if quiet else shown).append(f)
    return {"shown": shown, "unverifiable": unverifiable, "count": len(shown) + len(unverifiable)}


_UNREACHABLE = re.compile(r"could not be reached \(([^)]*)\)")


def hub_unreachable_reason(finding) -> str | None:
    """Why the Hub could not be reached ("name lookup failed"), for a model-config-unavailable finding that
    says so; None for any other finding."""
    if not isinstance(finding, dict) or finding.get("rule") != "model-config-unavailable":
        return None
    match = _UNREACHABLE.search(modelhub.error_in_words(str(finding.get("message", ""))))
    return match.group(1) if match else None


@register.filter
def hub_unreachable(findings) -> str | None:
    """The reason of the first finding of ``findings`` (dicts, or the panel's [(severity, [finding])]) saying
    the Hub could not be reached."""
    flat = []
    for item in findings or ():
        flat.extend(item[1] if isinstance(item, tuple | list) and len(item) == 2 else [item])
    for f in flat:
        reason = hub_unreachable_reason(f)
        if reason:
            return reason
    return None


_OLD_UNKNOWN = re.compile(r"<unknown: [^<>]*>")


@register.filter
def error_words(text) -> str:
    """A stored error or message with a raw connection error (``[Errno -2] ...``) in words, and an unknown
    value of a verdict stored before findings named missing facts in words (``<unknown: EXPR>``) as the
    engine writes it now (``…``) until the next re-check rewrites it."""
    return _OLD_UNKNOWN.sub(missing_lib.PLACEHOLDER, modelhub.error_in_words(str(text or "")))


@register.filter
def missing_words(finding) -> str:
    """The facts a finding could not be decided without, in words."""
    return missing_lib.words(finding.get("missing") or ()) if isinstance(finding, dict) else ""


@register.filter
def in_words(message: str) -> str:
    """A rule's static message (vLLM's source text) with its ``{self.x}`` placeholders named in words."""
    return missing_lib.template_in_words(str(message or ""))
