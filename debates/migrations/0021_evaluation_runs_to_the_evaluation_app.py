"""Evaluation runs and their items now belong to the evaluation app
(`evaluation.0001_evaluation_runs_from_debates`): they leave the debates app's migration state
only; their tables (`debates_evaluationrun`, `debates_evaluationitem`) and rows stay."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("debates", "0020_protocol_default_from_setting")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="EvaluationItem"),
                migrations.DeleteModel(name="EvaluationRun"),
            ],
        ),
    ]
