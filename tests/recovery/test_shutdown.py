"""A worker shutting down (SIGTERM: a warm shutdown) hands its debates on: each stops after the
step it is in, with that step's replies stored, goes back to queued and is sent again; the next
run resumes it. The whole stack is checked in tests/test_production_smoke.py."""

from __future__ import annotations

import pytest

from debates import running, services
from debates.models import Debate, LLMCall
from runs import lifecycle
from tests.recovery.test_sweeper import _messages


@pytest.fixture
def shutdown():
    """`lifecycle.request_stop`, undone after the test (it is the process's own flag)."""
    yield lifecycle.request_stop
    lifecycle._stopping.clear()


def test_a_debate_stops_after_its_step_when_the_worker_shuts_down_and_resumes_later(
    default_agents, fake_openai, private_queue, redis_client, shutdown
):
    debate = services.debate_create(
        query="Is Bitcoin a good investment?", options={"model": fake_openai.model}, enqueue=False
    )

    def sigterm_during_the_first_step(request):
        if request.number == 1:
            shutdown()  # as the worker's SIGTERM handler does, while the calls are in flight

    fake_openai.plan = sigterm_during_the_first_step
    stopped = running.debate_run(debate_id=debate.id)

    assert stopped.status == Debate.Status.QUEUED
    calls = LLMCall.objects.filter(debate=debate)
    assert calls.count() == calls.filter(status=LLMCall.Status.DONE).count() == 3
    assert stopped.attempts == 0  # a clean stop is not a start that died
    assert _messages(redis_client, private_queue) == [
        {"task": "debates.run_debate", "args": [str(debate.id)], "kwargs": {}}
    ]

    lifecycle._stopping.clear()  # the next worker
    finished = running.debate_run(debate_id=debate.id)
    assert finished.status == Debate.Status.COMPLETED
    assert calls.count() == 12 and fake_openai.count() == 12
    assert not fake_openai.repeated()
