"""Giving up and re-running, with real worker processes, the real Redis broker and PostgreSQL;
only the sweeper's clock is moved. A debate whose worker died and that the sweeper gave up on,
and contradiction runs whose queue Redis lost, all reach their end."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from contradictions import running as contradiction_running
from contradictions import services as contradiction_services
from contradictions.models import ContradictionRun
from debates import recovery
from debates.models import Debate
from reviews.models import ReviewItem
from tests.api.conftest import client_for
from tests.conftest import wait_for
from tests.contradictions.conftest import reports_of
from tests.factories import with_roles
from tests.recovery import call_log
from tests.recovery.test_crash_and_lost_queue import (
    _assert_completed_like_an_uninterrupted_run,
    _start_debate_and_wait_for_round_two,
    _stored_calls,
    _uninterrupted_outcome,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def analyst_api(django_user_model):
    analyst = with_roles(
        django_user_model.objects.create_user("rita", password="a-long-passphrase", is_staff=True)
    )
    return client_for(analyst)


def _sweep_until(outcome: str, ids, sweep, deadline_seconds) -> set[str]:
    """Run the sweeper as beat would once the deadline has passed, until every id came out as
    `outcome` (a killed worker's session may take a moment to end, and its lock with it)."""
    later = timezone.now() + timedelta(seconds=deadline_seconds + 1)
    seen: set[str] = set()

    def swept():
        seen.update(getattr(sweep(now=later), outcome))
        return seen >= {str(i) for i in ids}

    wait_for(swept, timeout=15, interval=0.2)
    return seen


def test_a_debate_given_up_after_its_worker_died_is_rerun_by_an_analyst_and_completes(
    worker_factory, default_agents, tmp_path, analyst_api
):
    expected = _uninterrupted_outcome()
    first, debate = _start_debate_and_wait_for_round_two(worker_factory, tmp_path, "first")
    first.kill()
    stored = _stored_calls(debate)

    # The sweeper has re-enqueued it as often as it may: this time it gives up.
    Debate.objects.filter(id=debate.id).update(recoveries=settings.DEBATE_MAX_RECOVERIES)
    _sweep_until(
        "gave_up", [debate.id], recovery.recover_stuck_debates, settings.DEBATE_HEARTBEAT_TIMEOUT
    )
    debate.refresh_from_db()
    assert debate.status == Debate.Status.FAILED
    item = ReviewItem.objects.get(debate=debate, status="open")
    assert item.reason == "debate_failed" and "worker running the debate was lost" in item.summary

    worker_factory(
        "second",
        app="tests.recovery.call_log",
        extra_env={"DEBATE_CALL_LOG": str(tmp_path / "second.calls")},
    )
    response = analyst_api.post(
        f"/api/v1/reviews/{item.pk}/rerun/", {"note": "The worker machine is back."}, format="json"
    )
    assert response.status_code == 200, response.content
    assert (response.json()["verdict"], response.json()["debate"]["status"]) == ("rerun", "queued")

    done = _assert_completed_like_an_uninterrupted_run(
        debate, expected, stored, lambda: call_log.read(tmp_path / "second.calls")
    )
    assert (done.attempts, done.recoveries) == (1, 0)
    assert done.review_items.get(reason="debate_failed").verdict == "rerun"


def test_contradiction_runs_whose_queue_redis_lost_reach_their_end(
    worker_factory, sources, private_queue, redis_client, analyst_api
):
    lost = [
        contradiction_services.contradiction_run_create(reports=reports_of(name))
        for name in ("simple", "both_valid")
    ]
    hopeless = contradiction_services.contradiction_run_create(reports=reports_of("multi_way"))
    ContradictionRun.objects.filter(id=hopeless.id).update(
        recoveries=settings.DEBATE_MAX_RECOVERIES
    )
    assert redis_client.llen(private_queue) == 3
    redis_client.flushdb()  # Redis restarted: it keeps nothing on disk

    sweep = contradiction_running.recover_stuck_contradiction_runs
    assert _sweep_until(
        "requeued", [r.id for r in lost], sweep, settings.DEBATE_QUEUED_DEADLINE
    ) == {str(r.id) for r in lost}
    hopeless.refresh_from_db()
    assert hopeless.status == ContradictionRun.Status.FAILED
    assert "no worker took the contradiction run" in hopeless.error
    item = ReviewItem.objects.get(contradiction_run=hopeless, reason="run_failed")

    worker_factory("after-flush")
    finished = [
        wait_for(
            lambda r=r: ContradictionRun.objects.filter(id=r.id, status="completed").first(),
            timeout=60,
        )
        for r in lost
    ]
    assert [(r.resolved_count, r.recoveries, r.attempts) for r in finished] == [(1, 1, 1)] * 2

    # An analyst re-runs the run the sweeper gave up on; the same worker completes it.
    response = analyst_api.post(f"/api/v1/reviews/{item.pk}/rerun/", {}, format="json")
    assert response.status_code == 200, response.content
    # Queued again; the worker, already running, may have taken it by the time the answer is
    # written.
    assert response.json()["contradiction_run"]["status"] in ("queued", "running", "completed")
    rerun = wait_for(
        lambda: ContradictionRun.objects.filter(id=hopeless.id, status="completed").first(),
        timeout=60,
    )
    assert (rerun.resolved_count, rerun.attempts, rerun.recoveries) == (1, 1, 0)
    assert rerun.review_status == ContradictionRun.ReviewStatus.RESOLVED
