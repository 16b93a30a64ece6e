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


def test_debates_run_through_the_worker_to_their_decisions(celery_worker_process,
                                                           default_agents):
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


def test_a_task_delivered_twice_at_once_runs_the_debate_once(celery_worker_process,
                                                             default_agents, redis_client):
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
    assert "AGREES WITH" in text
    assert "DECISION: ACT" in text
    assert "heuristic demo model" in text
