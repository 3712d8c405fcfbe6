"""Sources made before named credentials: a source whose `credentials_env` is not on the staff allow-list
(GIT_CREDENTIALS_ENV_ALLOWED), or whose URL is not a remote https/ssh repository, is disabled with a reason;
the next sync e-mails its owner once (sources.services.git_source_notify)."""

from django.conf import settings
from django.db import migrations


def disable_unsafe(apps, schema_editor):
    from sources import remotes
    from sources.services import ENV_REFUSED

    GitSource = apps.get_model("sources", "GitSource")
    allowed = set(settings.GIT_CREDENTIALS_ENV_ALLOWED)
    for source in GitSource.objects.all():
        reason = ""
        try:
            remote = remotes.parse(source.url)
            if source.credentials_env and remote.scheme != "https":
                reason = "a token is only sent over https://"
        except remotes.RemoteError as exc:
            reason = str(exc)
        if source.credentials_env and source.credentials_env not in allowed:
            reason = ENV_REFUSED
        if reason:
            source.disabled_reason = reason
            source.owner_notified_at = None
            source.save(update_fields=["disabled_reason", "owner_notified_at"])


class Migration(migrations.Migration):
    dependencies = [("sources", "0002_git_credentials")]

    operations = [migrations.RunPython(disable_unsafe, migrations.RunPython.noop)]
