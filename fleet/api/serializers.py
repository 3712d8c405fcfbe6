from __future__ import annotations

from rest_framework import serializers

from profiles.models import Recheck
from validation.api.http import StrictFields
from validation.models import RULE_FIELDS, Rule, RuleSet, VllmRelease
from vllmcheck.engine.rules import LIST_FIELDS


class ReleaseSerializer(serializers.ModelSerializer):
    has_catalog = serializers.SerializerMethodField()
    is_fleet_default = serializers.SerializerMethodField()

    class Meta:
        model = VllmRelease
        fields = ["version", "has_catalog", "catalog_sha256", "source", "imported_at", "is_fleet_default"]
        read_only_fields = fields

    def get_has_catalog(self, obj) -> bool:
        return bool(obj.catalog_sha256)

    def get_is_fleet_default(self, obj) -> bool:
        fleet = self.context.get("fleet_release")
        return bool(fleet and fleet.pk == obj.pk)


class ReleaseDiffSerializer(serializers.Serializer):
    """``GET /api/v1/releases/{a}/diff/{b}/`` (the shape of vllmcheck.engine.diff.diff_catalogs)."""

    to = serializers.CharField()
    arguments = serializers.JSONField(help_text="added, removed, renamed, changed")
    errors = serializers.JSONField(help_text="error messages added and removed, with their sites")
    value_sets = serializers.JSONField(
        help_text="value sets (quantization methods, parsers, ...) added, removed, and changed (members)"
    )
    summary = serializers.JSONField()

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = serializers.CharField()  # a keyword in Python
        return fields


class ReleaseCoverageSerializer(serializers.Serializer):
    """``GET /api/v1/releases/{version}/coverage/`` (vllmcheck.engine.coverage.rule_coverage)."""

    version = serializers.CharField()
    ruleset = serializers.IntegerField()
    summary = serializers.JSONField(help_text="counts and percentages")
    covered = serializers.JSONField(help_text="raise-sites with the ids of the rules that check them")
    uncovered = serializers.JSONField(help_text="raise-sites no rule checks")
    stale_rules = serializers.JSONField(help_text="rules claiming the release whose message it does not have")


RULE_ID_PATTERN = r"^[-a-zA-Z0-9_.]+$"


class RuleSerializer(StrictFields, serializers.ModelSerializer):
    """A rule, read and written: its fields come from the Rule model and the engine's RULE_FIELDS.

    On write only ``id`` is required: the rule set's rule with that id is changed field by field, a new id
    adds a rule (``rules.rule_save`` checks the whole rule and compiles its CEL).
    """

    id = serializers.RegexField(
        RULE_ID_PATTERN, source="rule_id", max_length=120, help_text="letters, digits, '-', '_' and '.'"
    )

    class Meta:
        model = Rule
        fields = ["id", *RULE_FIELDS]
        extra_kwargs = {
            **{name: {"required": False} for name in RULE_FIELDS},
            "when": {"required": False, "trim_whitespace": False},
            "message_template": {"required": False, "trim_whitespace": False},
        }

    def build_field(self, field_name, info, model_class, nested_depth):
        if field_name in LIST_FIELDS:
            return serializers.ListField, {"child": serializers.CharField()}
        return super().build_field(field_name, info, model_class, nested_depth)

    def rule_data(self) -> dict:
        """The validated rule as ``rules.rule_save`` takes it (``id`` and the fields given)."""
        data = dict(self.validated_data)
        return {"id": data.pop("rule_id"), **data}


class RuleSetSerializer(serializers.ModelSerializer):
    is_current = serializers.SerializerMethodField()
    rule_count = serializers.SerializerMethodField()

    class Meta:
        model = RuleSet
        fields = ["id", "number", "status", "is_current", "notes", "rule_count", "created_at", "published_at"]
        read_only_fields = fields

    def get_is_current(self, obj) -> bool:
        current = self.context.get("current_ruleset")
        return bool(current and current.pk == obj.pk)

    def get_rule_count(self, obj) -> int:
        return getattr(obj, "rule_count", None) if hasattr(obj, "rule_count") else obj.rules.count()


class RuleSetDetailSerializer(RuleSetSerializer):
    rules = RuleSerializer(many=True, read_only=True)
    derived = serializers.JSONField(read_only=True)

    class Meta(RuleSetSerializer.Meta):
        fields = RuleSetSerializer.Meta.fields + ["derived", "rules"]
        read_only_fields = fields


class FleetSerializer(StrictFields, serializers.Serializer):
    vllm_version = serializers.CharField()


class FleetChangeSerializer(serializers.Serializer):
    vllm_version = serializers.CharField()
    recheck = serializers.IntegerField(allow_null=True, help_text="The re-check started (null: none needed)")


class RecheckSerializer(serializers.ModelSerializer):
    ruleset = serializers.IntegerField(source="ruleset.number", default=None, read_only=True, allow_null=True)
    release = serializers.CharField(source="release.version", default=None, read_only=True, allow_null=True)

    class Meta:
        model = Recheck
        fields = [
            "id",
            "cause",
            "cause_detail",
            "state",
            "ruleset",
            "release",
            "total",
            "done",
            "newly_invalid",
            "newly_valid",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


class PreviewPendingSerializer(serializers.Serializer):
    """A preview of a large fleet is computed by a worker: poll the same URL until it answers 200."""

    state = serializers.ChoiceField(choices=["pending"])
    detail = serializers.CharField()
    profiles = serializers.IntegerField(help_text="How many profiles the preview evaluates.")
    poll = serializers.URLField(help_text="The URL to GET again (after Retry-After seconds).")
