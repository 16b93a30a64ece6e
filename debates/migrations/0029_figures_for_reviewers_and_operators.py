"""Reviewers and Operators read figures across users and replay the rules (accounts.roles)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

PERMISSIONS = ("view_figures", "replay_rules")
ROLES = ("Reviewer", "Operator")


def grant(apps, schema_editor):
    config = apps.get_app_config("debates")
    config.models_module = True
    create_permissions(config, verbosity=0, apps=apps)
    config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    found = Permission.objects.filter(content_type__app_label="debates", codename__in=PERMISSIONS)
    for group in Group.objects.filter(name__in=ROLES):
        group.permissions.add(*found)


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    found = Permission.objects.filter(content_type__app_label="debates", codename__in=PERMISSIONS)
    for group in Group.objects.filter(name__in=ROLES):
        group.permissions.remove(*found)


class Migration(migrations.Migration):
    dependencies = [
        ("debates", "0028_figures_permissions"),
        ("accounts", "0003_roles"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
