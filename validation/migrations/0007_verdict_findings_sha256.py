# A digest of each verdict's findings, so that re-checks and previews compare a fleet's verdicts without
# reading their findings (tens of KB of JSON each, decompressed and sent per row).

import hashlib
import json

from django.db import migrations, models


def digest(findings) -> str:
    # validation.services.verdicts.findings_digest as of this migration (a later change only costs a read).
    text = json.dumps(findings, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def fill(apps, schema_editor):
    Verdict = apps.get_model("validation", "Verdict")
    last = 0
    while True:
        rows = list(
            Verdict.objects.filter(pk__gt=last).order_by("pk").values_list("pk", "findings")[:2000]
        )
        if not rows:
            return
        last = rows[-1][0]
        by_digest: dict[str, list[int]] = {}
        for pk, findings in rows:
            by_digest.setdefault(digest(findings), []).append(pk)
        for value, pks in by_digest.items():
            Verdict.objects.filter(pk__in=pks).update(findings_sha256=value)


class Migration(migrations.Migration):

    dependencies = [
        ('validation', '0006_verdict_check'),
    ]

    operations = [
        migrations.AddField(
            model_name='verdict',
            name='findings_sha256',
            field=models.CharField(blank=True, help_text='Digest of the findings (validation.services.verdicts.findings_digest), so that fleet-wide work compares verdicts without reading their findings (tens of KB of JSON each); empty: unknown.', max_length=64),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
