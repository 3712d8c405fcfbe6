"""DRF authtoken keys (stored in clear) become hashed API tokens named "cli": their clients keep working with
the same key, and the clear-text keys are deleted."""

import hashlib

from django.db import migrations


def hash_old_keys(apps, schema_editor):
    try:
        Token = apps.get_model("authtoken", "Token")
    except LookupError:
        return
    ApiToken = apps.get_model("accounts", "ApiToken")
    for old in Token.objects.all():
        ApiToken.objects.create(
            user_id=old.user_id,
            name="cli",
            prefix=old.key[:8],
            digest=hashlib.sha256(old.key.encode()).hexdigest(),
        )
    Token.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("authtoken", "0004_alter_tokenproxy_options"),
    ]

    operations = [migrations.RunPython(hash_old_keys, migrations.RunPython.noop)]
