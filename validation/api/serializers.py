from __future__ import annotations

from rest_framework import serializers

from validation.models import RULE_FIELDS, Recheck, Rule, RuleSet, VllmRelease


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
    """``GET /api/v1/releases/{a}/diff/{b}/`` (the shape of validation.engine.diff.diff_catalogs)."""

    to = serializers.CharField()
    arguments = serializers.JSONField(help_text="added, removed, renamed, changed")
    errors = serializers.JSONField(help_text="error messages added and removed, with their sites")
    summary = serializers.JSONField()

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = serializers.CharField()  # a keyword in Python
        return fields


class ReleaseCoverageSerializer(serializers.Serializer):
    """``GET /api/v1/releases/{version}/coverage/`` (validation.engine.coverage.rule_coverage)."""

    version = serializers.CharField()
    ruleset = serializers.IntegerField()
    summary = serializers.JSONField(help_text="counts and percentages")
    covered = serializers.JSONField(help_text="raise-sites with the ids of the rules that check them")
    uncovered = serializers.JSONField(help_text="raise-sites no rule checks")
    stale_rules = serializers.JSONField(help_text="rules claiming the release whose message it does not have")


class RuleSerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="rule_id")

    class Meta:
        model = Rule
        fields = ["id", *RULE_FIELDS]


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


class FleetSerializer(serializers.Serializer):
    vllm_version = serializers.CharField()


class RecheckSerializer(serializers.ModelSerializer):
    ruleset = serializers.IntegerField(source="ruleset.number", default=None, read_only=True)
    release = serializers.CharField(source="release.version", default=None, read_only=True)

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
