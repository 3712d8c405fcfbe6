"""Forms of the validation pages: they only shape input for the services (rule sets, fleet, alerts).

Lists are typed one item a line (solutions, tips) or comma-separated (fields, needs, tags), so that a rule is
editable in a plain HTML form without JavaScript.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms

from validation.models import RULE_FIELDS, Rule, RuleSet, VllmRelease
from validation.services import DomainError

KIND_CHOICES = [("serving", "serving"), ("collection", "collection")]


def _lines(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def _commas(text: str) -> list[str]:
    return [item.strip() for item in (text or "").replace("\n", ",").split(",") if item.strip()]


def add_domain_error(form: forms.Form, exc: DomainError) -> None:
    """Show a service's error on the field it names (a CEL syntax error on ``when``), else on the form."""
    field = exc.field if exc.field in form.fields else None
    form.add_error(field, exc.message)


class CommaListField(forms.CharField):
    """A list of strings typed comma-separated (or one a line)."""

    def prepare_value(self, value):
        return ", ".join(value) if isinstance(value, list | tuple) else value

    def to_python(self, value):
        return _commas(super().to_python(value))


class LineListField(forms.CharField):
    """A list of strings typed one a line."""

    widget = forms.Textarea(attrs={"rows": 3})

    def prepare_value(self, value):
        return "\n".join(value) if isinstance(value, list | tuple) else value

    def to_python(self, value):
        return _lines(super().to_python(value))


class JSONObjectField(forms.CharField):
    """A JSON object typed as text (the rule's mechanical fix)."""

    def prepare_value(self, value):
        return json.dumps(value) if isinstance(value, dict) else value or ""

    def to_python(self, value):
        text = (super().to_python(value) or "").strip()
        if not text:
            return None
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not JSON: {exc.msg} (column {exc.colno})") from exc
        if not isinstance(parsed, dict):
            raise forms.ValidationError('must be a JSON object with "set" and/or "unset"')
        return parsed


class RuleForm(forms.ModelForm):
    """One rule of a draft, its fields driven by the Rule model and the engine's RULE_FIELDS.

    On edit the id is fixed (a new id would be a new rule). The form only shapes input: ``rules.rule_save``
    checks the rule and compiles its CEL, and its errors land on the field they name.
    """

    id = forms.SlugField(max_length=120, label="Rule id")
    kinds = forms.MultipleChoiceField(
        choices=KIND_CHOICES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked: every kind",
    )
    fields = CommaListField(required=False, help_text="Arguments to highlight, comma-separated")
    needs = CommaListField(required=False, help_text="Inputs the rule needs, comma-separated")
    tags = CommaListField(required=False, help_text="Comma-separated")
    solutions = LineListField(required=False, help_text="One a line")
    tips = LineListField(required=False, widget=forms.Textarea(attrs={"rows": 2}), help_text="One a line")
    source = forms.URLField(max_length=500, required=False, assume_scheme="https")
    fix = JSONObjectField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "class": "code"}),
        help_text='JSON, e.g. {"unset": ["enforce_eager"]}',
    )

    class Meta:
        model = Rule
        fields = list(RULE_FIELDS)
        code = {"class": "code", "spellcheck": "false"}
        widgets = {
            "message": forms.Textarea(attrs={"rows": 2}),
            "message_template": forms.Textarea(attrs={"rows": 2, **code}),
            "when": forms.Textarea(attrs={"rows": 4, **code}),
            "example_fix": forms.Textarea(attrs={"rows": 3, "class": "code"}),
            "docs": forms.Textarea(attrs={"rows": 3}),
        }
        labels = {"when": "When (CEL)", "message_template": "Template with values ({{ CEL }})"}
        help_texts = {
            "when": "A CEL expression over the profile document (args, effective, env, model, hardware, "
            "kind, vllm, derived, values); true: the rule fires.",
            "versions": "PEP 440 specifier, e.g. >=0.28.0,<0.32.0; empty: all",
            "message": "What the finding says. A vllm rule quotes vLLM's own text verbatim ({self.x} "
            "placeholders and all); a policy rule states your organisation's policy in its own words.",
        }

    def __init__(self, *args, rule: Rule | None = None, **kwargs):
        super().__init__(*args, instance=rule, **kwargs)
        if rule is not None:
            self.fields["id"].initial = rule.rule_id
            self.fields["id"].disabled = True
        self.order_fields(["id", *RULE_FIELDS])
        for name in ("when", "message_template"):
            self.fields[name].strip = False
        if rule is None:
            self.fields["category"].initial = Rule.Category.POLICY  # what an organisation's own rule is

    # The editor shows these first; the others are under "more" (templates/validation/rule_form.html).
    SHORT_FIELDS = ("id", "severity", "when", "message")

    def short_fields(self) -> list:
        return [self[name] for name in self.SHORT_FIELDS]

    def more_fields(self) -> list:
        return [field for field in self if field.name not in self.SHORT_FIELDS]

    def more_has_errors(self) -> bool:
        return self.is_bound and any(field.errors for field in self.more_fields())

    def _post_clean(self):
        """Checking the rule is the service's job (``rules.rule_save``), not the model's."""

    def rule_data(self) -> dict[str, Any]:
        """The rule as rules.rule_save takes it."""
        data = self.cleaned_data
        rule = {"id": data["id"], **{name: data[name] for name in RULE_FIELDS}}
        rule["kinds"] = list(rule["kinds"])
        rule["when"] = rule["when"].strip()
        rule["message_template"] = rule["message_template"].strip()
        return rule


class RuleTrialForm(forms.Form):
    """The rule editor's "try it": the condition (and the message) as typed in the rule form, and the profile
    to try it on: a stored one, or a pasted command (checked on the fleet's release)."""

    id = forms.CharField(required=False)
    when = forms.CharField(required=False, strip=False)
    message = forms.CharField(required=False)
    message_template = forms.CharField(required=False, strip=False)
    try_profile = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, label="Stored profile")
    try_command = forms.CharField(
        required=False,
        label="or a pasted command",
        widget=forms.Textarea(attrs={"rows": 3, "class": "code", "spellcheck": "false"}),
        help_text="A vllm serve command line, a YAML config or JSON, checked on the fleet's release",
    )
    try_kind = forms.ChoiceField(required=False, choices=KIND_CHOICES, initial="serving", label="Kind")

    def __init__(self, *args, profiles=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["try_profile"].choices = [("", "— pasted command —"), *profiles]


class DraftForm(forms.Form):
    based_on = forms.ModelChoiceField(
        queryset=RuleSet.objects.filter(status=RuleSet.Status.PUBLISHED).order_by("-number"),
        required=False,
        to_field_name="number",
        empty_label="the current rule set",
        label="Copy of",
    )
    notes = forms.CharField(max_length=500, required=False)


class RecordsForm(forms.Form):
    records = forms.CharField(
        strip=False,
        widget=forms.Textarea(attrs={"rows": 8, "class": "code", "spellcheck": "false"}),
        help_text="Error records, one JSON object a line. Their Python snippets are never run.",
    )


class CompareForm(forms.Form):
    old = forms.ModelChoiceField(
        queryset=RuleSet.objects.order_by("-number"), to_field_name="number", label="From"
    )
    new = forms.ModelChoiceField(
        queryset=RuleSet.objects.order_by("-number"), to_field_name="number", label="To"
    )


class FleetForm(forms.Form):
    release = forms.ModelChoiceField(
        queryset=VllmRelease.objects.exclude(catalog_sha256="").order_by("-major", "-minor", "-patch"),
        to_field_name="version",
        label="Fleet default vLLM release",
    )


class ReleaseDiffForm(forms.Form):
    old = forms.ModelChoiceField(
        queryset=VllmRelease.objects.exclude(catalog_sha256="").order_by("-major", "-minor", "-patch"),
        to_field_name="version",
        label="From",
    )
    new = forms.ModelChoiceField(
        queryset=VllmRelease.objects.exclude(catalog_sha256="").order_by("-major", "-minor", "-patch"),
        to_field_name="version",
        label="To",
    )


class AlertPreferenceForm(forms.Form):
    email_alerts = forms.BooleanField(required=False, label="E-mail me when a profile becomes invalid")


class RuleFilterForm(forms.Form):
    """The rule-set page's search and filters (GET); every field optional."""

    q = forms.CharField(required=False, label="Search", max_length=200)
    category = forms.ChoiceField(
        required=False, label="Category", choices=[("", "any category"), *Rule.Category.choices]
    )
    severity = forms.ChoiceField(
        required=False, label="Severity", choices=[("", "any severity"), *Rule.Severity.choices]
    )
    release = forms.ChoiceField(required=False, label="vLLM release")
    tag = forms.ChoiceField(required=False, label="Tag")

    def __init__(self, *args, tags=(), releases=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["release"].choices = [("", "any release"), *((v, v) for v in releases)]
        self.fields["tag"].choices = [("", "any tag"), *((t, t) for t in tags)]

    def filters(self) -> dict[str, str]:
        if not self.is_valid():
            return {}
        return {k: v for k, v in self.cleaned_data.items() if v}
