#!/usr/bin/env python
import os
import sys

# What a database without the product's tables says (SQLite, PostgreSQL): a command run before `migrate`.
NO_TABLES = ("no such table", "does not exist")


def _no_tables(exc: BaseException) -> bool:
    from django.db import OperationalError, ProgrammingError

    return isinstance(exc, OperationalError | ProgrammingError) and any(t in str(exc) for t in NO_TABLES)


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    from accounts.context import set_default_origin

    set_default_origin(
        "command"
    )  # changes made by commands are audited as such (a request says "page"/"api")

    try:
        execute_from_command_line(sys.argv)
    except Exception as exc:
        if not _no_tables(exc):
            raise
        command = sys.argv[1] if len(sys.argv) > 1 else "this command"
        sys.exit(
            f"manage.py {command}: the database has no tables yet; run `python manage.py migrate` first "
            "(to lint files without a database, use `vllm-profiles-lint`)"
        )
