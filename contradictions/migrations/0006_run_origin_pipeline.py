from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("contradictions", "0005_arbitrationcall_deployment")]

    operations = [
        migrations.AlterField(
            model_name="contradictionrun",
            name="origin",
            field=models.CharField(
                choices=[
                    ("api", "API"),
                    ("admin", "Admin"),
                    ("command", "Management command"),
                    ("debate", "From a debate"),
                    ("page", "Web page"),
                    ("pipeline", "In-process pipeline"),
                ],
                default="api",
                max_length=10,
            ),
        ),
    ]
