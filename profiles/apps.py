from django.apps import AppConfig


class ProfilesConfig(AppConfig):
    name = "profiles"
    verbose_name = "Profiles"

    def ready(self):
        # validation and hub, below this app, ask for re-checks through their port (no upward import).
        from validation.recheck_port import recheck_register

        from .services.rechecks import recheck_for_port

        recheck_register(recheck_for_port)
