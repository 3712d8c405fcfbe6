from __future__ import annotations

from django.conf import settings
from django.db import models

from accounts.permissions import Role
from validation.models import RuleSet, VllmRelease


class Team(models.Model):
    slug = models.SlugField(max_length=100, unique=True)
    name = models.CharField(max_length=200)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="TeamMembership", related_name="teams", blank=True
    )
    default_node_type = models.ForeignKey(
        "hub.NodeType",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The node type of the team's profiles that do not choose one.",
    )
    sso_groups = models.JSONField(
        default=dict,
        blank=True,
        help_text="Single sign-on: the identity provider's groups that make a user a member, and with which "
        'role ({"group": "viewer" | "editor" | "admin"}); applied at each SSO sign-in (accounts.services).',
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class TeamMembership(models.Model):
    Role = Role  # viewer, editor, admin: what each may do is in accounts.permissions

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.EDITOR)
    watch = models.BooleanField(default=False, help_text="Receive alerts for every profile of the team.")
    via_sso = models.BooleanField(
        default=False,
        help_text="Given by the team's SSO group mapping: changed or removed at the member's next SSO "
        "sign-in. A membership set by hand is never changed by SSO.",
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "user"], name="unique_team_member")]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"


class Profile(models.Model):
    class Kind(models.TextChoices):
        SERVING = "serving", "serving"
        COLLECTION = "collection", "collection"

    # No index of its own: the (team, name) ones below lead with it (one fewer index written per save).
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="profiles", db_index=False)
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_profiles"
    )
    description = models.TextField(blank=True)
    model_name = models.CharField(max_length=300)
    model_architecture = models.CharField(max_length=200, blank=True)
    model_config = models.JSONField(null=True, blank=True, help_text="Fields of the model's config.json.")
    vllm_release = models.ForeignKey(
        "validation.VllmRelease",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="pinned_profiles",
        help_text="Empty: follow the fleet's default release.",
        db_index=False,  # profile_release_cover (release, team, name) leads with it
    )
    engine_args = models.JSONField(default=dict, blank=True)
    env = models.JSONField(default=dict, blank=True)
    hardware = models.JSONField(default=dict, blank=True)
    # Where the profile was imported from, when it came from a manifest: {"type": "kubernetes" | "helm",
    # "file", "document", "object", "container", "line", "image", "notes": [what could not be mapped]}.
    source = models.JSONField(default=dict, blank=True)
    # What the command or config the profile was last saved from said that its arguments cannot (a flag given
    # twice: vLLM keeps the last; an ignored comment): warnings shown with its findings, never checked again.
    parse_notes = models.JSONField(default=list, blank=True, editable=False)
    node_type = models.ForeignKey(
        "hub.NodeType",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="profiles",
        help_text="Empty: the team's default node type.",
    )
    # The stored config.json of the model and of the speculative draft model, resolved when the profile is
    # saved (hub.services); re-checks read them and never go to the network.
    model_source = models.ForeignKey(
        "hub.ModelConfig", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", editable=False
    )
    draft_source = models.ForeignKey(
        "hub.ModelConfig", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", editable=False
    )
    revision = models.PositiveIntegerField(default=1)
    # The current verdict's summary, copied here by the one service that writes verdicts
    # (profiles.services.verdicts.verdict_record) so that lists, filters and counts over 100,000 profiles
    # need no join with the verdicts table (whose findings make its rows wide).
    state = models.CharField(max_length=12, default="unverified", editable=False)
    error_count = models.PositiveIntegerField(default=0, editable=False)
    warning_count = models.PositiveIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # What a user edits (besides the team): revisions record these, a copy carries them, and the API shows
    # them (``model_name`` as ``model``, ``vllm_release`` as ``vllm_version``).
    EDITABLE_FIELDS = (
        "name",
        "kind",
        "description",
        "model_name",
        "model_architecture",
        "model_config",
        "vllm_release",
        "engine_args",
        "env",
        "hardware",
        "node_type",
    )
    API_NAMES = {"model_name": "model", "vllm_release": "vllm_version"}

    class Meta:
        ordering = ["team__slug", "name"]
        constraints = [models.UniqueConstraint(fields=["team", "name"], name="unique_profile_name_per_team")]
        # Covering indexes (id included) for the list's orderings, so a deep page is an index-only scan.
        # The state in the (team, name) one: a team member's state counts and state filter read the index.
        # "Most errors" sorts by error_count descending and then id ascending: the index is in that order.
        indexes = [
            models.Index(fields=["kind"]),
            models.Index(fields=["team", "name"], include=["id", "state"], name="profile_team_name_state"),
            models.Index(fields=["name", "id"], name="profile_name_cover"),
            models.Index(fields=["updated_at", "id"], name="profile_updated_cover"),
            models.Index(fields=["-error_count", "id"], name="profile_most_errors_cover"),
            models.Index(fields=["state", "team", "name"], include=["id"], name="profile_state_cover"),
            models.Index(
                fields=["vllm_release", "team", "name"], include=["id"], name="profile_release_cover"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.team.slug}/{self.name}"


class ProfileRevision(models.Model):
    """A snapshot of a profile after each saved edit: the history of edits and their diffs."""

    # No index of its own: unique_profile_revision (profile, revision) leads with it.
    profile = models.ForeignKey(Profile, on_delete=models.CASCADE, related_name="revisions", db_index=False)
    revision = models.PositiveIntegerField()
    data = models.JSONField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["profile", "-revision"]
        constraints = [
            models.UniqueConstraint(fields=["profile", "revision"], name="unique_profile_revision")
        ]

    def __str__(self) -> str:
        return f"{self.profile_id} r{self.revision}"


# A profile's verdict, history, waivers, re-checks and alerts: the profile domain's records. They were
# validation's until validation became a layer below profiles; their tables kept their names.


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
        help_text="Digest of the findings (profiles.services.verdicts.findings_digest), so that fleet-wide "
        "work compares verdicts without reading their findings (tens of KB of JSON each); empty: unknown.",
    )
    rule_ids = models.JSONField(default=list, help_text="Ids of the rules with an active finding.")
    profile_revision = models.PositiveIntegerField(default=0)

    class Meta:
        db_table = "validation_verdict"  # validation's table, kept (no copy)
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

    class Meta:
        db_table = "validation_verdictcheck"  # validation's table, kept (no copy)

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
        db_table = "validation_verdictrule"  # validation's table, kept (no copy)
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
        db_table = "validation_verdictchange"  # validation's table, kept (no copy)
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
        db_table = "validation_waiver"  # validation's table, kept (no copy)
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
        db_table = "validation_recheck"  # validation's table, kept (no copy)
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
        db_table = "validation_alert"  # validation's table, kept (no copy)
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["recipient", "change"], name="one_alert_per_change")]
        indexes = [models.Index(fields=["state", "recipient"])]

    def __str__(self) -> str:
        return f"alert for {self.recipient_id} on {self.profile_id} ({self.state})"


class AlertPreference(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="alert_pref")
    email_alerts = models.BooleanField(default=True)

    class Meta:
        db_table = "validation_alertpreference"  # validation's table, kept (no copy)

    def __str__(self) -> str:
        return f"{self.user_id}: e-mail alerts {'on' if self.email_alerts else 'off'}"
