"""Shapes only: the services validate, parse and save."""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from rest_framework import serializers
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from profiles.models import Profile, Team, TeamMembership
from validation.api.http import StrictFields

from ..models import VerdictChange


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
    message_note = serializers.CharField(
        allow_null=True, help_text="How to supply the facts that are missing"
    )
    missing = serializers.ListField(
        child=serializers.DictField(child=serializers.CharField()),
        required=False,
        help_text='The facts the finding could not be decided without: {"fact", "words", "supply"}',
    )
    message_detail = serializers.CharField(
        allow_null=True, required=False, help_text="vLLM's whole text when the message is its first sentence"
    )


class FindingsDocumentSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    vllm_version = serializers.CharField(allow_null=True)
    ruleset = serializers.IntegerField(allow_null=True)
    findings = FindingSerializer(many=True)


class ValidateAnswerSerializer(FindingsDocumentSerializer):
    """The dry run's answer: the findings document, and where the intake step found the launch."""

    found = serializers.JSONField(
        allow_null=True,
        required=False,
        help_text="Where the launch was found in a command text (form, line, image, release, environment, "
        "variables, notes); null for a config or engine_args",
    )


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


class ProfileFieldsSerializer(StrictFields, serializers.Serializer):
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


class ProfileSerializer(serializers.ModelSerializer):
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
    sso_groups = serializers.DictField(
        child=serializers.CharField(),
        read_only=True,
        help_text="Single sign-on: the identity provider's groups that make a user a member, with their role "
        "(PUT .../sso-groups/ sets it).",
    )

    class Meta:
        model = Team
        fields = ["id", "slug", "name", "members", "default_node_type", "sso_groups", "created_at"]
        read_only_fields = ["id", "members", "default_node_type", "sso_groups", "created_at"]
        extra_kwargs = {"slug": {"validators": []}}

    def get_members(self, obj) -> list[dict]:
        return [
            {"username": m.user.username, "role": m.role, "watch": m.watch, "via_sso": m.via_sso}
            for m in obj.memberships.select_related("user").order_by("user__username")
        ]


class FixRequestSerializer(StrictFields, serializers.Serializer):
    rule = serializers.CharField(help_text="The rule id of the finding to fix.")
    solution = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        help_text="Which of the finding's listed solutions to apply (its index, from 0; GET .../fix/?rule= "
        "lists them). Omitted: the first that can be applied.",
    )
    revision = serializers.IntegerField(
        required=False, allow_null=True, help_text="The revision fixed: refused (409) if it changed since."
    )


class FixOptionSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    text = serializers.CharField()
    fix = serializers.JSONField(allow_null=True, help_text="The change it makes; null: done by hand.")


class FixPreviewSerializer(serializers.Serializer):
    rule = serializers.CharField(source="rule_id")
    solution = serializers.IntegerField(help_text="The solution previewed.")
    solutions = FixOptionSerializer(many=True, source="options")
    engine_args = serializers.JSONField(help_text="The engine arguments after it.")
    diff = serializers.JSONField()
    state = serializers.CharField(source="verdict.state", help_text="The profile's state after it.")


class TeamNodeTypeSerializer(StrictFields, serializers.Serializer):
    node_type = serializers.CharField(allow_blank=True, help_text="A node type's name; empty: none.")


class TeamSsoGroupsSerializer(StrictFields, serializers.Serializer):
    groups = serializers.DictField(
        child=serializers.ChoiceField(choices=TeamMembership.Role.choices),
        help_text="{group: role}: each group of the identity provider's groups claim that makes a user a "
        "member of the team, and the role it gives; {} for none.",
    )


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
