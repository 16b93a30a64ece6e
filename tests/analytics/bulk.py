"""Many stored debates at once (bulk inserts, no LLM), for the analytics page's query-count test
and `bench/analytics_bench.py`: spread over the last `days` days, three protocols, a schedule
for every fifth, three agents with a revision each, three answered calls on two models, a share
reviewed and overridden, some failed or retried."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django.db import connection, transaction
from django.utils import timezone

from analytics import rollups
from debates.models import Debate, LLMCall, Participant, Round, Statement

PROTOCOLS = ("s4", "round_robin", "moderated")
DECISIONS = {
    "s4": ("ACT", "WARN", "REFUSE"),
    "round_robin": ("BUY", "HOLD", "SELL"),
    "moderated": ("SUPPORT", "OPPOSE", "UNCERTAIN"),
}
MODELS = ("openai/gpt-4o-mini", "anthropic/claude-3-5-haiku")


def seed(n: int, *, schedule=None, days: int = 30, batch: int = 5000) -> None:
    now = timezone.now()
    debates, rounds, participants, statements, calls = [], [], [], [], []
    for i in range(n):
        protocol = PROTOCOLS[i % 3]
        choices = DECISIONS[protocol]
        failed = i % 50 == 7
        decision = "" if failed else choices[i % 3]
        reviewed = not failed and i % 4 == 0
        override = choices[(i + 1) % 3] if reviewed and i % 12 == 0 else ""
        metadata = {}
        if protocol == "s4":
            metadata["agreement_percentage"] = (33.3, 66.7, 100.0)[i % 3]
        elif protocol == "round_robin":
            metadata["agreement_share"] = (0.3333, 0.6667, 1.0)[i % 3]
        debate = Debate(
            query=f"question {i}",
            protocol=protocol,
            status=Debate.Status.FAILED if failed else Debate.Status.COMPLETED,
            decision=decision,
            decision_override=override,
            review_status="resolved" if reviewed else "",
            majority_decision=decision,
            metadata=metadata,
            schedule=schedule if schedule is not None and i % 5 == 0 else None,
            attempts=2 if i % 20 == 3 else 1,
            tokens_in=900,
            tokens_out=300,
            cost_usd=Decimal("0.003"),
            started_at=now,
            completed_at=now,
            error="LLM failed" if failed else "",
            baselines={
                "agents": [
                    {"agent": slug, "independent": decision, "final": decision, "change": "same"}
                    for slug in ("a", "b", "c")
                ]
            }
            if decision
            else {},
        )
        debates.append(debate)
        rnd = Round(debate=debate, number=1, name="Revision", status=Round.Status.COMPLETED)
        rounds.append(rnd)
        for position, slug in enumerate(("a", "b", "c")):
            participant = Participant(
                debate=debate,
                position=position,
                name=f"Agent {slug.upper()}",
                slug=slug,
                role="r",
                system_prompt="",
                model_name=MODELS[position % 2],
                temperature=0.2,
            )
            participants.append(participant)
            call = LLMCall(
                debate=debate,
                participant=participant,
                round_number=1,
                step="revision",
                key=f"r1:{slug}",
                status=LLMCall.Status.DONE,
                model=MODELS[position % 2],
                tokens_in=300,
                tokens_out=100,
                cost_usd=Decimal("0.001"),
                attempts=2 if (i + position) % 25 == 0 else 1,
            )
            calls.append(call)
            if decision:
                statements.append(
                    Statement(
                        debate=debate,
                        round=rnd,
                        participant=participant,
                        call=call,
                        kind="revision",
                        decision=decision,
                        previous_decision=choices[(i + position) % 3],
                        confidence=70,
                        risk=20,
                    )
                )
    with transaction.atomic(), connection.cursor() as cursor:
        # Written as a bulk load is: without the roll-ups' triggers (which would count each
        # finished debate as it is inserted, before its calls), counted at the end instead.
        cursor.execute("SET LOCAL session_replication_role = replica")
        Debate.objects.bulk_create(debates, batch_size=batch)
        Round.objects.bulk_create(rounds, batch_size=batch)
        Participant.objects.bulk_create(participants, batch_size=batch)
        LLMCall.objects.bulk_create(calls, batch_size=batch)
        Statement.objects.bulk_create(statements, batch_size=batch)
        # created_at is set on insert; spread the debates over the range, a day per (i % days).
        cursor.execute(
            f"UPDATE {Debate._meta.db_table} SET created_at = %s - "
            "(CAST(substring(query from 10) AS integer) %% %s) * interval '1 day' "
            "WHERE query LIKE 'question %%'",
            [now - dt.timedelta(minutes=1), days],
        )
        cursor.execute("SET LOCAL session_replication_role = DEFAULT")
        rollups.rebuild()
