"""The protocol field's default is the setting DEBATE_DEFAULT_PROTOCOL
(`debates.default_protocol`), no longer a name written here. No SQL: Django fills the default
in itself."""

import debates.default_protocol
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('schedules', '0002_friction_help_texts'),
    ]

    operations = [
        migrations.AlterField(
            model_name='debateschedule',
            name='protocol',
            field=models.CharField(default=debates.default_protocol.default_protocol, max_length=40),
        ),
    ]
