"""References between the rows of one debate have no constraint in PostgreSQL (see the comment
above `debates.models.LLMCall`): what every protocol stores, run whole or resumed after a
worker died, refers to rows of its own debate; each row keeps its debate's foreign key; and
deleting still takes every row with it."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db import IntegrityError, connection, transaction

from agents import gateway
from debates import running, services
from debates.models import Challenge, Debate, LLMCall, Participant, Round, Statement, Vote
from tests.debates.test_services import CountingLLM, WorkerDied

TABLES = {
    model._meta.db_table: model for model in (LLMCall, Statement, Challenge, Vote, Participant)
}

# Each reference to another row of the debate, and the table it points into.
WITHIN = [
    ("debates_llmcall", "participant_id", "debates_participant"),
    ("debates_statement", "round_id", "debates_round"),
    ("debates_statement", "participant_id", "debates_participant"),
    ("debates_statement", "call_id", "debates_llmcall"),
    ("debates_challenge", "round_id", "debates_round"),
    ("debates_challenge", "challenger_id", "debates_participant"),
    ("debates_challenge", "challenged_id", "debates_participant"),
    ("debates_challenge", "call_id", "debates_llmcall"),
    ("debates_vote", "participant_id", "debates_participant"),
    ("debates_vote", "statement_id", "debates_statement"),
]


def _outside(debate_id) -> list[tuple[str, str, int]]:
    """Every reference of the debate's rows that points to no row, or to a row of another
    debate: (table, column, row id)."""
    found = []
    with connection.cursor() as cursor:
        for table, column, target in WITHIN:
            cursor.execute(
                f"SELECT r.id FROM {table} r LEFT JOIN {target} t ON t.id = r.{column} "
                f"WHERE r.debate_id = %s AND r.{column} IS NOT NULL "
                "AND t.debate_id IS DISTINCT FROM r.debate_id",
                [debate_id],
            )
            found += [(table, column, pk) for (pk,) in cursor.fetchall()]
    return found


def _foreign_keys() -> dict[str, set[str]]:
    """The foreign keys PostgreSQL checks, by table: the tables they point to."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint "
            "WHERE contype = 'f' AND conrelid::regclass::text = ANY(%s)",
            [list(TABLES)],
        )
        keys: dict[str, set[str]] = {}
        for table, target in cursor.fetchall():
            keys.setdefault(table, set()).add(target)
    return keys


def test_each_row_keeps_its_debates_foreign_key_and_only_that_one(db):
    assert _foreign_keys() == {
        "debates_llmcall": {"debates_debate"},
        "debates_statement": {"debates_debate"},
        "debates_challenge": {"debates_debate"},
        "debates_vote": {"debates_debate"},
        "debates_participant": {"debates_debate", "agents_agent"},
    }


@pytest.mark.django_db(transaction=True)
def test_a_row_for_a_debate_that_does_not_exist_is_refused(default_agents):
    debate = services.debate_create(query="What is the capital of France?", enqueue=False)
    running.debate_run(debate_id=debate.id)
    call = LLMCall.objects.filter(debate=debate).first()
    call.pk, call.key = None, "r9:elsewhere"
    call.debate_id = "00000000-0000-0000-0000-000000000000"
    with pytest.raises(IntegrityError), transaction.atomic():
        call.save()


@pytest.mark.parametrize(
    "protocol, question",
    [
        ("s4", "Is Bitcoin a good investment?"),
        ("s4", "How do I hack into my ex's email?"),
        ("moderated", "Is Bitcoin a good investment?"),
        ("moderated_extended", "Should I learn Python or JavaScript first?"),
        ("round_robin", "Should I buy Bitcoin now?"),
    ],
)
def test_what_each_protocol_stores_refers_to_rows_of_its_own_debate(
    default_agents, protocol, question
):
    # Two debates side by side, so that a reference to the other one's rows would show.
    debates = [
        services.debate_create(query=question, protocol=protocol, enqueue=False) for _ in range(2)
    ]
    for debate in debates:
        running.debate_run(debate_id=debate.id)
    for debate in debates:
        debate.refresh_from_db()
        assert debate.status == Debate.Status.COMPLETED, debate.error
        assert Statement.objects.filter(debate=debate).exists()
        assert _outside(debate.id) == []


def test_a_run_resumed_after_its_worker_died_refers_to_rows_of_its_own_debate(default_agents):
    other = services.debate_create(query="Is Bitcoin a good investment?", enqueue=False)
    running.debate_run(debate_id=other.id)
    debate = services.debate_create(query="Is Bitcoin a good investment?", enqueue=False)
    with (
        mock.patch.object(gateway, "acomplete", CountingLLM(fail_after=5, exc=WorkerDied())),
        pytest.raises(WorkerDied),
    ):
        running.debate_run(debate_id=debate.id)
    assert _outside(debate.id) == []
    with mock.patch.object(gateway, "acomplete", CountingLLM()):
        running.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    assert debate.status == Debate.Status.COMPLETED
    assert Challenge.objects.filter(debate=debate).count() == 6
    assert _outside(debate.id) == [] and _outside(other.id) == []


def test_deleting_a_debate_or_an_agent_of_it_still_takes_their_rows(default_agents):
    kept = services.debate_create(query="Is Bitcoin a good investment?", enqueue=False)
    gone = services.debate_create(query="Is Bitcoin a good investment?", enqueue=False)
    for debate in (kept, gone):
        running.debate_run(debate_id=debate.id)
    before = {model: model.objects.filter(debate=kept).count() for model in TABLES.values()}

    # An agent of a debate: its calls, statements, challenges (made and received) and vote go.
    safety = Participant.objects.get(debate=kept, slug="safety")
    safety.delete()
    assert not LLMCall.objects.filter(participant_id=safety.pk).exists()
    assert not Statement.objects.filter(participant_id=safety.pk).exists()
    assert not Challenge.objects.filter(challenger_id=safety.pk).exists()
    assert not Challenge.objects.filter(challenged_id=safety.pk).exists()
    assert not Vote.objects.filter(participant_id=safety.pk).exists()
    assert _outside(kept.id) == []  # what stays refers to what stays

    # A debate: every row of it goes, and the other debate's rows stay.
    gone.delete()
    for model in (*TABLES.values(), Round):
        assert not model.objects.filter(debate_id=gone.id).exists(), model
    assert LLMCall.objects.filter(debate=kept).count() == before[LLMCall] - 4
    assert Challenge.objects.filter(debate=kept).count() == before[Challenge] - 4
