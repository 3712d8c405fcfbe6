from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _load_builtin_data(sender, using, **kwargs):
    # `migrate` alone must leave a usable product: the releases, their catalogs and the built-in pack.
    from . import services

    services.builtin_data_load()


class ValidationConfig(AppConfig):
    name = "validation"
    verbose_name = "Validation"

    def ready(self):
        post_migrate.connect(_load_builtin_data, sender=self, dispatch_uid="validation.load_builtin_data")
