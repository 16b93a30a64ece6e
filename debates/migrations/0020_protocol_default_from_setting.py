"""The protocol field's default is the setting DEBATE_DEFAULT_PROTOCOL
(`debates.default_protocol`), no longer a name written here. No SQL: Django fills the default
in itself."""

import debates.default_protocol
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('debates', '0019_onetrip_refuse_from_sql_file'),
    ]

    operations = [
        migrations.AlterField(
            model_name='debate',
            name='protocol',
            field=models.CharField(default=debates.default_protocol.default_protocol, max_length=40),
        ),
    ]
