"""The sweeper and the failure paths of a run, against the real PostgreSQL and Redis."""

from __future__ import annotations

import base64
import json
from datetime import timedelta
from unittest import mock

import psycopg
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import connection
from django.utils import timezone

from agents import gateway
from agents.models import Agent
from debates import recovery, running, services
from debates.models import Debate, LLMCall
from reviews.models import ReviewItem

LATER_THAN_QUEUED = timedelta(seconds=settings.DEBATE_QUEUED_DEADLINE + 1)
LATER_THAN_RUNNING = timedelta(seconds=settings.DEBATE_HEARTBEAT_TIMEOUT + 1)


def _queued(**fields) -> Debate:
    debate = services.debate_create(query="Is it raining?", enqueue=False)
    if fields:
        Debate.objects.filter(id=debate.id).update(**fields)
        debate.refresh_from_db()
    return debate


def _messages(redis_client, queue) -> list[dict]:
    """The task messages waiting in `queue`: task name and arguments."""
    out = []
    for raw in redis_client.lrange(queue, 0, -1):
        message = json.loads(raw)
        args, kwargs, _ = json.loads(base64.b64decode(message["body"]))
        out.append({"task": message["headers"]["task"], "args": args, "kwargs": kwargs})
    return out


def test_a_debate_queued_past_its_deadline_is_enqueued_again(
    default_agents, private_queue, redis_client, django_capture_on_commit_callbacks
):
    debate = _queued()
    with django_capture_on_commit_callbacks(execute=True):
        report = recovery.recover_stuck_debates(now=timezone.now() + LATER_THAN_QUEUED)
    assert report.requeued == [str(debate.id)]
    assert _messages(redis_client, private_queue) == [
        {"task": "debates.run_debate", "args": [str(debate.id)], "kwargs": {}}
    ]
    debate.refresh_from_db()
    assert (debate.status, debate.recoveries) == (Debate.Status.QUEUED, 1)


def test_debates_within_their_deadlines_are_left_alone(default_agents):
    queued = _queued()
    running = _queued(status=Debate.Status.RUNNING, heartbeat_at=timezone.now())
    assert recovery.recover_stuck_debates(now=timezone.now()).requeued == []
    # Past the heartbeat timeout, a running debate with no live runner is taken back; a queued
    # one waits for its own (longer) deadline.
    report = recovery.recover_stuck_debates(now=timezone.now() + LATER_THAN_RUNNING)
    assert report.requeued == [str(running.id)]
    running.refresh_from_db()
    assert (running.status, running.recoveries) == (Debate.Status.QUEUED, 1)
    assert Debate.objects.get(id=queued.id).recoveries == 0


def test_a_running_debate_is_swept_by_its_heartbeat_not_its_last_change(default_agents):
    debate = _queued(status=Debate.Status.RUNNING)
    later = timezone.now() + LATER_THAN_RUNNING
    Debate.objects.filter(id=debate.id).update(heartbeat_at=later)  # a runner stored a reply
    assert recovery.recover_stuck_debates(now=later).requeued == []
    report = recovery.recover_stuck_debates(now=later + LATER_THAN_RUNNING)
    assert report.requeued == [str(debate.id)]


def test_finished_debates_are_never_swept(default_agents):
    done = _queued(status=Debate.Status.COMPLETED, decision="ACT")
    failed = _queued(status=Debate.Status.FAILED, error="x")
    report = recovery.recover_stuck_debates(now=timezone.now() + timedelta(days=30))
    assert report.requeued == [] and report.gave_up == []
    assert Debate.objects.get(id=done.id).status == Debate.Status.COMPLETED
    assert Debate.objects.get(id=failed.id).error == "x"


def test_a_running_debate_whose_runner_is_alive_is_not_taken_from_it(default_agents):
    debate = _queued(status=Debate.Status.RUNNING)
    # A live runner holds the debate's advisory lock on its own connection.
    params = {**connection.get_connection_params(), "autocommit": True}
    with psycopg.connect(**params) as runner:
        runner.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", [str(debate.id)])
        report = recovery.recover_stuck_debates(now=timezone.now() + LATER_THAN_RUNNING)
    assert report.running_elsewhere == [str(debate.id)]
    assert report.requeued == []
    debate.refresh_from_db()
    assert (debate.status, debate.recoveries) == (Debate.Status.RUNNING, 0)


def test_the_sweeper_gives_up_after_its_last_recovery_and_sends_the_debate_to_review(
    default_agents, private_queue, redis_client, django_capture_on_commit_callbacks
):
    debate = _queued(status=Debate.Status.RUNNING, metadata={"injection_suspected": True})
    outcomes = []
    for _ in range(settings.DEBATE_MAX_RECOVERIES + 2):
        # Each time a worker takes it again and dies (a re-enqueued debate is queued until then).
        Debate.objects.filter(id=debate.id, status="queued").update(status="running")
        with django_capture_on_commit_callbacks(execute=True):
            report = recovery.recover_stuck_debates(now=timezone.now() + LATER_THAN_RUNNING)
        outcomes.append("requeued" if report.requeued else "gave up" if report.gave_up else "-")
    assert outcomes == ["requeued"] * settings.DEBATE_MAX_RECOVERIES + ["gave up", "-"]
    assert redis_client.llen(private_queue) == settings.DEBATE_MAX_RECOVERIES

    debate.refresh_from_db()
    assert debate.status == Debate.Status.FAILED
    assert debate.error.startswith(f"Gave up after {settings.DEBATE_MAX_RECOVERIES} restarts")
    assert "worker running the debate was lost" in debate.error
    assert debate.metadata == {"injection_suspected": True}
    assert debate.completed_at is not None
    [item] = ReviewItem.objects.filter(debate=debate)
    assert (item.reason, item.status, item.summary) == ("debate_failed", "open", debate.error)
    assert item.details == {
        "error": debate.error,
        "attempts": 0,
        "recoveries": settings.DEBATE_MAX_RECOVERIES,
    }
    assert debate.review_status == Debate.ReviewStatus.PENDING


def test_a_queued_debate_no_worker_takes_is_given_up_with_its_own_reason(default_agents):
    debate = _queued(recoveries=settings.DEBATE_MAX_RECOVERIES)
    report = recovery.recover_stuck_debates(now=timezone.now() + LATER_THAN_QUEUED)
    assert report.gave_up == [str(debate.id)]
    debate.refresh_from_db()
    assert debate.status == Debate.Status.FAILED
    assert "no worker took the debate" in debate.error
    assert list(debate.review_items.values_list("reason", "summary")) == [
        ("debate_failed", debate.error)
    ]


# --- failures of the run itself ----------------------------------------------------------------


def test_a_debate_whose_worker_died_too_often_is_failed_not_started_again(default_agents):
    debate = _queued(status=Debate.Status.RUNNING, attempts=settings.DEBATE_MAX_ATTEMPTS)
    with mock.patch.object(gateway, "acomplete") as llm:
        assert running.debate_run(debate_id=debate.id) is None
    llm.assert_not_called()
    debate.refresh_from_db()
    assert debate.status == Debate.Status.FAILED
    assert f"Gave up after {settings.DEBATE_MAX_ATTEMPTS} attempts" in debate.error
    assert list(debate.review_items.values_list("reason", flat=True)) == ["debate_failed"]


def test_a_debate_past_its_soft_time_limit_fails_with_a_readable_error(default_agents):
    debate = _queued()
    with mock.patch.object(gateway, "acomplete", side_effect=SoftTimeLimitExceeded()):
        running.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    assert debate.status == Debate.Status.FAILED
    assert debate.error == (
        f"The debate ran past its time limit ({settings.CELERY_TASK_SOFT_TIME_LIMIT} s) "
        "and was stopped."
    )


def test_an_agent_configured_with_an_unknown_model_fails_the_debate_with_a_readable_error(
    default_agents,
):
    Agent.objects.filter(slug="accuracy").update(model_name="nosuch/model-x")
    debate = services.debate_create(query="Is it raining?", enqueue=False)
    running.debate_run(debate_id=debate.id)  # the real gateway: no patch
    debate.refresh_from_db()
    assert debate.status == Debate.Status.FAILED
    assert debate.error.startswith("The language model failed (permanent): nosuch/model-x")
    assert "LLM Provider NOT provided" in debate.error
    failed = LLMCall.objects.get(debate=debate, status=LLMCall.Status.FAILED)
    assert failed.key == "r1:accuracy"


def test_a_debate_whose_protocol_is_gone_fails_saying_so(default_agents):
    debate = _queued(protocol="retired")
    running.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    assert debate.status == Debate.Status.FAILED
    assert debate.error.startswith("The debate cannot run as configured: Unknown protocol")
