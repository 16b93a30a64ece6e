"""Operators start evaluation runs from the evaluation pages (`evaluation.add_evaluationrun`,
accounts.roles); Reviewers only read them."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

PERMISSION = "add_evaluationrun"
ROLE = "Operator"


def _permission(apps):
    Permission = apps.get_model("auth", "Permission")
    return Permission.objects.filter(content_type__app_label="evaluation", codename=PERMISSION)


def grant(apps, schema_editor):
    config = apps.get_app_config("evaluation")
    before = getattr(config, "models_module", None)  # the migration state's stand-in: none
    config.models_module = before or True
    try:
        create_permissions(config, verbosity=0, apps=apps)
    finally:
        config.models_module = before
    Group = apps.get_model("auth", "Group")
    for group in Group.objects.filter(name=ROLE):
        group.permissions.add(*_permission(apps))


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    for group in Group.objects.filter(name=ROLE):
        group.permissions.remove(*_permission(apps))


class Migration(migrations.Migration):
    dependencies = [
        ("evaluation", "0001_evaluation_runs_from_debates"),
        ("accounts", "0003_roles"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
