"""The analytics roll-ups (`analytics.models`): how they are kept, and built again.

PostgreSQL keeps them. A trigger on the debates table (`analytics/sql/analytics_count_debate.sql`,
created by analytics' first migration) runs in the statement that finishes a debate (the
runner's one statement, `DebateStore.finish`, or a failure), that changes what the roll-ups read
of a finished debate (a review opened or resolved, a decision overridden, a schedule deleted), that
queues it again or deletes it: it takes away what the debate added before (kept per debate in
`DebateCount`) and adds what it adds now, so the roll-ups always equal what the stored rows add up
to (tests/analytics/test_rollups.py checks them against the raw rows, debates finishing at the
same time included). Reading a day's figures is then reading a few rows per day, whatever the
number of debates.

What a debate adds is computed from its row, its calls and its statements when it finishes;
calls and statements do not change while a debate is finished. Rows written another way (bulk
inserts of finished debates before their calls) are counted right by `rebuild`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from analytics.models import DailyAgents, DailyDebates, DailyOutcomes, DebateCount, RollupState
from debates import outcomes
from debates.models import Debate

#: What a labelled debate did, judged by the reviewers' verdict, against the majority vote of the
#: agents' independent answers: named once, in `debates.outcomes`, whose list filter selects the
#: same debates as these figures count.
VERDICTS = tuple(outcomes.OUTCOMES)
#: The verdicts where the debate's own decision was right.
RIGHT = outcomes.RIGHT
#: The verdicts where the majority vote was right.
MAJORITY_RIGHT = (outcomes.KEPT_RIGHT, outcomes.BROKE)

FINISHED = (Debate.Status.COMPLETED, Debate.Status.FAILED)


def current_state() -> RollupState | None:
    return RollupState.objects.order_by("id").first()


def problem(state: RollupState | None = None) -> str:
    """What makes the roll-ups incomplete, in words for the page ("" when nothing does)."""
    state = state if state is not None else current_state()
    if state is None or state.built_at is None:
        return (
            "Debates finished before the daily figures were kept are not counted yet: run "
            "manage.py rollup_analytics once."
        )
    if state.time_zone != settings.TIME_ZONE:
        return (
            f"The daily figures are counted in days of {state.time_zone}, and the server's time "
            f"zone is now {settings.TIME_ZONE}: run manage.py rollup_analytics to count them "
            "again."
        )
    return ""


def _tables() -> list[str]:
    return [m._meta.db_table for m in (DebateCount, DailyDebates, DailyOutcomes, DailyAgents)]


@transaction.atomic
def rebuild() -> int:
    """Count every finished debate into empty roll-ups, in days of the server's time zone, set
    by set (a few statements, whatever the number of debates). Writes to debates wait while it
    runs (it holds a SHARE lock on their table, so that none finishes unseen meanwhile); reads
    do not. Returns how many debates were counted."""
    debates = Debate._meta.db_table
    zone = settings.TIME_ZONE
    finished = [str(s) for s in FINISHED]
    with connection.cursor() as cursor:
        cursor.execute(f"LOCK TABLE {debates} IN SHARE MODE")
        cursor.execute(f"TRUNCATE {', '.join(_tables())}")
        # Every debate's calls and revisions, read once each (the lowest and highest ids).
        every = ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"]
        cursor.execute(
            f"INSERT INTO {DebateCount._meta.db_table} (debate_id, parts) "
            "SELECT d.id, analytics_debate_parts(d, %s, c.calls, a.agents) "
            f"FROM {debates} d "
            "LEFT JOIN analytics_debate_calls(%s, %s) c ON c.debate_id = d.id "
            "LEFT JOIN analytics_debate_agents(%s, %s) a ON a.debate_id = d.id "
            "WHERE d.status = ANY(%s)",
            [zone, *every, *every, finished],
        )
        counted = cursor.rowcount
        for model, rows in (
            (DailyDebates, "analytics_debate_rows"),
            (DailyOutcomes, "analytics_outcome_rows"),
            (DailyAgents, "analytics_agent_rows"),
        ):
            dimensions = list(model._meta.constraints[0].fields)  # its unique key
            counts = [
                f.column
                for f in model._meta.concrete_fields
                if not f.primary_key and f.name not in dimensions
            ]
            fields = dimensions + counts
            cursor.execute(
                f"INSERT INTO {model._meta.db_table} ({', '.join(fields)}) "
                f"SELECT {', '.join(f'r.{f}' for f in dimensions)}, "
                f"{', '.join(f'sum(r.{f})' for f in counts)} "
                f"FROM {DebateCount._meta.db_table} c, {rows}(c.parts, 1) r "
                f"GROUP BY {', '.join(f'r.{f}' for f in dimensions)}"
            )
    RollupState.objects.all().delete()
    RollupState.objects.create(time_zone=zone, built_at=timezone.now())
    return counted
