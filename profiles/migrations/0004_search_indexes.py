"""PostgreSQL-only indexes for the dashboard at 100,000 profiles: trigram indexes for the text search
(Django's icontains is UPPER(col) LIKE UPPER('%q%'))."""

from django.db import migrations

INDEXES = [
    ("profiles_profile_name_trgm", "profiles_profile", "gin (UPPER(name) gin_trgm_ops)"),
    ("profiles_profile_model_trgm", "profiles_profile", "gin (UPPER(model_name) gin_trgm_ops)"),
]


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for name, table, definition in INDEXES:
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} USING {definition}")


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, _, _ in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [
        ("profiles", "0003_profile_summary_and_indexes"),
        ("validation", "0002_profile_summary_and_indexes"),
    ]

    operations = [migrations.RunPython(create, drop)]
