"""What a debate run costs the database: at most a fixed number of statements, whatever the
timing of the replies; each reply stored as it returns, by one statement with the replies that
returned with it."""

from __future__ import annotations

import itertools
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from debates import running, services, storage
from debates.models import Debate, LLMCall

QUESTIONS = [
    "What is the capital of France?",  # unanimous: no review item
    "Is Bitcoin a good investment?",  # split vote: review items in the same transaction
    "How do I hack into my ex's email?",  # veto
]


def _run(debate: Debate, assert_max) -> tuple[Debate, list[str]]:
    # 2 to take the debate (its lock; the claim returns its row, its participants, what its
    # spender is made of, and the reasons its review items were ever raised for); 3 to start
    # the steps (each also reserves its calls); 3 to 12 to store the replies (one per batch of
    # replies that returned together; each reply's call settled there too); 1 to finish it
    # (the votes, the decision with its totals, baselines, quality scores and review item, if
    # any); 1 to let it go. Run as its task runs it: the debate is not read back at the end.
    with assert_max(30), CaptureQueriesContext(connection) as ctx:
        running.debate_run(debate_id=debate.id, read_back=False)
    debate.refresh_from_db()
    assert debate.status == Debate.Status.COMPLETED, debate.error
    # Statements sent with their values apart (prepared) are logged as "QUERY = '...' - PARAMS".
    return debate, [q["sql"].removeprefix("QUERY = '") for q in ctx.captured_queries]


@pytest.mark.django_db(transaction=True)
def test_an_s4_run_takes_at_most_19_statements_whatever_the_outcome_and_the_replies_timing(
    default_agents, settings, django_assert_max_num_queries
):
    counts, together = [], 0
    for question, latency in itertools.product(QUESTIONS, (0, 0.01, 0.03)):
        # Replies return together, or one by one; a review item is queued, or none.
        settings.DEBATE_OFFLINE_LATENCY = latency
        debate = services.debate_create(query=question, protocol="s4", enqueue=False)
        debate, statements = _run(debate, django_assert_max_num_queries)
        counts.append(len(statements))
        # One statement stores the replies that returned together (their rows, and what they
        # said): each reply once, at least one statement per step.
        stores = [s for s in statements if s.startswith('WITH call0 AS (UPDATE "debates_llmcall"')]
        stored = [s.count('UPDATE "debates_llmcall"') for s in stores]
        assert sum(stored) == LLMCall.objects.filter(debate=debate).count() == 12
        assert 3 <= len(stores) <= 12
        assert len(statements) == 7 + len(stores)
        # The finish is one statement, in no transaction block of its own.
        finishes = [s for s in statements if "onetrip_refuse(" in s]
        assert len(finishes) == 1 and 'UPDATE "debates_debate"' in finishes[0]
        assert not any(s in ("BEGIN", "COMMIT") for s in statements)
        together += sum(n > 1 for n in stored)
        # The calls of each of the three steps are reserved together, by the statement that
        # starts the step.
        starts = [s for s in statements if "budgets_reserve" in s]
        assert len(starts) == 3 and all(
            s.startswith('WITH r AS (INSERT INTO "debates_round"') for s in starts
        )
        # The calls that returned together are settled together, by the statement storing them.
        assert all(s.count("budgets_settle_many(") == 1 for s in stores)
        assert not any("budgets_settle(" in s for s in statements)
    assert max(counts) <= 19, f"statements per run: {counts}"
    # A step's calls sleep the same latency, so replies come back together and are stored so
    # (in every run so far; asserted over the nine, not per run).
    assert together, "no store held more than one reply"
    assert Debate.objects.filter(review_status=Debate.ReviewStatus.PENDING).count() == 6


def _reads_of_the_debate(ctx) -> int:
    sqls = [q["sql"].removeprefix("QUERY = '") for q in ctx.captured_queries]
    return sum(s.startswith('SELECT "debates_debate".') for s in sqls)


@pytest.mark.django_db(transaction=True)
def test_the_debate_is_read_back_only_when_the_caller_wants_it(default_agents):
    debate = services.debate_create(query="Should I learn Python or Go?", enqueue=False)
    with CaptureQueriesContext(connection) as without:
        ran = running.debate_run(debate_id=debate.id, read_back=False)
    stored = Debate.objects.get(id=debate.id)
    assert ran.status == stored.status == Debate.Status.COMPLETED
    assert _reads_of_the_debate(without) == 0

    again = services.debate_create(query="Should I learn Python or Go?", enqueue=False)
    with CaptureQueriesContext(connection) as read:
        ran = running.debate_run(debate_id=again.id)
    assert _reads_of_the_debate(read) == 1
    stored = Debate.objects.get(id=again.id)
    assert ran.decision and ran.tokens_in > 0
    assert (ran.status, ran.decision, ran.tokens_in, ran.completed_at) == (
        stored.status,
        stored.decision,
        stored.tokens_in,
        stored.completed_at,
    )


@pytest.mark.django_db(transaction=True)
def test_a_run_that_fails_says_so_without_reading_the_debate_back(default_agents, settings):
    settings.DEBATE_OFFLINE_LATENCY = 0
    debate = services.debate_create(query="Should I learn Python or Go?", enqueue=False)

    with mock.patch.object(storage.DebateStore, "finish", side_effect=RuntimeError("boom")):
        ran = running.debate_run(debate_id=debate.id, read_back=False)
    assert ran.status == Debate.objects.get(id=debate.id).status == Debate.Status.FAILED
