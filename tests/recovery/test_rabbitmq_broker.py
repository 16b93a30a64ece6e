"""Workers share nothing but PostgreSQL and the broker, and the broker may be RabbitMQ: two
real worker processes read one RabbitMQ queue; a worker killed mid-debate hands its debate
back to the other at once (RabbitMQ returns an unacknowledged message when its connection
drops), and the debate resumes without a stored call made again."""

from __future__ import annotations

import os
import time

import pytest
from celery import Celery

from debates import services
from debates.models import Debate, LLMCall
from tests.conftest import every_queue, wait_for
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

AMQP_URL = os.environ.get("TEST_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672//")


@pytest.fixture
def rabbitmq(private_queue):
    """A client of the RabbitMQ broker sending to the test's own queue (deleted after, with
    the queues named after it that its workers read)."""
    # Not the current app: the project's tasks keep sending through the configured broker.
    app = Celery("debates-rabbitmq-test", broker=AMQP_URL, set_as_current=False)
    app.conf.task_default_queue = private_queue
    with app.connection_for_write() as connection:
        connection.ensure_connection(max_retries=3)
    yield app
    with app.connection_for_write() as connection:
        for queue in every_queue(f"{private_queue}.", default=private_queue):
            connection.default_channel.queue_delete(queue)
    app.close()


def _enqueue(app, debate_id) -> None:
    app.send_task("debates.run_debate", args=[str(debate_id)])


def _worker(worker_factory, tmp_path, name, latency="0.05"):
    env = {
        "CELERY_BROKER_URL": AMQP_URL,
        "DEBATE_OFFLINE_LATENCY": latency,
        "DEBATE_CALL_LOG": str(tmp_path / f"{name}.calls"),
    }
    return worker_factory(name, app="tests.recovery.call_log", extra_env=env)


def test_two_worker_processes_on_one_rabbitmq_queue_run_each_debate_once(
    worker_factory, default_agents, tmp_path, rabbitmq
):
    workers = [_worker(worker_factory, tmp_path, f"rabbit{n}") for n in (1, 2)]
    debates = [services.debate_create(query=f"{QUESTION} ({n})", enqueue=False) for n in range(12)]
    for debate in debates:
        _enqueue(rabbitmq, debate.id)
    for debate in debates:
        done = wait_for(_finished(debate.id), timeout=90)
        assert done.status == Debate.Status.COMPLETED, done.error
        assert done.attempts == 1
    calls = LLMCall.objects.filter(debate__in=debates)
    assert calls.count() == 12 * len(debates)
    assert set(calls.values_list("attempts", flat=True)) == {1}
    # Both processes took debates (each call is logged by the process that made it), and
    # no call was made twice.
    made = [
        (pid, fp)
        for worker in workers
        for pid, event, fp in call_log.read(tmp_path / f"{worker.log.stem}.calls")
        if event == "start"
    ]
    assert len({pid for pid, _ in made}) == 2
    assert len(made) == len({fp for _, fp in made}) == 12 * len(debates)


def test_a_worker_killed_mid_debate_hands_it_to_the_other_through_rabbitmq(
    worker_factory, default_agents, tmp_path, rabbitmq
):
    expected = _uninterrupted_outcome()
    workers = {name: _worker(worker_factory, tmp_path, name, latency="0.4") for name in "ab"}
    debate = services.debate_create(query=QUESTION, enqueue=False)
    _enqueue(rabbitmq, debate.id)
    wait_for_round_two_in_flight(debate)
    running = next(name for name in "ab" if (tmp_path / f"{name}.calls").exists())
    other = "b" if running == "a" else "a"
    workers[running].kill()  # SIGKILL: its connection to RabbitMQ drops with it
    stored = _stored_calls(debate)
    started = time.monotonic()
    # No sweeper: RabbitMQ gives the unacknowledged message to the other worker.
    done = _assert_completed_like_an_uninterrupted_run(
        debate, expected, stored, lambda: call_log.read(tmp_path / f"{other}.calls")
    )
    assert time.monotonic() - started < 30
    assert done.attempts == 2
    assert workers[other].proc.poll() is None
