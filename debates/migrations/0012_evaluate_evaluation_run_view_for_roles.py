"""Reviewers and Operators may read evaluation runs and their items in the admin
(`accounts.roles`)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

ROLES = ("Reviewer", "Operator")
CODENAMES = ("view_evaluationrun", "view_evaluationitem")


def grant(apps, schema_editor):
    # Permissions are normally created after all migrations ran; the groups need them now.
    app_config = apps.get_app_config("debates")
    app_config.models_module = True
    create_permissions(app_config, verbosity=0, apps=apps)
    app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    views = Permission.objects.filter(content_type__app_label="debates", codename__in=CODENAMES)
    for group in Group.objects.filter(name__in=ROLES):
        group.permissions.add(*views)


def revoke(apps, schema_editor):
    Permission = apps.get_model("auth", "Permission")
    Group = apps.get_model("auth", "Group")
    views = Permission.objects.filter(content_type__app_label="debates", codename__in=CODENAMES)
    for group in Group.objects.filter(name__in=ROLES):
        group.permissions.remove(*views)


class Migration(migrations.Migration):
    dependencies = [
        ("debates", "0011_evaluate_quality_and_runs"),
        ("accounts", "0003_roles"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
