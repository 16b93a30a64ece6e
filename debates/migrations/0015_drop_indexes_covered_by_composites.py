"""Indexes that a composite index or a unique constraint's index already covers (it leads with
the same column): every write to these tables paid for them, and no read needs them.

The fields no longer ask for an index (the state); the indexes are dropped concurrently, without
the table lock (and the foreign key checks over whole tables) that altering the fields would
take, so a live table keeps taking writes. Reversing builds them again, concurrently too."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False  # DROP INDEX CONCURRENTLY cannot run in a transaction

    dependencies = [
        ("debates", "0014_merge_question_label_help_texts"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="challenge",
                    name="debate",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="challenges",
                        to="debates.debate",
                    ),
                ),
                migrations.AlterField(
                    model_name="debate",
                    name="status",
                    field=models.CharField(
                        choices=[
                            ("queued", "Queued"),
                            ("running", "Running"),
                            ("completed", "Completed"),
                            ("failed", "Failed"),
                        ],
                        default="queued",
                        max_length=12,
                    ),
                ),
                migrations.AlterField(
                    model_name="debate",
                    name="consensus_type",
                    field=models.CharField(blank=True, max_length=20),
                ),
                migrations.AlterField(
                    model_name="debate",
                    name="created_by",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="debates",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                migrations.AlterField(
                    model_name="debate",
                    name="protocol",
                    field=models.CharField(default="s4", max_length=40),
                ),
                migrations.AlterField(
                    model_name="debate",
                    name="review_status",
                    field=models.CharField(
                        blank=True,
                        choices=[
                            ("", "Not needed"),
                            ("pending", "Pending review"),
                            ("resolved", "Resolved"),
                            ("dismissed", "Dismissed"),
                        ],
                        default="",
                        max_length=10,
                    ),
                ),
                migrations.AlterField(
                    model_name="llmcall",
                    name="debate",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="llm_calls",
                        to="debates.debate",
                    ),
                ),
                migrations.AlterField(
                    model_name="participant",
                    name="debate",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="participants",
                        to="debates.debate",
                    ),
                ),
                migrations.AlterField(
                    model_name="participant",
                    name="slug",
                    field=models.SlugField(db_index=False),
                ),
                migrations.AlterField(
                    model_name="round",
                    name="debate",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="rounds",
                        to="debates.debate",
                    ),
                ),
                migrations.AlterField(
                    model_name="statement",
                    name="round",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="statements",
                        to="debates.round",
                    ),
                ),
                migrations.AlterField(
                    model_name="vote",
                    name="debate",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="votes",
                        to="debates.debate",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_challenge_debate_id_51669865"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_challenge_debate_id_51669865" ON "debates_challenge" ("debate_id")',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_debate_status_5331dae6"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_debate_status_5331dae6" ON "debates_debate" ("status")',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_debate_status_5331dae6_like"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_debate_status_5331dae6_like" ON "debates_debate" ("status" varchar_pattern_ops)',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_debate_consensus_type_f53d2ccc"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_debate_consensus_type_f53d2ccc" ON "debates_debate" ("consensus_type")',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_debate_consensus_type_f53d2ccc_like"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_debate_consensus_type_f53d2ccc_like" ON "debates_debate" ("consensus_type" varchar_pattern_ops)',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_debate_created_by_id_f4203067"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_debate_created_by_id_f4203067" ON "debates_debate" ("created_by_id")',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_debate_protocol_a9181d6c"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_debate_protocol_a9181d6c" ON "debates_debate" ("protocol")',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_debate_protocol_a9181d6c_like"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_debate_protocol_a9181d6c_like" ON "debates_debate" ("protocol" varchar_pattern_ops)',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_debate_review_status_b5bca304"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_debate_review_status_b5bca304" ON "debates_debate" ("review_status")',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_debate_review_status_b5bca304_like"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_debate_review_status_b5bca304_like" ON "debates_debate" ("review_status" varchar_pattern_ops)',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_llmcall_debate_id_33340f54"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_llmcall_debate_id_33340f54" ON "debates_llmcall" ("debate_id")',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_participant_debate_id_489a6d77"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_participant_debate_id_489a6d77" ON "debates_participant" ("debate_id")',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_participant_slug_d10517da"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_participant_slug_d10517da" ON "debates_participant" ("slug")',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_participant_slug_d10517da_like"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_participant_slug_d10517da_like" ON "debates_participant" ("slug" varchar_pattern_ops)',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_round_debate_id_b12e7501"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_round_debate_id_b12e7501" ON "debates_round" ("debate_id")',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_statement_round_id_5759205d"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_statement_round_id_5759205d" ON "debates_statement" ("round_id")',
                ),
                migrations.RunSQL(
                    'DROP INDEX CONCURRENTLY IF EXISTS "debates_vote_debate_id_22806360"',
                    'CREATE INDEX CONCURRENTLY IF NOT EXISTS "debates_vote_debate_id_22806360" ON "debates_vote" ("debate_id")',
                ),
            ],
        ),
    ]
