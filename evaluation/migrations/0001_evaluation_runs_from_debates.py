"""Evaluation runs and their items, moved here from the debates app
(`debates.0021_evaluation_runs_to_the_evaluation_app`). Their tables, made by the debates app,
stay where they are (`Meta.db_table`): only the migration state moves. Their content types are
relabelled in place (debates -> evaluation), so the permissions on them, the roles' grants of
those (`accounts.roles`) and the admin's history keep their rows."""

import uuid

import django.db.models.deletion
from django.db import migrations, models

MODELS = ("evaluationrun", "evaluationitem")


def relabel(apps, old_label: str, new_label: str) -> None:
    """Give the moved models' content types `new_label`, keeping their rows. A row already made
    for `new_label` in between (by `migrate`'s post-migrate step, or a lookup) is folded into
    the kept one first: its permissions' grants and its admin history go over, then it goes."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    LogEntry = apps.get_model("admin", "LogEntry")
    for model in MODELS:
        kept = ContentType.objects.filter(app_label=old_label, model=model).first()
        if kept is None:
            continue
        made = ContentType.objects.filter(app_label=new_label, model=model).first()
        if made is not None:
            for perm in Permission.objects.filter(content_type=made):
                same = Permission.objects.filter(content_type=kept, codename=perm.codename).first()
                if same is None:
                    perm.content_type = kept
                    perm.save(update_fields=["content_type"])
                else:
                    same.group_set.add(*perm.group_set.all())
                    same.user_set.add(*perm.user_set.all())
            LogEntry.objects.filter(content_type=made).update(content_type=kept)
            made.delete()
        kept.app_label = new_label
        kept.save(update_fields=["app_label"])
    ContentType.objects.clear_cache()


def to_evaluation(apps, schema_editor):
    relabel(apps, "debates", "evaluation")


def to_debates(apps, schema_editor):
    relabel(apps, "evaluation", "debates")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("debates", "0021_evaluation_runs_to_the_evaluation_app"),
        ("admin", "0003_logentry_add_action_flag_choices"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="EvaluationRun",
                    fields=[
                        ("id", models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                        ("set_name", models.CharField(help_text="The question set's file name.", max_length=200)),
                        ("set_sha256", models.CharField(db_index=True, max_length=64)),
                        ("protocol", models.CharField(max_length=40)),
                        ("model", models.CharField(blank=True, help_text="Empty: as configured.", max_length=200)),
                        ("with_baselines", models.BooleanField(default=False, help_text="Report the majority vote and every single agent too.")),
                        ("status", models.CharField(choices=[("running", "Running"), ("interrupted", "Interrupted"), ("completed", "Completed")], db_index=True, default="running", max_length=12)),
                        ("wall_seconds", models.FloatField(default=0, help_text="Time spent running, all sessions.")),
                        ("report", models.JSONField(blank=True, default=dict, help_text="The last report's figures.")),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("finished_at", models.DateTimeField(blank=True, null=True)),
                    ],
                    options={
                        "db_table": "debates_evaluationrun",
                        "ordering": ["-created_at"],
                    },
                ),
                migrations.CreateModel(
                    name="EvaluationItem",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("line", models.PositiveIntegerField(help_text="Its line in the set file.")),
                        ("question", models.TextField()),
                        ("expected", models.CharField(max_length=16)),
                        ("category", models.CharField(max_length=60)),
                        ("reason", models.TextField(blank=True)),
                        ("asked_at", models.DateTimeField(blank=True, null=True)),
                        ("debate", models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="evaluation_item", to="debates.debate")),
                        ("run", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="items", to="evaluation.evaluationrun")),
                    ],
                    options={
                        "db_table": "debates_evaluationitem",
                        "ordering": ["line"],
                        "constraints": [models.UniqueConstraint(fields=("run", "line"), name="evaluation_item_unique_line")],
                    },
                ),
            ],
        ),
        migrations.RunPython(to_evaluation, to_debates),
    ]
