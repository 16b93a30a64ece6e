from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("contradictions", "0004_arbitrationcall_raw_reply_and_reasoning")]

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
