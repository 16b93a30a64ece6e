"""The staff roles as groups: Reviewer, Agent editor, Operator (see `accounts.roles`)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations
from django.db.models import Q

# A frozen copy of accounts.roles.ROLES as it was when this migration was written.
ROLES = {
    "Reviewer": (
        "reviews.view_reviewitem",
        "reviews.change_reviewitem",
        "reviews.view_reviewevent",
        "debates.view_debate",
        "contradictions.view_contradictionrun",
    ),
    "Agent editor": (
        "agents.view_agent",
        "agents.add_agent",
        "agents.change_agent",
        "agents.view_agentversion",
    ),
    "Operator": (
        "reviews.view_reviewitem",
        "reviews.change_reviewitem",
        "reviews.view_reviewevent",
        "reviews.override_safety_veto",
        "agents.view_agent",
        "agents.change_agent",
        "agents.change_agent_veto",
        "agents.view_agentversion",
        "debates.view_debate",
        "contradictions.view_contradictionrun",
        "schedules.view_debateschedule",
        "schedules.add_debateschedule",
        "schedules.change_debateschedule",
        "schedules.delete_debateschedule",
        "schedules.view_schedulerun",
        "audit.view_auditentry",
    ),
}


def create_roles(apps, schema_editor):
    # Permissions are normally created after all migrations ran; the groups need them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, verbosity=0, apps=apps)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, perms in ROLES.items():
        wanted = Q(pk__in=[])
        for perm in perms:
            app_label, codename = perm.split(".")
            wanted |= Q(content_type__app_label=app_label, codename=codename)
        group, _ = Group.objects.get_or_create(name=name)
        found = list(Permission.objects.filter(wanted))
        if len(found) != len(perms):
            raise RuntimeError(f"Role {name}: some of its permissions do not exist.")
        group.permissions.set(found)


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=ROLES).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0002_token_permissions"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("agents", "0005_agent_veto_permission"),
        ("reviews", "0004_safety_veto_override_permission"),
        ("debates", "0007_llmcall_deployment_and_routed_participants"),
        ("contradictions", "0005_arbitrationcall_deployment"),
        ("schedules", "0001_debate_schedules_and_runs"),
        ("audit", "0001_audit_entries"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
