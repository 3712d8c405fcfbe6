"""Forms of the dashboard: they shape input only; the services validate profiles."""

from __future__ import annotations

import contextlib

from django import forms

from hub.selectors import node_types
from validation.selectors import releases_ordered
from vllmcheck import modelhub

from .models import Profile, TeamMembership
from .services import ProfileInput, input_shape

SORTS = {
    "team": ("team_id", "name"),  # the (team, name) unique index: no sort over the whole table
    "name": ("name", "id"),
    "-updated": ("-updated_at", "-id"),
    "updated": ("updated_at", "id"),
    "-errors": ("-error_count", "id"),
}
SORT_LABELS = {
    "team": "team, name",
    "name": "name",
    "-updated": "recently updated",
    "updated": "least recently updated",
    "-errors": "most errors",
}
PAGE_SIZES = (25, 50, 100)


class ListOptionsForm(forms.Form):
    """How the list page orders and pages the profiles (what it shows is ``filters.ProfileFilter``)."""

    sort = forms.ChoiceField(label="Sort by", required=False, choices=list(SORT_LABELS.items()))
    size = forms.TypedChoiceField(
        label="Per page", required=False, coerce=int, choices=[(n, n) for n in PAGE_SIZES], empty_value=50
    )

    def options(self) -> tuple[tuple[str, ...], int]:
        """(the ordering, the page size); the defaults for what is missing or invalid."""
        data = self.cleaned_data if self.is_valid() else {}
        return SORTS[data.get("sort") or "team"], data.get("size") or PAGE_SIZES[1]


class ProfileForm(forms.Form):
    """Create and edit: the arguments are one `vllm serve` command line or one vLLM --config YAML file."""

    team = forms.ChoiceField(label="Team")
    name = forms.CharField(label="Name", max_length=200)
    kind = forms.ChoiceField(label="Kind", choices=Profile.Kind.choices)
    vllm_version = forms.ChoiceField(
        label="Target vLLM release",
        required=False,
        initial="",
        help_text="Follow the fleet (the default) to move with it. Pick a release to pin it: not moved "
        "with the fleet, out of the fleet's re-checks and alerts.",
    )
    description = forms.CharField(
        label="Description", required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    source = forms.CharField(
        label="Command or YAML",
        help_text="Paste a vllm serve … command line (leading VAR=value assignments become the "
        "environment) or a vLLM --config YAML file.",
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false", "class": "code"}),
    )
    node_type = forms.ChoiceField(label="Node type", required=False)
    nodes = forms.IntegerField(label="Nodes", required=False, min_value=1, help_text="How many such nodes.")
    model_config_text = forms.CharField(
        label="Model config.json",
        required=False,
        help_text="Only for a model the Hub does not serve (private): paste its config.json, or upload it "
        "below. Empty: resolved from the Hugging Face Hub when saved.",
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false", "class": "code"}),
    )
    model_config_file = forms.FileField(label="or upload config.json", required=False)
    revision = forms.IntegerField(widget=forms.HiddenInput, required=False)

    def __init__(
        self,
        *args,
        teams=(),
        fleet_version: str = "",
        editing: bool = False,
        team_node_type: str = "",
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.fields["team"].choices = [(slug, slug) for slug in teams]
        self.fields["vllm_version"].choices = [("", f"follow the fleet ({fleet_version})")] + [
            (version, f"{version} (pinned: not moved with the fleet)")
            for version in releases_ordered().values_list("version", flat=True)
        ]
        self.fields["vllm_version"].widget.attrs["aria-describedby"] = "id_vllm_version-help"
        default = f"the team's default ({team_node_type})" if team_node_type else "the team's default"
        self.fields["node_type"].choices = [("", default)] + [(n.name, str(n)) for n in node_types()]
        if editing:
            del self.fields["team"]

    def clean_model_config_text(self):
        text = (self.cleaned_data.get("model_config_text") or "").strip()
        if not text:
            return None
        try:
            return modelhub.parse_config(text, where="the model config.json")
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc

    def clean_model_config_file(self):
        upload = self.cleaned_data.get("model_config_file")
        if not upload:
            return None
        try:
            return modelhub.parse_config(upload.read(), where=upload.name)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc

    def profile_input(self, *, for_validation: bool = False, hardware: dict | None = None) -> ProfileInput:
        """The cleaned data as a ProfileInput; ``for_validation`` reads the raw data of a form being typed.
        ``hardware``: the profile's other hardware keys, kept (the form sets only ``nodes``)."""
        data = self.cleaned_data if not for_validation else {k: self.data.get(k, "") for k in self.fields}
        source = (data.get("source") or "").strip()
        values = {
            "kind": data.get("kind") or "serving",
            "name": data.get("name") or "",
            "description": data.get("description") or "",
            "vllm_version": data.get("vllm_version") or "",
            "node_type": data.get("node_type") or "",
        }
        if source:
            values[input_shape(source)] = source
        hardware = {k: v for k, v in (hardware or {}).items() if k != "nodes"}
        nodes = data.get("nodes")
        if nodes not in (None, ""):
            with contextlib.suppress(ValueError):  # a form being typed; the save reports it on the field
                hardware["nodes"] = int(nodes)
        values["hardware"] = hardware
        if not for_validation:
            values["model_config"] = data.get("model_config_file") or data.get("model_config_text")
        else:
            try:
                text = (data.get("model_config_text") or "").strip()
                values["model_config"] = modelhub.parse_config(text, where="config.json") if text else None
            except ValueError:
                values["model_config"] = None
        return ProfileInput.from_mapping(values)


class WaiverForm(forms.Form):
    rule_id = forms.ChoiceField(label="Rule")
    reason = forms.CharField(label="Reason", widget=forms.Textarea(attrs={"rows": 2}))
    expires_at = forms.DateField(label="Expires on", widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args, rule_ids=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["rule_id"].choices = [(r, r) for r in rule_ids]


class ManifestImportForm(forms.Form):
    """Kubernetes manifests or production-stack values, pasted or uploaded: one profile per vLLM container."""

    MAX_BYTES = 1_000_000

    team = forms.ChoiceField(label="Team")
    kind = forms.ChoiceField(
        label="Kind",
        required=False,
        choices=[("", "from the annotation vllm-profiles.io/kind, else serving"), *Profile.Kind.choices],
    )
    manifest = forms.CharField(
        label="Manifests or Helm values",
        required=False,
        help_text="Deployments, StatefulSets, Jobs, Pods, LeaderWorkerSets, KServe runtimes (several "
        "documents separated by ---), or the vLLM production-stack chart's values.",
        widget=forms.Textarea(attrs={"rows": 14, "spellcheck": "false", "class": "code"}),
    )
    upload = forms.FileField(label="or upload a YAML file", required=False)

    def __init__(self, *args, teams=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["team"].choices = [(slug, slug) for slug in teams]

    def clean(self):
        data = super().clean()
        upload = data.get("upload")
        if upload is not None:
            if upload.size > self.MAX_BYTES:
                raise forms.ValidationError(f"the file is larger than {self.MAX_BYTES} bytes")
            try:
                data["manifest"] = upload.read().decode("utf-8")
            except UnicodeDecodeError as exc:
                raise forms.ValidationError(f"the file is not UTF-8 text (byte {exc.start})") from exc
            data["filename"] = upload.name
        elif not (data.get("manifest") or "").strip():
            raise forms.ValidationError("paste the YAML or choose a file")
        else:
            data["filename"] = ""
        return data


class TeamForm(forms.Form):
    slug = forms.SlugField(
        max_length=100, label="Slug", help_text="Short name used in URLs and the API, e.g. ml-platform"
    )
    name = forms.CharField(max_length=200, label="Name", required=False)


class MemberAddForm(forms.Form):
    username = forms.CharField(max_length=150, label="User name")
    role = forms.ChoiceField(
        choices=TeamMembership.Role.choices, initial=TeamMembership.Role.EDITOR, label="Role"
    )
    watch = forms.BooleanField(required=False, label="Alerts for every profile of the team")


class SsoGroupsForm(forms.Form):
    """A team's SSO group mapping as text: one ``group = role`` a line."""

    groups = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "placeholder": "ml-platform = editor"}),
        required=False,
        label="SSO groups",
        help_text="One a line: a group of the identity provider's groups claim = viewer, editor or admin.",
    )

    def clean_groups(self) -> dict[str, str]:
        mapping: dict[str, str] = {}
        for number, line in enumerate(self.cleaned_data["groups"].splitlines(), start=1):
            if not line.strip():
                continue
            group, sep, role = line.rpartition("=")
            if not sep or not group.strip():
                raise forms.ValidationError(f"line {number}: write 'group = role'")
            mapping[group.strip()] = role.strip()
        return mapping

    @staticmethod
    def text(mapping: dict[str, str]) -> str:
        return "\n".join(f"{group} = {role}" for group, role in sorted(mapping.items()))


class MemberForm(forms.Form):
    role = forms.ChoiceField(choices=TeamMembership.Role.choices, label="Role", required=False)
    watch = forms.BooleanField(required=False, label="Watches the team")
