from django.apps import AppConfig


class HubConfig(AppConfig):
    name = "hub"
    verbose_name = "Models and hardware"
    default_auto_field = "django.db.models.BigAutoField"
