from django.apps import AppConfig


class ProfilesConfig(AppConfig):
    name = "profiles"
    verbose_name = "Profiles"

    def ready(self):
        # validation and hub ask for re-checks, accounts applies SSO groups, through their ports: apps below
        # this one never import it.
        from accounts.sso_port import sso_groups_register
        from validation.recheck_port import recheck_register

        from .services.memberships import sso_sign_in
        from .services.rechecks import recheck_for_port

        recheck_register(recheck_for_port)
        sso_groups_register(sso_sign_in)
