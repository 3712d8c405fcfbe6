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


def _checked_field(name: str, *, default=None, doc: str | None = None) -> property:
    """A read of a verdict's :class:`VerdictCheck` row (``default`` when it has none)."""

    def read(verdict: Verdict):
        check = verdict._checked()
        return getattr(check, name) if check else default

    return property(read, doc=doc)


class Verdict(models.Model):
    """A profile's current findings. What they were last checked against is kept apart, in the narrow
    :class:`VerdictCheck` row, so that a re-check confirming an unchanged verdict never rewrites this (wide)
    row; ``ruleset``, ``release``, ``release_catalog_sha256`` and ``computed_at`` read it."""

    class State(models.TextChoices):
        VALID = "valid", "valid"
        WARNING = "warning", "warning"
        INVALID = "invalid", "invalid"
        UNVERIFIED = "unverified", "unverified"

    profile = models.OneToOneField(
        "profiles.Profile", on_delete=models.CASCADE, primary_key=True, related_name="verdict"
    )
    state = models.CharField(max_length=12, choices=State.choices, default=State.UNVERIFIED)
    error_count = models.PositiveIntegerField(default=0)
    warning_count = models.PositiveIntegerField(default=0)
    findings = models.JSONField(default=list)
    findings_sha256 = models.CharField(
        max_length=64,
        blank=True,
        help_text="Digest of the findings (validation.services.verdicts.findings_digest), so that fleet-wide "
        "work compares verdicts without reading their findings (tens of KB of JSON each); empty: unknown.",
    )
    rule_ids = models.JSONField(default=list, help_text="Ids of the rules with an active finding.")
    profile_revision = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["state"])]

    def __str__(self) -> str:
        return f"{self.profile_id}: {self.state}"

    def _checked(self) -> VerdictCheck | None:
        """The narrow row, read once with its rule set and release (one query for a page's three reads)."""
        related = Verdict.checked.related
        if not related.is_cached(self):
            found = VerdictCheck.objects.select_related("ruleset", "release").filter(pk=self.pk).first()
            related.set_cached_value(self, found)
        return related.get_cached_value(self)

    ruleset = _checked_field("ruleset", doc="The rule set this verdict was last checked against.")
    ruleset_id = _checked_field("ruleset_id")
    release = _checked_field("release", doc="The release this verdict was last checked on.")
    release_id = _checked_field("release_id")
    release_catalog_sha256 = _checked_field("release_catalog_sha256", default="")
    computed_at = _checked_field(
        "computed_at",
        doc="When this verdict was last checked (computed, or confirmed unchanged by a re-check).",
    )
    pending_recheck_id = _checked_field("pending_recheck_id")


class VerdictCheck(models.Model):
    """What a verdict was last checked against, and the re-check that still has to look at it: a narrow row
    beside the verdict's findings (tens of KB of JSON), so that marking a fleet for a re-check, and confirming
    the verdicts that do not change, write a few dozen bytes per profile instead of the whole verdict."""

    verdict = models.OneToOneField(
        Verdict, on_delete=models.CASCADE, primary_key=True, related_name="checked", db_column="profile_id"
    )
    # No index on any column a re-check changes, and half of each page left free (migration 0006): marking
    # and confirming a fleet are then HOT updates (no index entry written, old versions pruned as pages are
    # read), so the table neither bloats nor pays for index writes. Looking a re-check's marks up scans
    # this narrow table (a few MB at 100,000 profiles).
    ruleset = models.ForeignKey(
        RuleSet, on_delete=models.PROTECT, null=True, related_name="+", db_index=False
    )
    release = models.ForeignKey(
        VllmRelease, on_delete=models.PROTECT, null=True, related_name="+", db_index=False
    )
    release_catalog_sha256 = models.CharField(max_length=64, blank=True)
    computed_at = models.DateTimeField(auto_now=True)
    pending_recheck = models.ForeignKey(
        "Recheck",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="pending_verdicts",
        db_index=False,
        help_text="Set while a re-check still has to look at this profile (the dirty flag of the fan-out).",
    )

    def __str__(self) -> str:
        return f"{self.verdict_id}: rule set {self.ruleset_id}, release {self.release_id}"


class VerdictRule(models.Model):
    """One rule with an active error or warning finding on a profile: the index behind "filter by rule".

    Rows are narrow and indexed by (rule_id, profile), so the filter is an index-only semi-join even when a
    rule fires on tens of thousands of profiles; verdict_record keeps them in step with the verdict.
    """

    profile = models.ForeignKey("profiles.Profile", on_delete=models.CASCADE, related_name="rule_findings")
    rule_id = models.CharField(max_length=120)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["rule_id", "profile"], name="unique_rule_per_profile")]

    def __str__(self) -> str:
        return f"{self.rule_id} on {self.profile_id}"


class VerdictChange(models.Model):
    """A change of a profile's state, with its cause: the profile's history."""

    class Cause(models.TextChoices):
        CREATED = "created", "created"
        EDIT = "edit", "edit"
        RULESET = "ruleset", "rule set published"
        RELEASE = "release", "vLLM release changed"
        WAIVER = "waiver", "waiver granted or expired"
        SWEEP = "sweep", "periodic re-check"
        MANUAL = "manual", "re-check started by hand"

    # No index of its own: the (profile, -created_at) one below leads with it.
    profile = models.ForeignKey(
        "profiles.Profile", on_delete=models.CASCADE, related_name="state_changes", db_index=False
    )
    from_state = models.CharField(max_length=12, blank=True)
    to_state = models.CharField(max_length=12)
    cause = models.CharField(max_length=10, choices=Cause.choices)
    cause_detail = models.CharField(max_length=200, blank=True)
    ruleset = models.ForeignKey(RuleSet, on_delete=models.SET_NULL, null=True, related_name="+")
    release = models.ForeignKey(VllmRelease, on_delete=models.SET_NULL, null=True, related_name="+")
    profile_revision = models.PositiveIntegerField(default=0)
    appeared = models.JSONField(default=list)
    disappeared = models.JSONField(default=list)
    recheck = models.ForeignKey("Recheck", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["profile", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.profile_id}: {self.from_state or 'new'} -> {self.to_state} ({self.cause})"


class Waiver(models.Model):
    profile = models.ForeignKey("profiles.Profile", on_delete=models.CASCADE, related_name="waivers")
    rule_id = models.SlugField(max_length=120)
    reason = models.TextField()
    # A waiver needs a second person: an editor requests it, a team admin or staff who is not the requester
    # approves it (``granted_by``); until then it is pending and waives nothing.
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    granted_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expiry_applied = models.BooleanField(default=False, help_text="The profile was re-checked after expiry.")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"waiver of {self.rule_id} for {self.profile_id}"

    @property
    def pending(self) -> bool:
        return self.granted_by_id is None and self.revoked_at is None


class Recheck(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", "pending"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    cause = models.CharField(max_length=10, choices=VerdictChange.Cause.choices)
    cause_detail = models.CharField(max_length=200, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    ruleset = models.ForeignKey(RuleSet, on_delete=models.SET_NULL, null=True, related_name="+")
    release = models.ForeignKey(VllmRelease, on_delete=models.SET_NULL, null=True, related_name="+")
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    newly_invalid = models.PositiveIntegerField(default=0)
    newly_valid = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Last progress; the sweep revives stalls."
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"re-check {self.pk} ({self.cause} {self.cause_detail})"


class Alert(models.Model):
    """One newly-invalid profile for one recipient; sent once, in a digest."""

    class State(models.TextChoices):
        PENDING = "pending", "pending"
        SENDING = "sending", "sending"
        SENT = "sent", "sent"
        FAILED = "failed", "failed"
        SUPPRESSED = "suppressed", "suppressed (alerts off)"

    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="alerts")
    profile = models.ForeignKey("profiles.Profile", on_delete=models.CASCADE, related_name="alerts")
    change = models.ForeignKey(VerdictChange, on_delete=models.CASCADE, related_name="alerts")
    recheck = models.ForeignKey(
        Recheck, on_delete=models.SET_NULL, null=True, blank=True, related_name="alerts"
    )
    state = models.CharField(max_length=12, choices=State.choices, default=State.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["recipient", "change"], name="one_alert_per_change")]
        indexes = [models.Index(fields=["state", "recipient"])]

    def __str__(self) -> str:
        return f"alert for {self.recipient_id} on {self.profile_id} ({self.state})"


class AlertPreference(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="alert_pref")
    email_alerts = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"{self.user_id}: e-mail alerts {'on' if self.email_alerts else 'off'}"
