from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from accounts import selectors, services
from accounts.errors import DomainError


class Command(BaseCommand):
    help = (
        "Print a new API key for USERNAME (use it as `Authorization: Token KEY`). The key is shown once; "
        "only its sha256 is stored. A live token of that name is revoked: its old key stops working."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="cli", help="what uses the token (default: cli)")
        parser.add_argument("--read-only", action="store_true", help="reads only (GET) and dry runs")
        parser.add_argument("--expires-days", type=int, default=None, help="expire after N days")

    def handle(self, *args, username, name, read_only, expires_days, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}")
        if expires_days is not None and expires_days <= 0:
            raise CommandError("--expires-days must be a positive number of days")
        for token in selectors.tokens_of(user).filter(name=name.strip(), revoked_at__isnull=True):
            services.token_revoke(actor=None, token=token)
        expires_at = timezone.now() + timedelta(days=expires_days) if expires_days else None
        try:
            _, key = services.token_create(
                actor=None, user=user, name=name, read_only=read_only, expires_at=expires_at
            )
        except DomainError as exc:
            raise CommandError(f"{exc.field or 'token'}: {exc.message}") from exc
        self.stdout.write(key)
