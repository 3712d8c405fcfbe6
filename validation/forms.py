"""Forms of the validation pages: they only shape input for the services (rule sets, fleet, alerts).

Lists are typed one item a line (solutions, tips) or comma-separated (fields, needs, tags), so that a rule is
editable in a plain HTML form without JavaScript.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms

from .models import Rule, RuleSet, VllmRelease
from .services import DomainError

KIND_CHOICES = [("serving", "serving"), ("collection", "collection")]


def _lines(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def _commas(text: str) -> list[str]:
    return [item.strip() for item in (text or "").replace("\n", ",").split(",") if item.strip()]


def add_domain_error(form: forms.Form, exc: DomainError) -> None:
    """Show a service's error on the field it names (a CEL syntax error on ``when``), else on the form."""
    field = exc.field if exc.field in form.fields else None
    form.add_error(field, exc.message)


class RuleForm(forms.Form):
    """One rule of a draft. On edit the id is fixed (a new id would be a new rule)."""

    id = forms.SlugField(max_length=120, label="Rule id")
    title = forms.CharField(max_length=200, required=False)
    category = forms.ChoiceField(choices=Rule.Category.choices)
    severity = forms.ChoiceField(choices=Rule.Severity.choices)
    message = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), help_text="vLLM's own text, verbatim")
    when = forms.CharField(
        label="When (CEL)",
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 4, "class": "code", "spellcheck": "false"}),
        help_text="A CEL expression over the profile document (args, env, model, hardware, kind, vllm).",
    )
    versions = forms.CharField(
        max_length=200, required=False, help_text="PEP 440 specifier, e.g. >=0.28.0,<0.32.0; empty: all"
    )
    kinds = forms.MultipleChoiceField(
        choices=KIND_CHOICES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked: every kind",
    )
    fields = forms.CharField(required=False, help_text="Arguments to highlight, comma-separated")
    needs = forms.CharField(required=False, help_text="Inputs the rule needs, comma-separated")
    solutions = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 3}), help_text="One a line"
    )
    tips = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), help_text="One a line")
    tags = forms.CharField(required=False, help_text="Comma-separated")
    example_fix = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3, "class": "code"}))
    docs = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))
    source = forms.URLField(max_length=500, required=False, assume_scheme="https")
    error_class = forms.CharField(max_length=100, required=False)
    fix = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "class": "code"}),
        help_text='JSON, e.g. {"unset": ["enforce_eager"]}',
    )
    enabled = forms.BooleanField(required=False, initial=True)

    def __init__(self, *args, rule: Rule | None = None, **kwargs):
        if rule is not None and "initial" not in kwargs:
            kwargs["initial"] = self.initial_from(rule)
        super().__init__(*args, **kwargs)
        if rule is not None:
            self.fields["id"].disabled = True

    @staticmethod
    def initial_from(rule: Rule) -> dict[str, Any]:
        return {
            "id": rule.rule_id,
            "title": rule.title,
            "category": rule.category,
            "severity": rule.severity,
            "message": rule.message,
            "when": rule.when,
            "versions": rule.versions,
            "kinds": rule.kinds,
            "fields": ", ".join(rule.fields),
            "needs": ", ".join(rule.needs),
            "solutions": "\n".join(rule.solutions),
            "tips": "\n".join(rule.tips),
            "tags": ", ".join(rule.tags),
            "example_fix": rule.example_fix,
            "docs": rule.docs,
            "source": rule.source,
            "error_class": rule.error_class,
            "fix": json.dumps(rule.fix) if rule.fix else "",
            "enabled": rule.enabled,
        }

    def clean_fix(self):
        text = self.cleaned_data.get("fix", "").strip()
        if not text:
            return None
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not JSON: {exc.msg} (column {exc.colno})") from exc
        if not isinstance(value, dict):
            raise forms.ValidationError('must be a JSON object with "set" and/or "unset"')
        return value

    def rule_data(self) -> dict[str, Any]:
        """The rule as rules.rule_save takes it."""
        data = self.cleaned_data
        return {
            "id": data["id"],
            "title": data["title"],
            "category": data["category"],
            "severity": data["severity"],
            "message": data["message"],
            "when": data["when"].strip(),
            "versions": data["versions"].strip(),
            "kinds": list(data["kinds"]),
            "fields": _commas(data["fields"]),
            "needs": _commas(data["needs"]),
            "solutions": _lines(data["solutions"]),
            "tips": _lines(data["tips"]),
            "tags": _commas(data["tags"]),
            "example_fix": data["example_fix"],
            "docs": data["docs"],
            "source": data["source"],
            "error_class": data["error_class"],
            "fix": data["fix"],
            "enabled": data["enabled"],
        }


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
