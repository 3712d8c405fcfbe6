"""`manage.py show_release X.Y.Z [--format json|text]`: a release's engine-argument catalog.

JSON: ``{"version": ..., "arguments": [{"flags": [...], "name", "type", "default", "choices", "deprecated",
"help", ...}]}``. Exit 2 for an unknown release (the known ones are listed) or one without a catalog.
"""

from __future__ import annotations

import json
import textwrap

from django.core.management.base import BaseCommand

from validation.selectors import release_get
from validation.services.releases import release_catalog_document

from ._release_cli import write_report


class Command(BaseCommand):
    help = "Print a vLLM release's engine-argument catalog."

    def add_arguments(self, parser):
        parser.add_argument("version")
        parser.add_argument("--format", choices=["text", "json"], default="text")

    def handle(self, *args, **options):
        write_report(
            self,
            lambda: release_catalog_document(release_get(options["version"])),
            render_text,
            options["format"],
        )


def _value(value, limit: int = 40) -> str:
    text = json.dumps(value, ensure_ascii=False) if value is not None else "-"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def render_text(document: dict) -> str:
    rows = []
    for arg in document["arguments"]:
        kind = arg["type"] + (f"[{arg['item_type']}]" if arg.get("item_type") else "")
        if arg.get("config_class"):
            kind += f" ({arg['config_class']})"
        notes = []
        if arg.get("choices"):
            notes.append("choices: " + ", ".join(str(c) for c in arg["choices"]))
        if arg.get("bounds"):
            notes.append("bounds: " + ", ".join(f"{k} {v}" for k, v in arg["bounds"].items()))
        if arg.get("deprecated"):
            notes.append("DEPRECATED" + (f": {arg['deprecation']}" if arg.get("deprecation") else ""))
        rows.append((", ".join(arg["flags"]), kind, _value(arg.get("default")), notes, arg.get("help") or ""))
    width_flags = min(48, max((len(r[0]) for r in rows), default=5))
    width_type = min(28, max((len(r[1]) for r in rows), default=4))
    lines = [
        f"vLLM {document['version']}: {len(rows)} arguments",
        f"{'FLAGS':<{width_flags}}  {'TYPE':<{width_type}}  DEFAULT",
    ]
    for flags, kind, default, notes, help_text in rows:
        lines.append(f"{flags:<{width_flags}}  {kind:<{width_type}}  {default}")
        summary = " ".join(help_text.split())
        if summary:
            lines += textwrap.wrap(summary, 100, initial_indent="    ", subsequent_indent="    ", max_lines=2)
        lines += [f"    {note}" for note in notes]
    return "\n".join(lines)
