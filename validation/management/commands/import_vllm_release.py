"""`manage.py import_vllm_release X.Y.Z [--wheel PATH | --source DIR] [--write-catalog]`.

Extracts the release's engine-argument catalog (statically, never importing vLLM) from a wheel, a source tree,
or the wheel pip downloads into a temporary directory, and stores it on the release. An unchanged catalog
writes nothing; a changed one re-checks the profiles on that release once the import commits.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand
from packaging.version import InvalidVersion, Version

from validation.errors import DomainError
from validation.services.releases import release_import
from vllmcheck.catalog_builder import CATALOG_DIR, extract, fetch_wheel, write_catalog

from ._release_cli import fail


class Command(BaseCommand):
    help = "Extract a vLLM release's argument catalog from its wheel (or source) and store it."

    def add_arguments(self, parser):
        parser.add_argument("version", help="the vLLM release, e.g. 0.33.0")
        where = parser.add_mutually_exclusive_group()
        where.add_argument("--wheel", help="a vllm-X.Y.Z-*.whl file (default: pip download it)")
        where.add_argument("--source", help="a directory holding the release's vllm/ package")
        parser.add_argument(
            "--write-catalog",
            nargs="?",
            const=str(CATALOG_DIR),
            metavar="DIR",
            help=f"also write the catalog as X.Y.Z.json to DIR (default: {CATALOG_DIR})",
        )

    def handle(self, *args, **options):
        version = options["version"].strip()
        try:
            Version(version)
        except InvalidVersion:
            raise fail(f"not a vLLM version: {version!r}") from None
        catalog = self._extract(version, options)
        try:
            result = release_import(version=version, catalog=catalog)
        except DomainError as exc:
            raise fail(exc.message) from None
        classes, errors = len(catalog.get("config_classes") or {}), len(catalog.get("errors") or [])
        counts = f"{len(catalog['arguments'])} arguments, {classes} config classes, {errors} error messages"
        if not result.changed:
            self.stdout.write(
                f"vLLM {version}: catalog unchanged ({counts}; sha256 {result.digest[:12]}); nothing written"
            )
        else:
            what = (
                "new release"
                if result.created
                else "catalog updated"
                if result.previous_digest
                else "catalog added"
            )
            recheck = "; re-check of its profiles started" if result.recheck_scheduled else ""
            self.stdout.write(f"vLLM {version}: {what} ({counts}; sha256 {result.digest[:12]}){recheck}")
        if options["write_catalog"]:
            path = write_catalog(catalog, options["write_catalog"])
            self.stdout.write(f"wrote {path}")

    def _extract(self, version: str, options) -> dict:
        try:
            if options["wheel"]:
                wheel = Path(options["wheel"])
                if not wheel.is_file():
                    raise fail(f"no such wheel: {wheel}")
                return extract(wheel=wheel, version=version)
            if options["source"]:
                source = Path(options["source"])
                if not source.is_dir():
                    raise fail(f"no such directory: {source}")
                return extract(source=source, version=version)
            with tempfile.TemporaryDirectory(prefix="vllm-wheel-") as tmp:
                self.stdout.write(f"downloading the vllm {version} wheel with pip ...")
                return extract(wheel=fetch_wheel(version, tmp), version=version)
        except RuntimeError as exc:  # pip download failed
            raise fail(str(exc)) from None
        except (OSError, ValueError) as exc:
            raise fail(f"cannot extract vLLM {version}: {exc}") from None
