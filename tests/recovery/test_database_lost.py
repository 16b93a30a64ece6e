"""Debates go on when the worker's database sessions end (PostgreSQL restarted or failed over,
a session ended by an administrator or a pooler): between debates, the next debate connects
again before it starts; in the middle of one, the debate's task retries and the debate
resumes from what is stored, without waiting for the sweeper. Real worker processes, the real
PostgreSQL ending their real sessions."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection

from debates import services
from debates.models import Debate
from tests.conftest import wait_for
from tests.recovery import call_log
from tests.recovery.test_crash_and_lost_queue import (
    QUESTION,
    _assert_completed_like_an_uninterrupted_run,
    _finished,
    _stored_calls,
    _uninterrupted_outcome,
    wait_for_round_two_in_flight,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _worker_env(name: str, **extra: str) -> dict[str, str]:
    db = settings.DATABASES["default"]
    return {
        # The worker's sessions carry a name of their own, so the test ends only those.
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
        f"?application_name={name}",
        "DEBATE_TASK_RETRY_DELAY": "0.2",
        **extra,
    }


def _end_sessions(name: str) -> int:
    """End every database session of the worker named `name`, as a restart would, and wait
    until they are gone."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE application_name = %s",
            [name],
        )
        ended = cursor.fetchone()[0]

    def gone():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [name]
            )
            return cursor.fetchone()[0] == 0

    wait_for(gone, timeout=10, interval=0.05)
    return ended


def test_debates_after_the_workers_sessions_ended_connect_again_and_complete(
    worker_factory, default_agents, tmp_path
):
    name = f"lost-between-{tmp_path.name}"[:60]
    worker = worker_factory("between", extra_env=_worker_env(name, DEBATE_OFFLINE_LATENCY="0.02"))
    first = [services.debate_create(query=f"{QUESTION} ({i})") for i in range(2)]
    for debate in first:
        assert wait_for(_finished(debate.id), timeout=60).status == Debate.Status.COMPLETED
    # Their tasks ended too (a debate is stored as completed a moment before its task ends).
    wait_for(lambda: worker.log.read_text().count("succeeded in") == 2, timeout=10)

    assert _end_sessions(name) >= 1

    after = [services.debate_create(query=f"{QUESTION} (after {i})") for i in range(4)]
    for debate in after:
        done = wait_for(_finished(debate.id), timeout=60)
        assert done.status == Debate.Status.COMPLETED, done.error
        assert done.attempts == 1
    log = worker.log.read_text()
    # Each thread found its connection gone before its task began: no task failed or retried.
    assert "Retry in" not in log and "raised unexpected" not in log


def test_a_debate_whose_connection_is_lost_in_round_two_resumes_without_the_sweeper(
    worker_factory, default_agents, tmp_path
):
    expected = _uninterrupted_outcome()
    name = f"lost-during-{tmp_path.name}"[:60]
    calls = tmp_path / "during.calls"
    worker = worker_factory(
        "during",
        app="tests.recovery.call_log",
        extra_env=_worker_env(name, DEBATE_OFFLINE_LATENCY="0.4", DEBATE_CALL_LOG=str(calls)),
    )
    debate = services.debate_create(query=QUESTION)
    wait_for_round_two_in_flight(debate)
    # Round 2's six calls sent (round 1 made three): the calls made after this are the resume's.
    wait_for(
        lambda: sum(event == "start" for _, event, _ in call_log.read(calls)) >= 9,
        timeout=10,
        interval=0.01,
    )
    made_before = len(call_log.read(calls))
    assert _end_sessions(name) >= 1
    stored = _stored_calls(debate)

    done = _assert_completed_like_an_uninterrupted_run(
        debate, expected, stored, lambda: call_log.read(calls)[made_before:]
    )
    # Run again by its own task's retry (a second start), not brought back by the sweeper.
    assert (done.attempts, done.recoveries) == (2, 0)
    assert "Retry in" in worker.log.read_text()
