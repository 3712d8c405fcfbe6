"""Configs read from a local directory of the server before MODEL_LOCAL_DIRS existed (issue 30): any user
could name any directory (another team's files, the server's own), and its config.json stayed on the Models
page. They are forgotten; a directory under MODEL_LOCAL_DIRS is read again at the next save or refresh."""

from django.db import migrations

FORGOTTEN = (
    "this config was read from a directory of the server before local model directories were restricted "
    "to MODEL_LOCAL_DIRS; refresh it, or upload the config on the Models page"
)


def forget(apps, schema_editor):
    ModelConfig = apps.get_model("hub", "ModelConfig")
    ModelConfig.objects.filter(source="local").update(
        config=None,
        source="",
        commit="",
        files=None,
        tokens=None,
        encoder_config=None,
        tokenizer_max_length=None,
        error=FORGOTTEN,
    )


class Migration(migrations.Migration):
    dependencies = [("hub", "0004_checkpoint_encoder_config_tokenizer_max_length")]

    operations = [migrations.RunPython(forget, migrations.RunPython.noop)]
