from django.db import migrations, models


def agreements_agree_with_the_conclusion(apps, schema_editor):
    """Challenges stored as agreements (stance "agree") agreed with the conclusion."""
    Challenge = apps.get_model("debates", "Challenge")
    Challenge.objects.filter(stance="agree").update(agrees_with_conclusion=True)


class Migration(migrations.Migration):
    dependencies = [("debates", "0007_llmcall_deployment_and_routed_participants")]

    operations = [
        migrations.AddField(
            model_name="challenge",
            name="agrees_with_conclusion",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(agreements_agree_with_the_conclusion, migrations.RunPython.noop),
    ]
