import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('debates', '0004_callback_url_webhook_deliveries_idempotency_keys'),
        ('schedules', '0001_debate_schedules_and_runs'),
    ]

    operations = [
        migrations.AddField(
            model_name='debate',
            name='recoveries',
            field=models.PositiveSmallIntegerField(default=0, help_text='Times the sweeper re-enqueued it after its worker or message was lost.'),
        ),
        migrations.AddField(
            model_name='debate',
            name='schedule',
            field=models.ForeignKey(blank=True, help_text='The schedule whose firing created it.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='debates', to='schedules.debateschedule'),
        ),
        migrations.AddIndex(
            model_name='debate',
            index=models.Index(condition=models.Q(('status__in', ['queued', 'running'])), fields=['status', 'updated_at'], name='debate_unfinished_by_update'),
        ),
    ]
