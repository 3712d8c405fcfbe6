#!/usr/bin/env python
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    from accounts.context import set_default_origin

    set_default_origin(
        "command"
    )  # changes made by commands are audited as such (a request says "page"/"api")

    execute_from_command_line(sys.argv)
