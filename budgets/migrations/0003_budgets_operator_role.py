"""Operators edit spending limits and read everyone's usage (see accounts.roles)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations
from django.db.models import Q

PERMISSIONS = (
    "view_spendinglimit",
    "add_spendinglimit",
    "change_spendinglimit",
    "delete_spendinglimit",
    "view_usage",
    "view_counter",
    "view_charge",
    "change_charge",
)


def grant(apps, schema_editor):
    config = apps.get_app_config("budgets")
    config.models_module = True
    create_permissions(config, verbosity=0, apps=apps)
    config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    found = Permission.objects.filter(
        Q(content_type__app_label="budgets", codename__in=PERMISSIONS)
    )
    for group in Group.objects.filter(name="Operator"):
        group.permissions.add(*found)


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    found = Permission.objects.filter(content_type__app_label="budgets", codename__in=PERMISSIONS)
    for group in Group.objects.filter(name="Operator"):
        group.permissions.remove(*found)


class Migration(migrations.Migration):
    dependencies = [
        ("budgets", "0002_budgets_reserve_settle_functions"),
        ("accounts", "0003_roles"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
