"""Shapes only: the services validate, parse and save."""

from __future__ import annotations

import re
import sys

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import MaxLengthValidator, MinLengthValidator, ProhibitNullCharactersValidator
from rest_framework import serializers
from rest_framework.fields import _UnvalidatedField, empty
from rest_framework.serializers import as_serializer_error
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from profiles.models import Profile, Team, TeamMembership
from validation.api.http import PrebuiltFields, StrictFields
from validation.models import VerdictChange


class FindingSerializer(serializers.Serializer):
    rule = serializers.CharField()
    severity = serializers.ChoiceField(choices=["error", "warning", "info"])
    category = serializers.ChoiceField(choices=["vllm", "policy", "catalog"])
    message = serializers.CharField()
    fields = serializers.ListField(child=serializers.CharField())
    solutions = serializers.ListField(child=serializers.CharField())
    source = serializers.CharField(allow_null=True)
    example_fix = serializers.CharField(allow_null=True, required=False)
    docs = serializers.CharField(allow_null=True, required=False)
    waived = serializers.BooleanField(required=False)
    fix = serializers.DictField(allow_null=True, required=False)
    message_source = serializers.CharField(help_text="The rule's message as vLLM's source writes it")
    message_rendered = serializers.BooleanField(help_text="False: a value of the message is unknown")
    message_note = serializers.CharField(allow_null=True, help_text="Which values are unknown, and why")


class FindingsDocumentSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    vllm_version = serializers.CharField(allow_null=True)
    ruleset = serializers.IntegerField(allow_null=True)
    findings = FindingSerializer(many=True)
    # where the intake step found the launch in a command text (form, line, image, release, environment,
    # variables, notes); null for a config or engine_args
    found = serializers.JSONField(allow_null=True, required=False)


# Hostile input: a command or config longer than this is refused with a 400 naming the field and the limit.
MAX_COMMAND_CHARS = 64 * 1024
MAX_CONFIG_CHARS = 256 * 1024


def _max_length(name: str) -> int:
    return Profile._meta.get_field(name).max_length


_SURROGATE = re.compile("[\ud800-\udfff]")


class _NoSurrogates(ProhibitSurrogateCharactersValidator):
    """DRF's refusal of a text holding a lone surrogate (JSON's ``\\ud800`` escape), with DRF's error, once a
    regular expression has found one in a text that is not ASCII (``isascii`` reads a flag of the string):
    DRF's own check walks the text in Python, 12 ms for a 256 KB config."""

    def __call__(self, value):
        text = str(value)
        if not text.isascii() and _SURROGATE.search(text):
            super().__call__(value)


class _LongText(serializers.CharField):
    """A field of long texts (a command, a config file, a description): DRF's CharField, checked as above."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators = [
            _NoSurrogates() if type(v) is ProhibitSurrogateCharactersValidator else v for v in self.validators
        ]


class _Refer(Exception):
    """A value the direct check below does not settle: DRF's own validation decides (and words any error)."""


_TEXT_VALIDATORS = (
    MaxLengthValidator,
    MinLengthValidator,
    ProhibitNullCharactersValidator,
    ProhibitSurrogateCharactersValidator,
    _NoSurrogates,
)


def _text_check(field):
    """What ``field.run_validation`` (a ``CharField``) returns for a ``str``, worked out directly for the
    texts it accepts: the blank test, the trim, the length limits, no NUL, no lone surrogate, then any other
    validator of the field (a slug's pattern) called as DRF calls it. Anything else is referred to DRF."""
    allow_blank, trim = field.allow_blank, field.trim_whitespace
    longest = field.max_length if field.max_length is not None else sys.maxsize
    shortest = field.min_length or 0
    others = [v for v in field.validators if type(v) not in _TEXT_VALIDATORS]
    if any(getattr(v, "requires_context", False) for v in others):
        return None
    for v in field.validators:  # the limits DRF's own validators hold are the field's
        if type(v) is MaxLengthValidator and v.limit_value != field.max_length:
            return None
        if type(v) is MinLengthValidator and v.limit_value != field.min_length:
            return None

    def check(value):
        if type(value) is not str:
            raise _Refer
        text = value.strip() if trim else value
        if not text:  # DRF's blank test: "" (or only blanks, when trimmed)
            if not allow_blank:
                raise _Refer
            return ""
        if not shortest <= len(text) <= longest or "\x00" in text:
            raise _Refer
        if not text.isascii() and _SURROGATE.search(text):
            raise _Refer
        for validator in others:
            try:
                validator(text)
            except (serializers.ValidationError, DjangoValidationError) as exc:
                raise _Refer from exc
        return text

    return check


def _choice_check(field):
    choices = field.choice_strings_to_values
    if field.validators:
        return None

    def check(value):
        if type(value) is not str or value not in choices:
            raise _Refer
        return choices[value]

    return check


def _dict_check(field):
    """``DictField.run_validation`` for a JSON object: its keys as text, each value through the child (any
    value as it is, for DRF's unvalidated child; a text child as above)."""
    if field.validators:
        return None
    child = field.child
    if type(child) is _UnvalidatedField and not child.validators:
        value_check = None  # DRF's unvalidated child gives any value back as it is, None included
    elif type(child) is serializers.CharField:
        value_check = _text_check(child)
        if value_check is None:
            return None
    else:
        return None
    allow_empty = field.allow_empty

    def check(value):
        if type(value) is not dict or (not allow_empty and not value):
            raise _Refer
        if value_check is None:
            return {str(k): v for k, v in value.items()}
        return {str(k): value_check(v) for k, v in value.items()}

    return check


_CHECKS = {
    serializers.CharField: _text_check,
    serializers.SlugField: _text_check,
    serializers.ChoiceField: _choice_check,
    serializers.DictField: _dict_check,
    _LongText: _text_check,
}


class DirectValidation:
    """Mixin for a request serializer of plain fields: a JSON object whose every value is of the kind its
    field takes (a text within its limits, one of a choice's values, an object for an object field) is
    validated here, field by field as DRF's loop does, without binding a copy of each of the serializer's
    fields to it (DRF's validation was a fifth of a save's and of a validation's CPU). The values it gives
    are DRF's, in DRF's order; anything else (an unknown or missing field, another type, a text too long, a
    null) goes through DRF's own validation, which words the error as before."""

    def _direct_plan(self):
        cls = type(self)
        plan = cls.__dict__.get("_direct")
        if plan is None:
            plan = cls._direct = self._direct_build()
        return plan

    def _direct_build(self):
        checks, required = {}, []
        for name, field in self._field_prototypes().items():
            if field.read_only:
                continue
            make = _CHECKS.get(type(field))
            check = make(field) if make is not None else None
            if field.source not in (None, name) or getattr(self, f"validate_{name}", None) is not None:
                check = None
            if field.required:
                required.append(name)
            if field.default is not empty:
                return None  # a default fills in a field the body does not give: DRF's loop does that
            checks[name] = check
        return checks, frozenset(self.ignored_fields), tuple(required)

    def run_validation(self, data=empty):
        plan = self._direct_plan()
        if plan is None or type(data) is not dict or self.validators:
            return super().run_validation(data)
        checks, ignored, required = plan
        given = {}
        try:
            for name in data:
                if name not in checks and name not in ignored:
                    raise _Refer
            for name in required:
                if name not in data:
                    raise _Refer
            for name, check in checks.items():
                if name in data:
                    if check is None:
                        raise _Refer
                    given[name] = check(data[name])
        except _Refer:
            return super().run_validation(data)
        try:
            value = self.validate(given)
        except (serializers.ValidationError, DjangoValidationError) as exc:
            raise serializers.ValidationError(detail=as_serializer_error(exc)) from exc
        assert value is not None, ".validate() should return the validated data"  # nosec B101  # DRF's own sanity check of validate(), not a permission
        return value


class ProfileFieldsSerializer(DirectValidation, PrebuiltFields, StrictFields, serializers.Serializer):
    """A profile as the write endpoints take it: its arguments as ``engine_args`` (+ ``env``), or one
    ``command`` (a `vllm serve` line), or one ``config`` (a vLLM --config YAML file, or JSON)."""

    kind = serializers.ChoiceField(choices=Profile.Kind.choices, required=False)
    model = serializers.CharField(max_length=_max_length("model_name"), required=False)
    model_architecture = serializers.CharField(
        max_length=_max_length("model_architecture"), required=False, allow_blank=True
    )
    model_config = serializers.JSONField(required=False, allow_null=True)
    vllm_version = serializers.CharField(
        required=False, allow_blank=True, max_length=32, help_text="Empty: follow the fleet's release"
    )
    engine_args = serializers.DictField(required=False)
    env = serializers.DictField(child=serializers.CharField(allow_blank=True), required=False)
    hardware = serializers.DictField(required=False)
    node_type = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="A node type's name (GET /api/v1/node-types/); empty: the team's default.",
    )
    command = _LongText(required=False, max_length=MAX_COMMAND_CHARS, help_text="A `vllm serve` command line")
    config = _LongText(
        required=False,
        trim_whitespace=False,
        max_length=MAX_CONFIG_CHARS,
        help_text="vLLM --config YAML or JSON",
    )

    def to_internal_value(self, data):
        self._given = data if type(data) is dict else None  # the body's keys, for _writable_fields
        return super().to_internal_value(data)

    @property
    def _writable_fields(self):
        """DRF's writable fields, less those a JSON body does not give that DRF would skip anyway (optional,
        without a default: their validation raises ``SkipField``): a body gives five or so of these fifteen,
        and each skipped field cost a raised and caught exception (a tenth of the request's validation)."""
        given = getattr(self, "_given", None)
        for field in self.fields.values():
            if field.read_only:
                continue
            if given is None or field.field_name in given or field.required or field.default is not empty:
                yield field

    def validate(self, attrs):
        given = [k for k in ("command", "config", "engine_args") if attrs.get(k)]
        if len(given) > 1:
            raise serializers.ValidationError(
                f"give only one of command, config or engine_args (got {given})"
            )
        return attrs


class ValidateRequestSerializer(ProfileFieldsSerializer):
    kind = serializers.ChoiceField(choices=Profile.Kind.choices)

    def validate(self, attrs):
        given = [k for k in ("command", "config", "engine_args") if k in attrs]
        if len(given) != 1:
            raise serializers.ValidationError(
                {
                    "non_field_errors": [
                        f"give exactly one of command, config or engine_args (got {given or 'none'})"
                    ]
                }
            )
        return attrs


class ProfileWriteSerializer(ProfileFieldsSerializer):
    # A client may PUT back what it read: the read-only fields are ignored, anything else unknown refused.
    ignored_fields = (
        "id",
        "owner",
        "effective_vllm_version",
        "source",
        "model_source",
        "state",
        "findings",
        "notes",
        "created_at",
        "updated_at",
    )
    team = serializers.SlugField(required=False)
    name = serializers.CharField(max_length=_max_length("name"), required=False)
    description = _LongText(required=False, allow_blank=True)
    revision = serializers.IntegerField(required=False, help_text="The revision you edited (conflict check).")


class ProfileSerializer(PrebuiltFields, serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    owner = serializers.CharField(source="owner.username", read_only=True)
    model = serializers.CharField(source="model_name", read_only=True)
    vllm_version = serializers.SerializerMethodField()
    effective_vllm_version = serializers.SerializerMethodField()
    state = serializers.SerializerMethodField()
    findings = serializers.SerializerMethodField()
    node_type = serializers.CharField(source="node_type.name", default="", read_only=True)
    model_source = serializers.SerializerMethodField(help_text="Where the model's config.json came from.")
    notes = serializers.ListField(
        source="parse_notes",
        child=serializers.CharField(),
        read_only=True,
        help_text="Warnings about the command or config the profile was saved from that its arguments cannot "
        "show (a flag given twice: vLLM keeps the last value, naming both positions).",
    )

    class Meta:
        model = Profile
        fields = [
            "id",
            "team",
            *(Profile.API_NAMES.get(name, name) for name in Profile.EDITABLE_FIELDS),
            "owner",
            "effective_vllm_version",
            "source",
            "model_source",
            "revision",
            "state",
            "findings",
            "notes",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def to_representation(self, instance):
        """DRF's loop over the fields (each one's ``get_attribute``, the ``None`` check, its
        ``to_representation``) written out for this serializer's fields: the same values in the same order,
        in a fraction of the time (it was a tenth of a create's CPU; a GET shows the same). A subclass with
        other fields (the list's) keeps DRF's loop; ``tests/profiles/test_create_rows.py`` compares both."""
        if type(self) is not ProfileSerializer:
            return super().to_representation(instance)
        # The class's own unbound timestamp fields (a DateTimeField's output does not depend on its binding):
        # ``self.fields`` would copy and bind all 23 fields of the serializer for these two, 4% of a save.
        fields = self._field_prototypes()
        node = instance.node_type
        return {
            "id": _int(instance.pk),
            "team": instance.team.slug if instance.team is not None else None,
            "name": _str(instance.name),
            "kind": _str(instance.kind),
            "description": _str(instance.description),
            "model": _str(instance.model_name),
            "model_architecture": _str(instance.model_architecture),
            "model_config": instance.model_config,
            "vllm_version": self.get_vllm_version(instance),
            "engine_args": instance.engine_args,
            "env": instance.env,
            "hardware": instance.hardware,
            "node_type": "" if node is None else _str(node.name),
            "owner": _str(instance.owner.username),
            "effective_vllm_version": self.get_effective_vllm_version(instance),
            "source": instance.source,
            "model_source": self.get_model_source(instance),
            "revision": _int(instance.revision),
            "state": self.get_state(instance),
            "findings": self.get_findings(instance),
            "notes": None
            if instance.parse_notes is None
            else [None if note is None else str(note) for note in instance.parse_notes],
            "created_at": _when(fields["created_at"], instance.created_at),
            "updated_at": _when(fields["updated_at"], instance.updated_at),
        }

    def get_vllm_version(self, obj) -> str:
        return obj.vllm_release.version if obj.vllm_release_id else ""

    def get_effective_vllm_version(self, obj) -> str | None:
        if obj.vllm_release_id:
            return obj.vllm_release.version
        fleet = self.context.get("fleet_release")
        return fleet.version if fleet else None

    def get_model_source(self, obj) -> dict | None:
        row = obj.model_source
        if row is None:
            return None
        return {
            "id": row.pk,
            "repo": row.repo,
            "revision": row.revision,
            "commit": row.commit,
            "source": row.source,
            "fetched_at": row.fetched_at,
            "available": row.config is not None,
            "error": row.error,
        }

    def _verdict(self, obj):
        return getattr(obj, "verdict", None)

    def get_state(self, obj) -> str:
        return obj.state

    def get_findings(self, obj) -> list[dict]:
        verdict = self._verdict(obj)
        return verdict.findings if verdict else []


def _str(value):
    return None if value is None else str(value)  # serializers.CharField, after DRF's None check


def _int(value):
    return None if value is None else int(value)  # serializers.IntegerField


def _when(field, value):
    return None if value is None else field.to_representation(value)  # the bound DateTimeField's format


class ProfileListSerializer(ProfileSerializer):
    error_count = serializers.IntegerField(read_only=True)

    class Meta(ProfileSerializer.Meta):
        fields = [f for f in ProfileSerializer.Meta.fields if f != "findings"] + ["error_count"]
        read_only_fields = fields


class VerdictChangeSerializer(serializers.ModelSerializer):
    ruleset = serializers.IntegerField(source="ruleset.number", default=None, read_only=True, allow_null=True)
    release = serializers.CharField(source="release.version", default=None, read_only=True, allow_null=True)
    actor = serializers.CharField(source="actor.username", default=None, read_only=True, allow_null=True)

    class Meta:
        model = VerdictChange
        fields = [
            "id",
            "from_state",
            "to_state",
            "cause",
            "cause_detail",
            "ruleset",
            "release",
            "profile_revision",
            "appeared",
            "disappeared",
            "actor",
            "recheck",
            "created_at",
        ]
        read_only_fields = fields


class TeamSerializer(StrictFields, serializers.ModelSerializer):
    members = serializers.SerializerMethodField()
    default_node_type = serializers.CharField(source="default_node_type.name", default="", read_only=True)

    class Meta:
        model = Team
        fields = ["id", "slug", "name", "members", "default_node_type", "created_at"]
        read_only_fields = ["id", "members", "default_node_type", "created_at"]
        extra_kwargs = {"slug": {"validators": []}}

    def get_members(self, obj) -> list[dict]:
        return [
            {"username": m.user.username, "role": m.role, "watch": m.watch}
            for m in obj.memberships.select_related("user").order_by("user__username")
        ]


class TeamNodeTypeSerializer(StrictFields, serializers.Serializer):
    node_type = serializers.CharField(allow_blank=True, help_text="A node type's name; empty: none.")


class TeamMemberSerializer(StrictFields, serializers.Serializer):
    username = serializers.SlugRelatedField(slug_field="username", queryset=get_user_model().objects.all())
    role = serializers.ChoiceField(choices=TeamMembership.Role.choices, default=TeamMembership.Role.EDITOR)
    watch = serializers.BooleanField(default=False)


class ImportSerializer(StrictFields, serializers.Serializer):
    """A `vllm serve` command or a YAML/JSON config in, a profile out."""

    team = serializers.SlugField()
    name = serializers.CharField(max_length=_max_length("name"))
    kind = serializers.ChoiceField(choices=Profile.Kind.choices)
    vllm_version = serializers.CharField(required=False, allow_blank=True)
    command = _LongText(required=False, max_length=MAX_COMMAND_CHARS)
    config = _LongText(required=False, trim_whitespace=False, max_length=MAX_CONFIG_CHARS)
    description = _LongText(required=False, allow_blank=True)

    def validate(self, attrs):
        if bool(attrs.get("command")) == bool(attrs.get("config")):
            raise serializers.ValidationError("give exactly one of command or config")
        return attrs


class ManifestImportSerializer(StrictFields, serializers.Serializer):
    """Kubernetes manifests (one or several YAML documents) or production-stack Helm values."""

    team = serializers.SlugField()
    manifest = serializers.CharField(trim_whitespace=False, help_text="the YAML text")
    filename = serializers.CharField(required=False, allow_blank=True, max_length=500)
    kind = serializers.ChoiceField(
        choices=Profile.Kind.choices,
        required=False,
        help_text="for every profile; default: the object's vllm-profiles.io/kind annotation, else serving",
    )


class ManifestImportResultSerializer(serializers.Serializer):
    profiles = ProfileSerializer(many=True)
    skipped = serializers.ListField(child=serializers.DictField(), help_text="objects with nothing to check")


class ManifestImportFailureSerializer(serializers.Serializer):
    name = serializers.CharField()
    source = serializers.DictField()
    error = serializers.CharField(allow_null=True)
    findings = FindingsDocumentSerializer(allow_null=True)


class ManifestImportErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    profiles = ManifestImportFailureSerializer(many=True)
