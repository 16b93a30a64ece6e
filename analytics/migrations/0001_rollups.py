"""The analytics roll-ups (`analytics.models`), the functions that count a debate into them
(`analytics/sql/`), and the triggers on debates_debate that call them. Debates finished before
are counted by `manage.py rollup_analytics` (until then, the page says so); on a database with
none, the roll-ups are complete from the start."""

from django.conf import settings
from django.db import migrations, models

from audit.sql_functions import create_or_replace

FINISHED = "('completed', 'failed')"
# What the roll-ups read of a debate (see analytics_debate_parts), in OLD and NEW.
READ = (
    "{r}.status, {r}.decision, {r}.decision_override, {r}.review_status, {r}.created_at, "
    "{r}.protocol, {r}.schedule_id, {r}.attempts, {r}.recoveries, {r}.majority_decision, "
    "{r}.baselines, {r}.agreement, ({r}.quality -> 'decision_confidence')"
)


TRIGGERS = f"""
CREATE TRIGGER analytics_count_inserted AFTER INSERT ON debates_debate
    FOR EACH ROW WHEN (NEW.status IN {FINISHED}) EXECUTE FUNCTION analytics_count_debate();
CREATE TRIGGER analytics_count_changed AFTER UPDATE ON debates_debate
    FOR EACH ROW WHEN (
        (OLD.status IN {FINISHED} OR NEW.status IN {FINISHED})
        AND ({READ.format(r="OLD")}) IS DISTINCT FROM ({READ.format(r="NEW")})
    ) EXECUTE FUNCTION analytics_count_debate();
CREATE TRIGGER analytics_count_deleted AFTER DELETE ON debates_debate
    FOR EACH ROW WHEN (OLD.status IN {FINISHED}) EXECUTE FUNCTION analytics_count_debate();
"""
NO_TRIGGERS = """
DROP TRIGGER IF EXISTS analytics_count_inserted ON debates_debate;
DROP TRIGGER IF EXISTS analytics_count_changed ON debates_debate;
DROP TRIGGER IF EXISTS analytics_count_deleted ON debates_debate;
"""


def state(apps, schema_editor):
    """The time zone the roll-ups count days in; built already when no debate has finished."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO analytics_rollupstate (time_zone, built_at) SELECT %s, CASE WHEN NOT "
            f"EXISTS (SELECT 1 FROM debates_debate WHERE status IN {FINISHED}) THEN now() END",
            [settings.TIME_ZONE],
        )


class Migration(migrations.Migration):

    initial = True

    dependencies = [("debates", "0030_upheld_verdict_outcomes")]

    operations = [
        migrations.CreateModel(
            name='DebateCount',
            fields=[
                ('debate_id', models.UUIDField(primary_key=True, serialize=False)),
                ('parts', models.JSONField()),
            ],
        ),
        migrations.CreateModel(
            name='RollupState',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('time_zone', models.CharField(max_length=64)),
                ('built_at', models.DateTimeField(blank=True, null=True)),
            ],
        ),
        migrations.CreateModel(
            name='DailyAgents',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('day', models.DateField()),
                ('protocol', models.CharField(max_length=40)),
                ('schedule_id', models.BigIntegerField(default=0, help_text='0: not from a schedule.')),
                ('model', models.CharField(blank=True, help_text='"": every debate; else those it answered in.', max_length=200)),
                ('agent', models.CharField(max_length=100)),
                ('changed', models.IntegerField(default=0)),
                ('kept', models.IntegerField(default=0)),
            ],
            options={
                'verbose_name_plural': 'daily agents',
                'constraints': [models.UniqueConstraint(fields=('day', 'protocol', 'schedule_id', 'model', 'agent'), name='daily_agents_key')],
            },
        ),
        migrations.CreateModel(
            name='DailyDebates',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('day', models.DateField()),
                ('protocol', models.CharField(max_length=40)),
                ('schedule_id', models.BigIntegerField(default=0, help_text='0: not from a schedule.')),
                ('model', models.CharField(blank=True, help_text='"": every debate; else those it answered in.', max_length=200)),
                ('finished', models.IntegerField(default=0)),
                ('completed', models.IntegerField(default=0)),
                ('failed', models.IntegerField(default=0)),
                ('retried', models.IntegerField(default=0, help_text='Started more than once.')),
                ('sent', models.IntegerField(default=0, help_text='Completed and sent to review.')),
                ('resolved', models.IntegerField(default=0, help_text='Completed and reviewed (labelled).')),
                ('overridden', models.IntegerField(default=0, help_text='A reviewer changed the decision.')),
                ('cost_usd', models.DecimalField(decimal_places=6, default=0, max_digits=18)),
                ('tokens_in', models.BigIntegerField(default=0)),
                ('tokens_out', models.BigIntegerField(default=0)),
                ('calls', models.IntegerField(default=0)),
                ('calls_retried', models.IntegerField(default=0)),
                ('calls_failed', models.IntegerField(default=0)),
                ('calls_cost_usd', models.DecimalField(decimal_places=6, default=0, max_digits=18)),
                ('calls_tokens_in', models.BigIntegerField(default=0)),
                ('calls_tokens_out', models.BigIntegerField(default=0)),
                ('debate_agreed', models.IntegerField(default=0)),
                ('majority_agreed', models.IntegerField(default=0)),
                ('single_answers', models.IntegerField(default=0)),
                ('single_agreed', models.IntegerField(default=0)),
            ],
            options={
                'verbose_name_plural': 'daily debates',
                'constraints': [models.UniqueConstraint(fields=('day', 'protocol', 'schedule_id', 'model'), name='daily_debates_key')],
            },
        ),
        migrations.CreateModel(
            name='DailyOutcomes',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('day', models.DateField()),
                ('protocol', models.CharField(max_length=40)),
                ('schedule_id', models.BigIntegerField(default=0, help_text='0: not from a schedule.')),
                ('model', models.CharField(blank=True, help_text='"": every debate; else those it answered in.', max_length=200)),
                ('decision', models.CharField(help_text='The effective decision.', max_length=16)),
                ('agreement_band', models.SmallIntegerField(help_text='0-9: 0-10 % ... 90-100 % of the agents on the decision; -1: not recorded.')),
                ('verdict', models.CharField(blank=True, help_text='What the debate did against the majority vote, by the reviewers\' verdict (see analytics.rollups.VERDICTS); "": not labelled.', max_length=16)),
                ('confidence_band', models.SmallIntegerField(help_text='0-9: decision confidence 0-10 % ... 90-100 %; -1: none.')),
                ('n', models.IntegerField(default=0)),
            ],
            options={
                'verbose_name_plural': 'daily outcomes',
                'constraints': [models.UniqueConstraint(fields=('day', 'protocol', 'schedule_id', 'model', 'decision', 'agreement_band', 'verdict', 'confidence_band'), name='daily_outcomes_key')],
            },
        ),
        create_or_replace("analytics", "analytics_debate_calls", version="78116f90d28d"),
        create_or_replace("analytics", "analytics_debate_agents", version="0da692941e22"),
        create_or_replace("analytics", "analytics_debate_parts", version="52c7de479882"),
        create_or_replace("analytics", "analytics_debate_rows", version="8b04053e9286"),
        create_or_replace("analytics", "analytics_outcome_rows", version="0c49ec871986"),
        create_or_replace("analytics", "analytics_agent_rows", version="c8335d71a513"),
        create_or_replace("analytics", "analytics_add", version="c4a8eeb8b666"),
        create_or_replace("analytics", "analytics_count_debate", version="853609ac4020"),
        migrations.RunSQL(TRIGGERS, NO_TRIGGERS),
        migrations.RunPython(state, migrations.RunPython.noop),
    ]
