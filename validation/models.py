from __future__ import annotations

from django.conf import settings
from django.db import models

from vllmcheck.engine.rules import RULE_FIELDS as ENGINE_RULE_FIELDS


class VllmRelease(models.Model):
    """A vLLM release the product knows, with its engine-argument catalog (None until imported)."""

    version = models.CharField(max_length=32, unique=True)
    major = models.PositiveIntegerField(default=0)
    minor = models.PositiveIntegerField(default=0)
    patch = models.PositiveIntegerField(default=0)
    catalog_sha256 = models.CharField(
        max_length=64, blank=True, help_text="Empty until a catalog is imported"
    )
    argument_count = models.PositiveIntegerField(default=0, help_text="Arguments in the catalog")
    source = models.JSONField(default=dict, blank=True, help_text="wheel, sha256, vLLM commit")
    imported_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-major", "-minor", "-patch"]

    def __str__(self) -> str:
        return self.version


class ReleaseCatalog(models.Model):
    """A release's engine-argument catalog (about 0.5 MB of JSON), kept apart from the release row so that
    the many queries that join a release never load it; the engine caches it per process by digest."""

    release = models.OneToOneField(
        VllmRelease, on_delete=models.CASCADE, primary_key=True, related_name="catalog"
    )
    data = models.JSONField()

    def __str__(self) -> str:
        return f"catalog of {self.release_id}"


class FleetSettings(models.Model):
    """The organisation's default vLLM release (one row)."""

    default_release = models.ForeignKey(VllmRelease, on_delete=models.PROTECT, related_name="+")
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "fleet settings"

    def __str__(self) -> str:
        return f"fleet default {self.default_release}"


class RuleSet(models.Model):
    """A version of the rules. Published versions are immutable; the newest published one is current."""

    class Status(models.TextChoices):
        DRAFT = "draft", "draft"
        PUBLISHED = "published", "published"

    number = models.PositiveIntegerField(unique=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    notes = models.TextField(blank=True)
    derived = models.JSONField(default=list, blank=True, help_text="Named derived values (CEL) per release.")
    defaults = models.JSONField(default=list, blank=True, help_text="Fallback argument defaults per release.")
    based_on = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    builtin_digest = models.CharField(
        max_length=64,
        blank=True,
        help_text=(
            "sha256 of the shipped built-in pack this rule set was loaded from; "
            "empty for rule sets people made."
        ),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    published_at = models.DateTimeField(null=True, blank=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-number"]

    def __str__(self) -> str:
        return f"rule set {self.number} ({self.status})"


class Rule(models.Model):
    class Category(models.TextChoices):
        VLLM = "vllm", "vllm"
        POLICY = "policy", "policy"
        CATALOG = "catalog", "catalog"

    class Severity(models.TextChoices):
        ERROR = "error", "error"
        WARNING = "warning", "warning"
        INFO = "info", "info"

    ruleset = models.ForeignKey(RuleSet, on_delete=models.CASCADE, related_name="rules")
    position = models.PositiveIntegerField(default=0)
    rule_id = models.SlugField(max_length=120)
    title = models.CharField(max_length=200, blank=True)
    category = models.CharField(max_length=10, choices=Category.choices)
    severity = models.CharField(max_length=10, choices=Severity.choices)
    message = models.TextField(help_text="vLLM's own text, verbatim, {self.x} placeholders and all")
    message_template = models.TextField(
        blank=True,
        help_text="The message with its values: each {{ CEL }} or {{ CEL | !r:.2f }} is filled from the "
        "profile as vLLM's f-string prints it. Empty: the message as it is.",
    )
    when = models.TextField(blank=True, help_text="CEL; empty until a person writes it (imported records).")
    versions = models.CharField(max_length=200, blank=True, help_text="PEP 440 specifier; empty = all")
    kinds = models.JSONField(default=list, blank=True)
    fields = models.JSONField(default=list, blank=True)
    needs = models.JSONField(default=list, blank=True)
    solutions = models.JSONField(default=list, blank=True)
    tips = models.JSONField(default=list, blank=True)
    tags = models.JSONField(default=list, blank=True)
    example_fix = models.TextField(blank=True)
    docs = models.TextField(blank=True)
    source = models.URLField(max_length=500, blank=True)
    error_class = models.CharField(max_length=100, blank=True)
    fix = models.JSONField(null=True, blank=True)
    enabled = models.BooleanField(default=True)

    class Meta:
        ordering = ["ruleset", "position", "id"]
        constraints = [models.UniqueConstraint(fields=["ruleset", "rule_id"], name="unique_rule_per_ruleset")]

    def __str__(self) -> str:
        return self.rule_id


# A rule's fields as a rule pack writes them (besides its ``id``), defined once by the engine (the pack
# format): the Rule model's columns, the pack export, the rule serializer and form, the comparison use it.
RULE_FIELDS = ENGINE_RULE_FIELDS
