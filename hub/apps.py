from django.apps import AppConfig


class HubConfig(AppConfig):
    name = "hub"
    verbose_name = "Models and hardware"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Validations keep stored model configs in memory while this stamp part stays the same.
        from validation.selectors import reference_stamp_part

        from .selectors import STAMP_PART, model_configs_stamp_sql

        reference_stamp_part(STAMP_PART, model_configs_stamp_sql)
