"""Command line: ``python -m vllmcheck.catalog_builder --wheel PATH [--out DIR]``."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from . import CATALOG_DIR, extract, fetch_wheel, write_catalog


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vllmcheck.catalog_builder", description=__doc__)
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--wheel", help="a vllm-X.Y.Z-*.whl file")
    what.add_argument("--source", help="a directory holding the vllm/ package")
    what.add_argument("--fetch", metavar="VERSION", help="pip download this release's wheel, then extract it")
    parser.add_argument("--version", help="the release (default: read from vllm/_version.py)")
    parser.add_argument("--out", default=str(CATALOG_DIR), help=f"output directory (default: {CATALOG_DIR})")
    parser.add_argument("--wheel-dir", help="where --fetch keeps the wheel (default: a temporary directory)")
    args = parser.parse_args(argv)
    if args.fetch:
        if args.wheel_dir:
            catalog = extract(
                wheel=fetch_wheel(args.fetch, args.wheel_dir), version=args.version or args.fetch
            )
        else:
            with tempfile.TemporaryDirectory() as tmp:
                catalog = extract(wheel=fetch_wheel(args.fetch, tmp), version=args.version or args.fetch)
    elif args.wheel:
        catalog = extract(wheel=Path(args.wheel), version=args.version)
    else:
        catalog = extract(source=Path(args.source), version=args.version)
    path = write_catalog(catalog, args.out)
    print(
        f"{path}: {len(catalog['arguments'])} arguments, {len(catalog['config_classes'])} config classes, "
        f"{len(catalog['errors'])} error messages"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
