"""The analytics page's daily roll-ups: what finished debates add up to, per day (in the server's
time zone, by the day a debate was created), protocol, schedule and model, kept up to date by
PostgreSQL as debates finish, are reviewed, run again or deleted (`analytics.rollups`).

A debate counts once it has finished (completed or failed). In every table, `model` "" holds
every debate; a model's name holds the debates with at least one call that model answered (the
page's model filter), so one debate is counted in the "" rows and in one row per model it used.
"""

from __future__ import annotations

from django.db import models


class RollupState(models.Model):
    """One row: the time zone whose days the roll-ups count in, and when they were last built
    from every stored debate (`manage.py rollup_analytics`); None: not yet, or not since the
    time zone changed."""

    time_zone = models.CharField(max_length=64)
    built_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"roll-ups in {self.time_zone}"


class DebateCount(models.Model):
    """What one finished debate added to the roll-ups (the function `analytics_debate_parts`'s
    JSON), so that a change to it, or its deletion, takes away exactly what it added."""

    debate_id = models.UUIDField(primary_key=True)
    parts = models.JSONField()

    def __str__(self):
        return str(self.debate_id)


class Dimensions(models.Model):
    """The page's filters, which every roll-up is kept by."""

    day = models.DateField()
    protocol = models.CharField(max_length=40)
    schedule_id = models.BigIntegerField(default=0, help_text="0: not from a schedule.")
    model = models.CharField(
        max_length=200, blank=True, help_text='"": every debate; else those it answered in.'
    )

    class Meta:
        abstract = True

    def __str__(self):
        return f"{self.day} {self.protocol} schedule {self.schedule_id} model {self.model!r}"


class DailyDebates(Dimensions):
    """Finished debates and their calls, reviews and verdicts, per day and dimensions."""

    finished = models.IntegerField(default=0)
    completed = models.IntegerField(default=0)
    failed = models.IntegerField(default=0)
    retried = models.IntegerField(default=0, help_text="Started more than once.")
    sent = models.IntegerField(default=0, help_text="Completed and sent to review.")
    resolved = models.IntegerField(default=0, help_text="Completed and reviewed (labelled).")
    overridden = models.IntegerField(default=0, help_text="A reviewer changed the decision.")
    cost_usd = models.DecimalField(max_digits=18, decimal_places=6, default=0)
    tokens_in = models.BigIntegerField(default=0)
    tokens_out = models.BigIntegerField(default=0)
    # The calls of those debates: every call in the "" rows, the model's own in a model's.
    calls = models.IntegerField(default=0)
    calls_retried = models.IntegerField(default=0)
    calls_failed = models.IntegerField(default=0)
    calls_cost_usd = models.DecimalField(max_digits=18, decimal_places=6, default=0)
    calls_tokens_in = models.BigIntegerField(default=0)
    calls_tokens_out = models.BigIntegerField(default=0)
    # Labelled debates (reviewed): the verdict against the debate, the majority vote and the
    # agents' independent answers (one per agent).
    debate_agreed = models.IntegerField(default=0)
    majority_agreed = models.IntegerField(default=0)
    single_answers = models.IntegerField(default=0)
    single_agreed = models.IntegerField(default=0)

    class Meta:
        verbose_name_plural = "daily debates"
        constraints = [
            models.UniqueConstraint(
                fields=["day", "protocol", "schedule_id", "model"], name="daily_debates_key"
            )
        ]


class DailyOutcomes(Dimensions):
    """Completed debates per effective decision, agreement band, verdict and confidence band."""

    decision = models.CharField(max_length=16, help_text="The effective decision.")
    agreement_band = models.SmallIntegerField(
        help_text="0-9: 0-10 % ... 90-100 % of the agents on the decision; -1: not recorded."
    )
    verdict = models.CharField(
        max_length=16,
        blank=True,
        help_text="What the debate did against the majority vote, by the reviewers' verdict "
        '(see analytics.rollups.VERDICTS); "": not labelled.',
    )
    confidence_band = models.SmallIntegerField(
        help_text="0-9: decision confidence 0-10 % ... 90-100 %; -1: none."
    )
    n = models.IntegerField(default=0)

    class Meta:
        verbose_name_plural = "daily outcomes"
        constraints = [
            models.UniqueConstraint(
                fields=[
                    "day",
                    "protocol",
                    "schedule_id",
                    "model",
                    "decision",
                    "agreement_band",
                    "verdict",
                    "confidence_band",
                ],
                name="daily_outcomes_key",
            )
        ]


class DailyAgents(Dimensions):
    """Revisions and later turns per agent (by display name): kept or changed position."""

    agent = models.CharField(max_length=100)
    changed = models.IntegerField(default=0)
    kept = models.IntegerField(default=0)

    class Meta:
        verbose_name_plural = "daily agents"
        constraints = [
            models.UniqueConstraint(
                fields=["day", "protocol", "schedule_id", "model", "agent"],
                name="daily_agents_key",
            )
        ]
