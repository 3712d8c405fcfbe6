"""Value types shared by every part of the engine.

Frozen dataclasses and plain dicts only, so that the engine can be benchmarked and tested without a
database, and so that the Django apps can persist them as JSON.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache
from typing import Any

from packaging.version import InvalidVersion, Version

KINDS: tuple[str, ...] = ("serving", "collection")
SEVERITIES: tuple[str, ...] = ("error", "warning", "info")
CATEGORIES: tuple[str, ...] = ("vllm", "policy", "catalog")
# Severities that count: a finding of these that no waiver exempts makes a profile invalid or a warning.
ACTIVE_SEVERITIES: tuple[str, ...] = ("error", "warning")


@lru_cache(maxsize=1024)
def parse_version(text: str | None) -> Version | None:
    """The release ``text`` names (``"0.33.0"``), or None if it is not a version: the engine's only parser.
    Kept per text (a ``Version`` is immutable): every profile's evaluation asks for its release's."""
    try:
        return Version(str(text)) if text else None
    except InvalidVersion:
        return None


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input."""


class ParseError(EngineError):
    """The input cannot be parsed. ``where`` names the token or line, ``detail`` says what is wrong."""

    def __init__(self, detail: str, *, where: str | None = None, position: int | None = None):
        self.detail = detail
        self.where = where
        self.position = position
        super().__init__(f"{where}: {detail}" if where else detail)


class RuleCompileError(EngineError):
    """A rule (or a derived value) does not compile: a CEL syntax error or a bad field."""

    def __init__(self, rule_id: str, field_name: str, detail: str):
        self.rule_id = rule_id
        self.field_name = field_name
        self.detail = detail
        super().__init__(f"rule {rule_id!r}, {field_name}: {detail}")


@dataclass(frozen=True)
class ArgSpec:
    """One ``vllm serve`` argument of one release, as the catalog records it.

    ``type`` is one of bool, int, float, str, list, json. For ``list`` arguments ``item_type`` names the
    element type. For ``json`` arguments ``config_class`` names the config class whose fields the JSON
    object's keys must be.
    ``negatable`` is true where argparse also registers ``--no-<flag>`` (BooleanOptionalAction);
    ``negative_flags`` lists every option string that sets the value to False.
    ``optional_value`` is true for ``nargs='?'`` flags, which may be given without a value (``const``).
    """

    name: str
    flags: tuple[str, ...]
    type: str = "str"
    item_type: str | None = None
    default: Any = None
    default_resolved_at_startup: bool = False
    choices: tuple[Any, ...] | None = None
    bounds: dict[str, float] | None = None  # {"gt"|"ge"|"lt"|"le": number}
    nullable: bool = False
    negatable: bool = False
    negative_flags: tuple[str, ...] = ()  # flags that set a bool to False: --no-x, --disable-x
    optional_value: bool = False
    const: Any = None
    human_readable_int: bool = False
    config_class: str | None = None
    deprecated: bool = False
    deprecation: str | None = None  # vLLM's own deprecation text, if any
    hidden_aliases: tuple[str, ...] = ()
    group: str | None = None
    help: str = ""
    # Added by the extractor (additive, all optional):
    nargs: str | int | None = None  # argparse nargs as registered: "+", "?", or a fixed count
    repeatable: bool = False  # action="append": the flag may be given several times, values accumulate
    json_or_str: bool = False  # a JSON object when the value looks like {...}, a plain string otherwise
    # json_or_str whose config field takes no plain string (`dict[str, Any] | Callable`): pydantic's name of
    # the union's dict member (`dict[str,any]`), for its "Input should be a valid dictionary" refusal
    str_refused: str | None = None
    special_values: tuple[str, ...] = ()  # extra spellings accepted besides the type, e.g. "auto"/"-1"
    # a config field's pydantic validator that takes names (an object typed field's shorthand, or a name-only
    # field): {"values": [names taken], "refused": {name: message}, "message": vLLM's text for any other
    # name with {value!r} | None, "class": "ValueError" | ..., "strict": true if it takes nothing but a str}
    str_check: dict[str, Any] | None = None
    # a free-form JSON object field's pydantic validator: {"types": {kind: {"class", "message"}} refusing a
    # value of that JSON kind (Python's type name), "items": {"values": [names taken], "refused": {name: ...},
    # "message": {...} for any other string, "types": {kind: {...}}} | None}, messages with {key} and {value}
    dict_check: dict[str, Any] | None = None
    suggestions: tuple[Any, ...] | None = None  # known values of a free-text argument (Literal | str)
    origin: dict[str, Any] | None = None  # {"class", "field", "file", "line"} of the config field behind it

    @cached_property
    def long_flag(self) -> str:
        return next((f for f in self.flags if f.startswith("--")), self.flags[0])

    @cached_property
    def allowed_choices(self) -> tuple[tuple[Any, ...], frozenset[str], bool]:
        """Its choices but None, their texts, and whether one is a bool: what a value is checked against."""
        allowed = tuple(c for c in self.choices or () if c is not None)
        return allowed, frozenset(str(c) for c in allowed), any(isinstance(c, bool) for c in allowed)


def _is_active(severity: str | None, waived: bool | None) -> bool:
    return severity in ACTIVE_SEVERITIES and not waived


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: str
    category: str
    message: str
    fields: tuple[str, ...] = ()
    solutions: tuple[str, ...] = ()
    source: str | None = None
    example_fix: str | None = None
    docs: str | None = None
    waived: bool = False
    fix: dict[str, Any] | None = None  # a mechanical fix: {"set": {...}, "unset": [...]}
    # The rule's static message (vLLM's source text, `{self.x}` placeholders and all: search vLLM's source
    # with it); ``message`` is that text with the profile's values filled in by the rule's message template.
    message_source: str | None = None
    # False when a slot of the rule's template could not be filled for this profile: ``message`` then reads
    # "…" there, ``missing`` names the facts the profile does not give (in words, with the way to supply
    # them: engine/missing.py) and ``message_note`` says how to supply them.
    message_rendered: bool = True
    message_note: str | None = None
    # The facts the finding could not be decided or worded without: ({"fact", "words", "supply"}, ...).
    missing: tuple[dict[str, str], ...] = ()
    # The whole text when ``message`` is its first sentence (a long vLLM help or deprecation text).
    message_detail: str | None = None

    @property
    def is_active(self) -> bool:
        """An error or a warning that no waiver exempts: what decides a profile's state and its alerts."""
        return _is_active(self.severity, self.waived)

    @staticmethod
    def active_in(data: dict[str, Any]) -> bool:
        """:attr:`is_active` of a finding stored as a dict (``as_dict``)."""
        return _is_active(data.get("severity"), data.get("waived"))

    def as_dict(self) -> dict[str, Any]:
        # What ``dataclasses.asdict`` gives (its recursive copy was a tenth of a dry run's CPU): every value
        # is a scalar or a tuple of strings but ``fix``, which is copied so that no caller can change a
        # finding that the engine reuses for other profiles.
        data = {name: getattr(self, name) for name in _FINDING_FIELDS}
        data["fields"] = list(self.fields)
        data["solutions"] = list(self.solutions)
        data["missing"] = [dict(m) for m in self.missing]
        if self.fix is not None:
            data["fix"] = copy.deepcopy(self.fix)
        if data["message_source"] is None:
            data["message_source"] = self.message
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        known = {f for f in cls.__dataclass_fields__}
        values = {k: v for k, v in data.items() if k in known}
        values["fields"] = tuple(values.get("fields") or ())
        values["solutions"] = tuple(values.get("solutions") or ())
        values["missing"] = tuple(dict(m) for m in values.get("missing") or ())
        return cls(**values)


SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Verdict:
    """The findings document (docs/findings.md): the release, the rule-set version, and every finding
    (waived ones too)."""

    vllm_version: str | None
    ruleset: int | None
    findings: tuple[Finding, ...] = field(default_factory=tuple)
    # The GPU memory estimate (engine/memory.py ``Estimate.as_dict()``), when the document gives the GPU and
    # the model's config: not part of equality, only added to ``as_dict`` when present.
    memory: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def valid(self) -> bool:
        return not any(f.is_active and f.severity == "error" for f in self.findings)

    @property
    def state(self) -> str:
        """valid | warning | invalid: the summary the dashboard and alerts use."""
        active = [f for f in self.findings if f.is_active]
        if any(f.severity == "error" for f in active):
            return "invalid"
        if any(f.severity == "warning" for f in active):
            return "warning"
        return "valid"

    def as_dict(self) -> dict[str, Any]:
        data = {
            "valid": self.valid,
            "vllm_version": self.vllm_version,
            "ruleset": self.ruleset,
            "findings": [f.as_dict() for f in self.findings],
        }
        if self.memory is not None:
            data["memory"] = self.memory
        return data


def new_verdict(vllm_version: str | None, ruleset: int | None, findings: tuple[Finding, ...]) -> Verdict:
    """``Verdict(vllm_version, ruleset, findings)``: the engine's one place that makes a verdict."""
    return Verdict(vllm_version, ruleset, findings)


_FINDING_FIELDS = tuple(f.name for f in fields(Finding))
# Every field of a Finding in its order, each with its default (None for the four without one).
_FINDING_TEMPLATE: dict[str, Any] = {
    f.name: None if f.default is dataclasses.MISSING else f.default for f in fields(Finding)
}
_REQUIRED_KEYS = frozenset({"rule", "severity", "category", "message"})


def new_finding(**values: Any) -> Finding:
    """``Finding(**values)``: the engine's one place that makes a finding (TypeError for a field it does not
    have or a required one missing)."""
    return Finding(**values)
