from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts, tokens and audit"

    def ready(self):
        from . import schema  # noqa: F401  (registers the token scheme with drf-spectacular)
