from django.db import migrations, models

# GPU memory as vLLM sees it (torch.cuda.mem_get_info's total, GiB) for the seeded node types' GPUs.
KNOWN = {"H100-80GB": 79.19, "A100-80GB": 79.15, "L40S-48GB": 44.39, "L4-24GB": 22.03}


def fill(apps, schema_editor):
    NodeType = apps.get_model("hub", "NodeType")
    for gpu, gib in KNOWN.items():
        NodeType.objects.filter(gpu=gpu, gpu_memory_gib__isnull=True).update(gpu_memory_gib=gib)


class Migration(migrations.Migration):
    dependencies = [("hub", "0005_forget_configs_read_from_server_directories")]
    operations = [
        migrations.AddField(
            model_name="nodetype",
            name="gpu_memory_gib",
            field=models.FloatField(
                blank=True,
                help_text="Memory per GPU as vLLM sees it (torch's total), in GiB: an 80 GB H100 is 79.19. "
                "Empty: the known value for the GPU named, else gpu_memory_gb.",
                null=True,
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
