# What a verdict was checked against, and its re-check mark, move off the wide verdict row (findings inline,
# about 1.4 KB) into a narrow row beside it: a re-check then marks and confirms a fleet's verdicts without
# rewriting them.

import django.db.models.deletion
from django.db import migrations, models

COPY = """
INSERT INTO validation_verdictcheck
    (profile_id, ruleset_id, release_id, release_catalog_sha256, computed_at, pending_recheck_id)
SELECT profile_id, ruleset_id, release_id, release_catalog_sha256, computed_at, pending_recheck_id
FROM validation_verdict
"""

COPY_BACK = """
UPDATE validation_verdict AS v
SET ruleset_id = c.ruleset_id, release_id = c.release_id, release_catalog_sha256 = c.release_catalog_sha256,
    computed_at = c.computed_at, pending_recheck_id = c.pending_recheck_id
FROM validation_verdictcheck AS c
WHERE c.profile_id = v.profile_id
"""


def keep_room_for_updates(apps, schema_editor):
    # Half of each page free: a re-check's updates of these rows stay on their page (HOT, see the model).
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE validation_verdictcheck SET (fillfactor = 50)")


class Migration(migrations.Migration):

    dependencies = [
        ('validation', '0005_waiver_second_person'),
    ]

    operations = [
        migrations.CreateModel(
            name='VerdictCheck',
            fields=[
                ('verdict', models.OneToOneField(db_column='profile_id', on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='checked', serialize=False, to='validation.verdict')),
                ('release_catalog_sha256', models.CharField(blank=True, max_length=64)),
                ('computed_at', models.DateTimeField(auto_now=True)),
                ('release', models.ForeignKey(db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='validation.vllmrelease')),
                ('ruleset', models.ForeignKey(db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='validation.ruleset')),
            ],
        ),
        migrations.RunPython(keep_room_for_updates, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='verdict',
            name='pending_recheck',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='validation.recheck'),
        ),
        migrations.AddField(
            model_name='verdictcheck',
            name='pending_recheck',
            field=models.ForeignKey(blank=True, db_index=False, help_text='Set while a re-check still has to look at this profile (the dirty flag of the fan-out).', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='pending_verdicts', to='validation.recheck'),
        ),
        migrations.RunSQL(COPY, COPY_BACK),
        migrations.RemoveIndex(
            model_name='verdict',
            name='validation__ruleset_bf44bd_idx',
        ),
        migrations.RemoveField(
            model_name='verdict',
            name='computed_at',
        ),
        migrations.RemoveField(
            model_name='verdict',
            name='pending_recheck',
        ),
        migrations.RemoveField(
            model_name='verdict',
            name='release',
        ),
        migrations.RemoveField(
            model_name='verdict',
            name='release_catalog_sha256',
        ),
        migrations.RemoveField(
            model_name='verdict',
            name='ruleset',
        ),
    ]
