"""`manage.py release_diff A B [--format json|text]`: what changed between two releases' catalogs."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from validation.services.releases import release_diff
from vllmcheck.engine.diff import render_diff_text

from ._release_cli import write_report


class Command(BaseCommand):
    help = "Arguments added, removed, renamed and changed, and error messages added and removed, from A to B."

    def add_arguments(self, parser):
        parser.add_argument("old", metavar="A", help="the earlier release")
        parser.add_argument("new", metavar="B", help="the later release")
        parser.add_argument("--format", choices=["text", "json"], default="text")

    def handle(self, *args, **options):
        write_report(
            self,
            lambda: release_diff(old=options["old"], new=options["new"]),
            render_diff_text,
            options["format"],
        )
