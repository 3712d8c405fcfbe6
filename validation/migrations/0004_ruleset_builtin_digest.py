from django.db import migrations, models

# Rule sets loaded from the shipped pack before their digest was recorded: the next migrate replaces the pack
# they hold with the one shipped now (validation.services.rulesets.ruleset_load_builtin).
LEGACY_DIGEST = "legacy"


def mark_loaded_packs(apps, schema_editor):
    RuleSet = apps.get_model("validation", "RuleSet")
    RuleSet.objects.filter(notes="built-in rule pack", created_by__isnull=True).update(builtin_digest=LEGACY_DIGEST)


class Migration(migrations.Migration):
    dependencies = [
        ("validation", "0003_rule_message_template"),
    ]

    operations = [
        migrations.AddField(
            model_name="ruleset",
            name="builtin_digest",
            field=models.CharField(
                blank=True,
                help_text=(
                    "sha256 of the shipped built-in pack this rule set was loaded from; empty for rule sets people "
                    "made."
                ),
                max_length=64,
            ),
        ),
        migrations.RunPython(mark_loaded_packs, migrations.RunPython.noop),
    ]
