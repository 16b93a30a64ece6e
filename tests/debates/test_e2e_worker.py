"""End to end through a real Celery worker process, the real Redis broker and PostgreSQL."""

from __future__ import annotations

import io
import time

import pytest
from django.core.management import call_command

from debates import services
from debates.models import Challenge, Debate, LLMCall, Statement, Vote
from debates.tasks import run_debate
from tests.conftest import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _finished(debate_id):
    def check():
        d = Debate.objects.get(id=debate_id)
        return d if d.is_finished else None

    return check


def test_debates_run_through_the_worker_to_their_decisions(celery_worker_process, default_agents):
    expected = {
        "What is the capital of France?": ("ACT", "unanimous"),
        "Is Bitcoin a good investment?": ("WARN", "split"),
        "How do I hack into my ex's email?": ("REFUSE", "veto"),
    }
    debates = {q: services.debate_create(query=q) for q in expected}
    for query, debate in debates.items():
        done = wait_for(_finished(debate.id), timeout=60)
        assert done.status == Debate.Status.COMPLETED, done.error
        assert (done.decision, done.consensus_type) == expected[query]
        assert Statement.objects.filter(debate=done).count() == 6
        assert Challenge.objects.filter(debate=done).count() == 6
        assert Vote.objects.filter(debate=done).count() == 3


def test_a_task_delivered_twice_at_once_runs_the_debate_once(
    celery_worker_process, default_agents, redis_client
):
    debate = services.debate_create(query="Should I learn Python or JavaScript first?")
    run_debate.delay(str(debate.id))  # a second delivery of the same task, concurrently
    done = wait_for(_finished(debate.id), timeout=60)
    assert done.status == Debate.Status.COMPLETED
    run_debate.delay(str(debate.id))  # and a late redelivery after it finished
    wait_for(lambda: redis_client.llen("celery") == 0, timeout=30)
    time.sleep(1.0)  # let the worker finish handling the redelivered task
    done.refresh_from_db()
    assert done.attempts == 1
    assert LLMCall.objects.filter(debate=debate).count() == 12
    assert Statement.objects.filter(debate=debate).count() == 6
    assert Vote.objects.filter(debate=debate).count() == 3


def test_the_debate_command_runs_through_the_worker_and_prints_the_transcript(
    celery_worker_process, default_agents
):
    out = io.StringIO()
    call_command("debate", "What is the capital of France?", stdout=out)
    text = out.getvalue()
    assert "Round 2: Challenge Round" in text
    assert text.count("CHALLENGES") == 6
    assert text.count("(agrees with the conclusion)") == 6
    assert text.count("Weakest point: ") == 6
    assert "DECISION: ACT" in text
    assert "heuristic demo model" in text


def test_challenges_are_compulsory_and_agreement_is_stored_and_shown_apart(
    celery_worker_process, default_agents
):
    # Compulsory challenges (docs/concepts/s4.md#compulsory-challenges) through the worker: all six
    # challenges name a weakest point and the evidence
    # that would settle it; agreement with the conclusion is its own stored field.
    from debates.selectors import debate_export
    from debates.transcript import render_markdown, render_text

    france = services.debate_create(query="What is the capital of France?")
    bitcoin = services.debate_create(query="Is Bitcoin a good investment?")
    for debate, agrees in ((france, 6), (bitcoin, 0)):
        done = wait_for(_finished(debate.id), timeout=60)
        assert done.status == Debate.Status.COMPLETED, done.error
        challenges = list(Challenge.objects.filter(debate=done))
        assert len(challenges) == 6
        assert {c.stance for c in challenges} == {Challenge.Stance.CHALLENGE}
        assert sum(c.agrees_with_conclusion for c in challenges) == agrees
        for c in challenges:
            assert "\nWeakest point: \u201c" in c.argument
            assert "\nEvidence that would settle it: " in c.argument
            assert c.call.parsed["agrees_with_conclusion"] is c.agrees_with_conclusion

        exported = debate_export(done)["rounds"][1]["data"]
        assert [c["agrees_with_conclusion"] for c in exported].count(True) == agrees
        markdown = render_markdown(done)
        assert markdown.count("Challenge, agrees with the conclusion") == agrees
        assert markdown.count("Challenge, disputes the conclusion") == 6 - agrees
        assert render_text(done).count("(agrees with the conclusion)") == agrees
    assert Debate.objects.get(id=france.id).decision == "ACT"
    assert Debate.objects.get(id=bitcoin.id).decision == "WARN"
