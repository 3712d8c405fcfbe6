from django.db import migrations

NODE_TYPES = [
    ("8xH100-80GB NVLink", "H100-80GB", 8, 80, "NVLink", "8 H100 SXM 80 GB, NVLink/NVSwitch"),
    ("8xA100-80GB", "A100-80GB", 8, 80, "NVLink", "8 A100 SXM 80 GB, NVLink/NVSwitch"),
    ("4xL40S-48GB PCIe", "L40S-48GB", 4, 48, "PCIe", "4 L40S 48 GB on PCIe (no NVLink)"),
    ("1xL4-24GB", "L4-24GB", 1, 24, "PCIe", "1 L4 24 GB"),
]


def seed(apps, schema_editor):
    NodeType = apps.get_model("hub", "NodeType")
    for name, gpu, count, memory, interconnect, description in NODE_TYPES:
        NodeType.objects.get_or_create(
            name=name,
            defaults={
                "gpu": gpu,
                "gpus_per_node": count,
                "gpu_memory_gb": memory,
                "interconnect": interconnect,
                "description": description,
            },
        )


def unseed(apps, schema_editor):
    apps.get_model("hub", "NodeType").objects.filter(name__in=[n[0] for n in NODE_TYPES]).delete()


class Migration(migrations.Migration):
    dependencies = [("hub", "0001_initial")]
    operations = [migrations.RunPython(seed, unseed)]
