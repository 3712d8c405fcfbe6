"""Forms of the models-and-hardware pages: shapes only; the services validate."""

from django import forms


class ModelConfigUploadForm(forms.Form):
    repo = forms.CharField(
        label="Repository or directory", max_length=500, help_text="e.g. my-org/private-llm"
    )
    revision = forms.CharField(label="Revision", max_length=200, required=False, help_text="Empty: main.")
    config_text = forms.CharField(
        label="config.json (paste)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false", "class": "code"}),
    )
    config_file = forms.FileField(label="or upload config.json", required=False)
    index_file = forms.FileField(
        label="model.safetensors.index.json",
        required=False,
        help_text="Optional: the checkpoint's index; its total_size gives the weights' bytes for the memory "
        "estimate (else they are counted from config.json's shapes).",
    )

    def index_source(self) -> bytes | None:
        upload = self.cleaned_data.get("index_file")
        return upload.read() if upload else None

    def config_source(self) -> str | bytes:
        upload = self.cleaned_data.get("config_file")
        if upload:
            return upload.read()
        return self.cleaned_data.get("config_text") or ""

    def clean(self):
        data = super().clean()
        if not data.get("config_file") and not (data.get("config_text") or "").strip():
            raise forms.ValidationError("paste the config.json or choose the file")
        return data
