"""How much the agents agreed, in percent, on the debate (`Debate.agreement`), read once from
what each protocol's rules recorded in the metadata of debates completed before it was stored
(`DebateProtocol.agreement_metadata`): one UPDATE per protocol that records it."""

from django.db import migrations, models


def fill(apps, schema_editor):
    from protocols import PROTOCOLS

    with schema_editor.connection.cursor() as cursor:
        for name, cls in PROTOCOLS.items():
            if cls.agreement_metadata is None:
                continue
            key, factor = cls.agreement_metadata
            cursor.execute(
                "UPDATE debates_debate SET agreement = round(((metadata ->> %s)::numeric * %s), 4) "
                "WHERE protocol = %s AND status = 'completed' AND agreement IS NULL "
                "AND jsonb_typeof(metadata -> %s) = 'number'",
                [key, factor, name, key],
            )


class Migration(migrations.Migration):
    dependencies = [("debates", "0026_call_started_at")]

    operations = [
        migrations.AddField(
            model_name="debate",
            name="agreement",
            field=models.FloatField(
                blank=True,
                help_text="How much the agents agreed on the decision, in percent, as its "
                "protocol's rules record it (empty: they record none).",
                null=True,
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=True),
    ]
