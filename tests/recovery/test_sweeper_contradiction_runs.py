"""The sweeper and the failure paths of contradiction runs, against the real PostgreSQL and
Redis: the same rules as for debates (deadlines, live runners left alone, bounded attempts,
giving up into the review queue)."""

from __future__ import annotations

from unittest import mock

import psycopg
import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection
from django.utils import timezone

from agents import gateway
from agents.errors import LLMError
from contradictions import running as contradiction_running
from contradictions import services
from contradictions.models import ArbitrationCall, ContradictionRun
from debates import recovery
from debates import services as debate_services
from debates.models import Debate
from debates.tasks import recover_stuck_debates
from reviews import services as reviews
from reviews.models import ReviewItem
from tests.contradictions.conftest import ScriptedArbitrator, reports_of
from tests.factories import with_roles
from tests.recovery.test_sweeper import LATER_THAN_QUEUED, LATER_THAN_RUNNING, _messages

pytestmark = pytest.mark.usefixtures("sources")


def _run(**fields) -> ContradictionRun:
    run = services.contradiction_run_create(reports=reports_of("simple"), enqueue=False)
    if fields:
        ContradictionRun.objects.filter(id=run.id).update(**fields)
        run.refresh_from_db()
    return run


@pytest.fixture
def staff(django_user_model):
    return with_roles(
        django_user_model.objects.create_user("alice", password="pw-alice-long", is_staff=True)
    )


def test_a_run_queued_past_its_deadline_is_enqueued_again(
    private_queue, redis_client, django_capture_on_commit_callbacks
):
    run = _run()
    with django_capture_on_commit_callbacks(execute=True):
        reports = recovery.sweep(now=timezone.now() + LATER_THAN_QUEUED)
    assert reports["contradiction_runs"].requeued == [str(run.id)]
    assert reports["debates"].requeued == []
    assert _messages(redis_client, private_queue) == [
        {"task": "contradictions.run", "args": [str(run.id)], "kwargs": {}}
    ]
    run.refresh_from_db()
    assert (run.status, run.recoveries) == (ContradictionRun.Status.QUEUED, 1)


def test_runs_within_their_deadlines_and_finished_runs_are_left_alone():
    running = _run(status=ContradictionRun.Status.RUNNING)
    failed = _run(status=ContradictionRun.Status.FAILED, error="x")
    report = contradiction_running.recover_stuck_contradiction_runs(now=timezone.now())
    assert report.requeued == [] and report.gave_up == []
    later = contradiction_running.recover_stuck_contradiction_runs(
        now=timezone.now() + LATER_THAN_RUNNING
    )
    assert later.requeued == [str(running.id)]
    assert ContradictionRun.objects.get(id=failed.id).error == "x"


def test_a_running_run_whose_runner_is_alive_is_not_taken_from_it():
    run = _run(status=ContradictionRun.Status.RUNNING)
    params = {**connection.get_connection_params(), "autocommit": True}
    with psycopg.connect(**params) as runner:
        runner.execute(
            "SELECT pg_advisory_lock(hashtextextended(%s, 0))", [f"contradiction-run:{run.id}"]
        )
        report = contradiction_running.recover_stuck_contradiction_runs(
            now=timezone.now() + LATER_THAN_RUNNING
        )
    assert report.running_elsewhere == [str(run.id)] and report.requeued == []
    run.refresh_from_db()
    assert (run.status, run.recoveries) == (ContradictionRun.Status.RUNNING, 0)


def test_the_sweeper_gives_up_on_a_run_and_sends_it_to_review(
    private_queue, redis_client, django_capture_on_commit_callbacks
):
    run = _run(status=ContradictionRun.Status.RUNNING)
    outcomes = []
    for _ in range(settings.DEBATE_MAX_RECOVERIES + 2):
        # Each time a worker takes it again and dies (a re-enqueued run is queued until then).
        ContradictionRun.objects.filter(id=run.id, status="queued").update(status="running")
        with django_capture_on_commit_callbacks(execute=True):
            report = contradiction_running.recover_stuck_contradiction_runs(
                now=timezone.now() + LATER_THAN_RUNNING
            )
        outcomes.append("requeued" if report.requeued else "gave up" if report.gave_up else "-")
    assert outcomes == ["requeued"] * settings.DEBATE_MAX_RECOVERIES + ["gave up", "-"]
    assert redis_client.llen(private_queue) == settings.DEBATE_MAX_RECOVERIES

    run.refresh_from_db()
    assert run.status == ContradictionRun.Status.FAILED
    assert run.error == (
        f"Gave up after {settings.DEBATE_MAX_RECOVERIES} restarts: the worker running the "
        f"contradiction run was lost each time (no heartbeat for "
        f"{settings.DEBATE_HEARTBEAT_TIMEOUT} s and no live runner)."
    )
    [item] = ReviewItem.objects.filter(contradiction_run=run)
    assert (item.reason, item.status, item.summary, item.priority) == (
        "run_failed",
        "open",
        run.error,
        70,
    )
    assert run.review_status == ContradictionRun.ReviewStatus.PENDING


def test_a_queued_run_no_worker_takes_is_given_up_with_its_own_reason():
    run = _run(recoveries=settings.DEBATE_MAX_RECOVERIES)
    report = contradiction_running.recover_stuck_contradiction_runs(
        now=timezone.now() + LATER_THAN_QUEUED
    )
    assert report.gave_up == [str(run.id)]
    run.refresh_from_db()
    assert "no worker took the contradiction run within" in run.error
    assert run.review_items.get().reason == "run_failed"


def test_a_run_whose_worker_died_too_often_is_failed_not_started_again():
    run = _run(status=ContradictionRun.Status.RUNNING, attempts=settings.DEBATE_MAX_ATTEMPTS)
    with mock.patch.object(gateway, "acomplete") as llm:
        assert contradiction_running.contradiction_run_execute(run_id=run.id) is None
    llm.assert_not_called()
    run.refresh_from_db()
    assert run.status == ContradictionRun.Status.FAILED
    assert f"Gave up after {settings.DEBATE_MAX_ATTEMPTS} attempts" in run.error
    assert run.review_items.get().reason == "run_failed"


def test_a_failed_arbitration_queues_the_run_for_review_and_an_analyst_reruns_it(
    staff, django_capture_on_commit_callbacks
):
    run = services.contradiction_run_create(reports=reports_of("multi_way"), enqueue=False)
    broken = ScriptedArbitrator(exc=LLMError("x: unknown model", permanent=True), fail_after=0)
    with mock.patch.object(gateway, "acomplete", broken):
        contradiction_running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()
    assert (run.status, run.error) == (
        "failed",
        "The arbitrator's model failed (permanent): x: unknown model",
    )
    item = run.review_items.get()
    assert item.details == {"error": run.error, "attempts": 1, "recoveries": 0}

    with mock.patch("contradictions.tasks.run_contradictions.delay") as enqueue:
        with django_capture_on_commit_callbacks(execute=True):
            done = reviews.review_rerun(item_id=item.pk, user=staff, note="model name fixed")
    enqueue.assert_called_once_with(str(run.id))
    assert (done.status, done.verdict, done.note) == ("resolved", "rerun", "model name fixed")
    run.refresh_from_db()
    assert (run.status, run.attempts, run.recoveries, run.error) == ("queued", 0, 0, "")
    assert run.review_status == ContradictionRun.ReviewStatus.RESOLVED

    healthy = ScriptedArbitrator()
    with mock.patch.object(gateway, "acomplete", healthy):
        contradiction_running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()
    assert run.status == "completed" and run.resolved_count == 1
    assert len(healthy.calls) == 1
    assert ArbitrationCall.objects.filter(run=run, status="done").count() == 1


def test_a_failed_run_has_no_decision_to_set_and_can_be_dismissed(staff):
    run = _run(recoveries=settings.DEBATE_MAX_RECOVERIES)
    contradiction_running.recover_stuck_contradiction_runs(now=timezone.now() + LATER_THAN_QUEUED)
    item = run.review_items.get()
    with pytest.raises(ValidationError, match="no decision to uphold or override"):
        reviews.review_resolve(
            item_id=item.pk, user=staff, verdict="override", decision="ACT", note="x"
        )
    with pytest.raises(ValidationError, match="re-run it, or dismiss the item"):
        reviews.review_keep(item_id=item.pk, user=staff, choice="use_both", note="x")
    reviews.review_dismiss(item_id=item.pk, user=staff, note="Reports were withdrawn.")
    run.refresh_from_db()
    assert (run.status, run.review_status) == ("failed", "dismissed")


def test_the_admins_retry_closes_the_runs_failure_item(admin_client, admin_user):
    run = _run(recoveries=settings.DEBATE_MAX_RECOVERIES)
    contradiction_running.recover_stuck_contradiction_runs(now=timezone.now() + LATER_THAN_QUEUED)
    with mock.patch("contradictions.tasks.run_contradictions.delay"):
        admin_client.post(
            "/admin/contradictions/contradictionrun/",
            {"action": "retry_failed", "_selected_action": [str(run.id)]},
        )
    item = run.review_items.get()
    assert (item.status, item.verdict, item.assignee) == ("resolved", "rerun", admin_user)
    assert ContradictionRun.objects.get(id=run.id).status == "queued"


def test_the_beat_task_sweeps_debates_and_runs_alike(
    default_agents, private_queue, redis_client, django_capture_on_commit_callbacks
):
    long_ago = timezone.now() - LATER_THAN_QUEUED
    run = _run()
    ContradictionRun.objects.filter(id=run.id).update(updated_at=long_ago)
    debate = debate_services.debate_create(query="Is it raining?", enqueue=False)
    Debate.objects.filter(id=debate.id).update(updated_at=long_ago)
    with django_capture_on_commit_callbacks(execute=True):
        outcome = recover_stuck_debates()  # what beat runs, called in-process
    assert outcome == (
        "debates: 1 re-enqueued, 0 given up, 0 still held by a live runner; "
        "contradiction_runs: 1 re-enqueued, 0 given up, 0 still held by a live runner; "
        "budget reservations released: 0"
    )
    assert sorted(m["task"] for m in _messages(redis_client, private_queue)) == [
        "contradictions.run",
        "debates.run_debate",
    ]
