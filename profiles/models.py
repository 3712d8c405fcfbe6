from django.conf import settings
from django.db import models

from accounts.permissions import Role


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
    # (validation.services.verdicts.verdict_record) so that lists, filters and counts over 100,000 profiles
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
