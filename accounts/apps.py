from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts, tokens and audit"
    # The token scheme's OpenAPI extension (accounts.schema) is registered by the schema class that uses it
    # (config.schema), not here: importing drf-spectacular at start-up made every management command (a CI
    # step's `manage.py lint`) pay for it.
