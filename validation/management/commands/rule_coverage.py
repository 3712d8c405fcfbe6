"""`manage.py rule_coverage X.Y.Z [--format json|text]`: which raise-sites of a release's config code the
current rule set checks, which it does not, and which of its rules claim the release with a message the
release no longer has."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from validation.services.releases import release_coverage
from vllmcheck.engine.coverage import render_coverage_text

from ._release_cli import write_report


class Command(BaseCommand):
    help = "Rule coverage of a vLLM release's raise-sites by the current published rule set."

    def add_arguments(self, parser):
        parser.add_argument("version")
        parser.add_argument("--format", choices=["text", "json"], default="text")
        parser.add_argument("--limit", type=int, default=None, help="text: list at most N sites per section")

    def handle(self, *args, **options):
        write_report(
            self,
            lambda: release_coverage(version=options["version"]),
            lambda report: render_coverage_text(report, limit=options["limit"]),
            options["format"],
        )
