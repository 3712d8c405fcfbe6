"""Values as vLLM's command line writes them, for the release pages (``false``, not ``False``; lists and
objects as JSON), and "added"/"removed" where one side of a change has no value."""

from __future__ import annotations

import json

from django import template
from django.utils.html import format_html

register = template.Library()


@register.filter
def cli_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True)


@register.simple_tag
def change_cell(value, missing: str):
    """A side of a change: the value as the CLI writes it, or ``missing`` ("added"/"removed") in words."""
    if value is None:
        return format_html('<em class="absent">{}</em>', missing)
    return format_html("<code>{}</code>", cli_value(value))
