"""The notes of the two default sources in the product's own words. Only a note still as
`0002_default_source_authority` wrote it is changed (an analyst's edit stays); reversible."""

from django.db import migrations

NOTES = [
    (
        "GCC-STAT",
        "Regional statistical authority for the Gulf states (seed 002).",
        "Regional statistical authority for the Gulf states.",
    ),
    (
        "World Bank",
        "Global estimates, often modelled or annual (seed 002).",
        "Global estimates, often modelled or annual.",
    ),
]


def _reworded(apps, schema_editor, *, forward: bool):
    SourceAuthority = apps.get_model("contradictions", "SourceAuthority")
    for name, former, current in NOTES:
        old, new = (former, current) if forward else (current, former)
        SourceAuthority.objects.filter(name=name, note=old).update(note=new)


def reword(apps, schema_editor):
    _reworded(apps, schema_editor, forward=True)


def restore(apps, schema_editor):
    _reworded(apps, schema_editor, forward=False)


class Migration(migrations.Migration):
    dependencies = [("contradictions", "0008_friction_help_texts")]

    operations = [migrations.RunPython(reword, restore)]
