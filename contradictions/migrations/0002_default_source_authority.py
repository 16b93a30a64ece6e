"""The seed's example ranking (GCC-STAT > World Bank > others), editable in the admin."""

from django.db import migrations

DEFAULTS = [
    ("GCC-STAT", ["GCC Statistical Center", "GCCSTAT", "GCC Stat"],
     "Regional statistical authority for the Gulf states (seed 002)."),
    ("World Bank", ["World Bank Group", "WDI", "World Development Indicators"],
     "Global estimates, often modelled or annual (seed 002)."),
]


def add_defaults(apps, schema_editor):
    SourceAuthority = apps.get_model("contradictions", "SourceAuthority")
    for rank, (name, aliases, note) in enumerate(DEFAULTS, start=1):
        if not SourceAuthority.objects.filter(name__iexact=name).exists():
            SourceAuthority.objects.create(name=name, aliases=aliases, rank=rank, note=note)


def remove_defaults(apps, schema_editor):
    SourceAuthority = apps.get_model("contradictions", "SourceAuthority")
    SourceAuthority.objects.filter(name__in=[name for name, _, _ in DEFAULTS]).delete()


class Migration(migrations.Migration):
    dependencies = [("contradictions", "0001_runs_reports_findings_contradictions_resolutions")]

    operations = [migrations.RunPython(add_defaults, remove_defaults)]
