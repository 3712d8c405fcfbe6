"""`manage.py release_diff A B [--format json|text]`: what changed between two releases' catalogs."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand

from validation.engine.diff import render_diff_text
from validation.errors import DomainError
from validation.services.releases import release_diff

from ._release_cli import fail


class Command(BaseCommand):
    help = "Arguments added, removed, renamed and changed, and error messages added and removed, from A to B."

    def add_arguments(self, parser):
        parser.add_argument("old", metavar="A", help="the earlier release")
        parser.add_argument("new", metavar="B", help="the later release")
        parser.add_argument("--format", choices=["text", "json"], default="text")

    def handle(self, *args, **options):
        try:
            diff = release_diff(old=options["old"], new=options["new"])
        except DomainError as exc:
            raise fail(exc.message) from None
        if options["format"] == "json":
            self.stdout.write(json.dumps(diff, indent=2, ensure_ascii=False))
        else:
            self.stdout.write(render_diff_text(diff))
