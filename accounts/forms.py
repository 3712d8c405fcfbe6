from django import forms

from .api import AuditFilter
from .models import AuditEvent


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="What uses it, e.g. ci-deploy.")
    read_only = forms.BooleanField(required=False, label="Read-only", help_text="Reads and dry runs only.")
    expires_at = forms.DateField(
        required=False,
        label="Expires on",
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="Empty: never.",
    )


class AuditFilterForm(forms.Form):
    actor = forms.CharField(required=False)
    team = forms.CharField(required=False)
    action = forms.CharField(required=False, help_text="e.g. profile. or waiver.approve")
    object_type = forms.ChoiceField(required=False, choices=[("", "any object"), *AuditFilter.OBJECT_TYPES])
    via = forms.ChoiceField(required=False, choices=[("", "any channel"), *AuditEvent.Via.choices])
    since = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
