"""`manage.py recheck [--wait]`: start a re-check of every profile by hand."""

import time

from django.core.management.base import BaseCommand

from ...models import Recheck
from ...services.rechecks import recheck_run_inline, recheck_start


class Command(BaseCommand):
    help = "Re-check every stored profile against the current rule set and its release."

    def add_arguments(self, parser):
        parser.add_argument("--wait", action="store_true", help="wait until the workers have finished")
        parser.add_argument("--inline", action="store_true", help="run it in this process, without workers")
        parser.add_argument(
            "--timeout", type=float, default=3600, help="seconds to wait at most (with --wait)"
        )

    def handle(self, *args, wait=False, inline=False, timeout=3600, **options):
        recheck = recheck_start(cause="manual")
        self.stdout.write(f"re-check {recheck.pk}: {recheck.total} profiles")
        if inline:
            recheck_run_inline(recheck.pk)
        if wait or inline:
            deadline = time.monotonic() + timeout
            while True:
                recheck.refresh_from_db()
                if recheck.state == Recheck.State.DONE or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
        recheck.refresh_from_db()
        self.stdout.write(
            f"re-check {recheck.pk}: {recheck.state}, {recheck.done}/{recheck.total} checked, "
            f"{recheck.newly_invalid} newly invalid, {recheck.newly_valid} newly valid"
        )
        if (wait or inline) and recheck.state != Recheck.State.DONE:
            raise SystemExit(1)
