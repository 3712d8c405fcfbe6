"""Create the first administrator (and a first team) on a fresh database, and say how to log in."""

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from profiles.models import Team
from profiles.services import team_create

PASSWORD_FILE = settings.VAR_DIR / "admin-password"


class Command(BaseCommand):
    help = "Create user 'admin' with a random password (kept in var/admin-password) if no superuser exists."

    def add_arguments(self, parser):
        parser.add_argument("--show", action="store_true", help="only print how to log in")

    def handle(self, *args, show=False, **options):
        User = get_user_model()
        if not show and not User.objects.filter(is_superuser=True).exists():
            password = secrets.token_urlsafe(12)
            admin = User.objects.create_superuser("admin", "admin@localhost", password)
            PASSWORD_FILE.write_text(password + "\n")
            PASSWORD_FILE.chmod(0o600)
            if not Team.objects.exists():
                team_create(actor=admin, slug="platform", name="Platform")
            self.stdout.write("Created user 'admin' and team 'platform'.")
        if PASSWORD_FILE.exists():
            self.stdout.write(f"Log in as: admin / {PASSWORD_FILE.read_text().strip()}")
        else:
            self.stdout.write("Log in with your superuser (python manage.py createsuperuser makes one).")
