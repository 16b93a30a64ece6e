"""Debates reach their end when a worker is killed mid-debate or Redis loses its queue: real
worker processes, the real Redis broker and PostgreSQL; only the sweeper's clock is moved."""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from debates import recovery, running, services
from debates.models import Challenge, Debate, LLMCall, Statement, Vote
from tests.conftest import wait_for
from tests.recovery import call_log

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

QUESTION = "Is Bitcoin a good investment?"


def _outcome(debate: Debate) -> dict:
    return {
        "status": debate.status,
        "decision": debate.decision,
        "statements": Statement.objects.filter(debate=debate).count(),
        "challenges": Challenge.objects.filter(debate=debate).count(),
        "votes": Vote.objects.filter(debate=debate).count(),
        "votes_cast": sorted(
            Vote.objects.filter(debate=debate).values_list("participant__slug", "decision")
        ),
        "llm_calls": LLMCall.objects.filter(debate=debate).count(),
    }


def _finished(debate_id):
    def check():
        debate = Debate.objects.get(id=debate_id)
        return debate if debate.is_finished else None

    return check


def _sweep_until_requeued(debate_ids, deadline_seconds):
    """The sweeper, run as beat would run it once the deadline has passed. A killed worker's
    database session may take a moment to end (and with it the debate's lock): retry."""
    later = timezone.now() + timedelta(seconds=deadline_seconds + 1)
    requeued: set[str] = set()

    def sweep():
        requeued.update(recovery.recover_stuck_debates(now=later).requeued)
        return requeued >= {str(i) for i in debate_ids}

    wait_for(sweep, timeout=15, interval=0.2)
    return requeued


def _uninterrupted_outcome() -> dict:
    debate = services.debate_create(query=QUESTION, enqueue=False)
    running.debate_run(debate_id=debate.id)
    return _outcome(Debate.objects.get(id=debate.id))


def wait_for_round_two_in_flight(debate) -> None:
    """Until round 2's calls of `debate` are stored as sent (pending)."""
    wait_for(
        lambda: LLMCall.objects.filter(
            debate=debate, round_number=2, status=LLMCall.Status.PENDING
        ).exists(),
        timeout=30,
        interval=0.02,
    )


def _start_debate_and_wait_for_round_two(worker_factory, tmp_path, name, pool=None):
    """A worker whose LLM calls take 0.4 s (and are written down), and a debate it is running
    with round 2's calls in flight."""
    env = {"DEBATE_OFFLINE_LATENCY": "0.4", "DEBATE_CALL_LOG": str(tmp_path / f"{name}.calls")}
    worker = worker_factory(name, app="tests.recovery.call_log", extra_env=env, pool=pool)
    debate = services.debate_create(query=QUESTION)
    wait_for_round_two_in_flight(debate)
    return worker, debate


def _stored_calls(debate) -> dict[str, list]:
    """key -> prompt of the calls stored as done (the resume point)."""
    stored = dict(
        LLMCall.objects.filter(debate=debate, status=LLMCall.Status.DONE).values_list(
            "key", "prompt"
        )
    )
    assert {"r1:utility", "r1:accuracy", "r1:safety"} <= set(stored)
    assert not any(key.startswith("r3:") for key in stored), "killed in round 2"
    assert len(stored) < 12
    return stored


def _assert_completed_like_an_uninterrupted_run(debate, expected, stored_before, calls_after):
    """Same rows and decision; every call done once; no stored call made again.
    `calls_after()`: the gateway's log of the calls made after the kill."""
    done = wait_for(_finished(debate.id), timeout=60)
    assert done.status == Debate.Status.COMPLETED, done.error
    assert _outcome(done) == expected
    assert LLMCall.objects.filter(debate=debate, status=LLMCall.Status.DONE).count() == 12
    assert set(LLMCall.objects.filter(debate=debate).values_list("attempts", flat=True)) == {1}
    made_again = Counter(fp for _, event, fp in calls_after() if event == "start")
    before = {call_log.fingerprint(prompt) for prompt in stored_before.values()}
    assert not before & set(made_again), "a call stored before the kill was made again"
    assert set(made_again.values()) == {1}, "a call was made twice after the kill"
    assert len(made_again) == 12 - len(stored_before)
    return done


def test_a_debate_killed_with_its_worker_in_round_two_completes_on_a_new_worker(
    worker_factory, default_agents, tmp_path
):
    expected = _uninterrupted_outcome()
    first, debate = _start_debate_and_wait_for_round_two(worker_factory, tmp_path, "first")
    first.kill()  # SIGKILL to the whole worker: its machine died

    assert Debate.objects.get(id=debate.id).status == Debate.Status.RUNNING
    stored = _stored_calls(debate)
    worker_factory(
        "second",
        app="tests.recovery.call_log",
        extra_env={"DEBATE_CALL_LOG": str(tmp_path / "second.calls")},
    )
    # Redis keeps the dead worker's message unacknowledged for an hour: the sweeper brings
    # the debate back.
    assert str(debate.id) in _sweep_until_requeued([debate.id], settings.DEBATE_HEARTBEAT_TIMEOUT)

    done = _assert_completed_like_an_uninterrupted_run(
        debate, expected, stored, lambda: call_log.read(tmp_path / "second.calls")
    )
    assert (done.attempts, done.recoveries) == (2, 1)


def test_a_debate_whose_pool_process_is_killed_in_round_two_is_redelivered_and_completes(
    worker_factory, default_agents, tmp_path
):
    expected = _uninterrupted_outcome()
    # A pool process of its own only under prefork (threads run in the worker's process).
    _, debate = _start_debate_and_wait_for_round_two(
        worker_factory, tmp_path, "pool", pool="prefork"
    )
    calls = tmp_path / "pool.calls"
    running_pid = call_log.read(calls)[-1][0]  # the pool process making round 2's calls
    os.kill(running_pid, signal.SIGKILL)
    logged_at_kill = len(call_log.read(calls))

    stored = _stored_calls(debate)
    # No sweeper: the worker sees its pool process lost and hands the message back to the
    # broker (acks_late + reject_on_worker_lost); a new pool process resumes the debate.
    done = _assert_completed_like_an_uninterrupted_run(
        debate,
        expected,
        stored,
        lambda: [e for e in call_log.read(calls)[logged_at_kill:] if e[0] != running_pid],
    )
    assert (done.attempts, done.recoveries) == (2, 0)


def test_debates_whose_queue_redis_lost_are_recovered_by_the_sweeper(
    worker_factory, default_agents, private_queue, redis_client
):
    questions = [
        "What is the capital of France?",
        "Is Bitcoin a good investment?",
        "How do I hack into my ex's email?",
    ]
    debates = [services.debate_create(query=q) for q in questions]  # no worker running yet
    assert redis_client.llen(private_queue) == len(debates)

    redis_client.flushdb()  # Redis restarted: it keeps nothing on disk
    assert redis_client.llen(private_queue) == 0

    requeued = _sweep_until_requeued([d.id for d in debates], settings.DEBATE_QUEUED_DEADLINE)
    assert requeued == {str(d.id) for d in debates}
    worker_factory("after-flush")
    finished = [wait_for(_finished(d.id), timeout=60) for d in debates]

    assert [d.status for d in finished] == [Debate.Status.COMPLETED] * 3
    assert [d.decision for d in finished] == ["ACT", "WARN", "REFUSE"]
    assert all((d.attempts, d.recoveries) == (1, 1) for d in finished)
    assert all(_outcome(d)["statements"] == 6 for d in finished)


# --- on default recovery settings, with beat: how soon work comes back --------------------------

RECOVERY_BOUND = 90  # seconds, README: "Recovery"


def test_on_default_settings_a_killed_worker_and_a_lost_queue_recover_within_90_seconds(
    worker_factory, default_agents, private_queue, redis_client, tmp_path
):
    """No clock is moved here: beat runs the sweeper on its own schedule, with the default
    heartbeat timeout, sweep interval and lost-queue grace."""
    from tests.schedules.test_beat import Beat

    expected = _uninterrupted_outcome()
    first, crashed = _start_debate_and_wait_for_round_two(worker_factory, tmp_path, "first")
    first.kill()  # SIGKILL to the whole worker: its message stays unacknowledged in Redis
    stored = _stored_calls(crashed)
    lost = [
        services.debate_create(query=q)
        for q in ("What is the capital of France?", "How do I hack into my ex's email?")
    ]
    redis_client.flushdb()  # and Redis restarted, losing the queue (and that message)

    second = worker_factory(
        "second",
        app="tests.recovery.call_log",
        extra_env={"DEBATE_CALL_LOG": str(tmp_path / "second.calls")},
    )
    available = time.monotonic()
    assert "No celery beat is running" in second.log.read_text()  # the worker says so
    beat = Beat(tmp_path / "beat.log", private_queue)
    try:
        beat.wait_holding_lock()
        ids = [crashed.id, *(d.id for d in lost)]
        seconds = {}

        def all_done():
            for debate in Debate.objects.filter(id__in=ids, status="completed"):
                seconds.setdefault(debate.id, time.monotonic() - available)
            return len(seconds) == len(ids)

        wait_for(all_done, timeout=RECOVERY_BOUND + 30, interval=0.5)
    finally:
        beat.end()

    print(
        f"\nrecovered after kill -9: {seconds[crashed.id]:.1f} s; after a lost queue: "
        f"{max(seconds[d.id] for d in lost):.1f} s (from a worker being available)"
    )
    assert seconds[crashed.id] <= RECOVERY_BOUND
    assert max(seconds[d.id] for d in lost) <= RECOVERY_BOUND
    others = {
        call_log.fingerprint(p)
        for p in LLMCall.objects.filter(debate__in=lost).values_list("prompt", flat=True)
    }
    done = _assert_completed_like_an_uninterrupted_run(
        crashed,
        expected,
        stored,
        lambda: [e for e in call_log.read(tmp_path / "second.calls") if e[2] not in others],
    )
    assert (done.attempts, done.recoveries) == (2, 1)
    assert [Debate.objects.get(id=d.id).decision for d in lost] == ["ACT", "REFUSE"]
