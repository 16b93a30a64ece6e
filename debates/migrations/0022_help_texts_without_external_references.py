"""`Debate.quality`'s help text names the debate's quality scores in the product's own words."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("debates", "0021_evaluation_runs_to_the_evaluation_app")]

    operations = [
        migrations.AlterField(
            model_name="debate",
            name="quality",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="The debate's quality scores (protocols.quality), 0..1 each.",
            ),
        ),
    ]
