"""A reply holding NULs, through a real Celery worker process: the worker's gateway reaches the
fake OpenAI-compatible server the test runs on 127.0.0.1, through litellm."""

from __future__ import annotations

import pytest

from debates import services
from debates.models import Debate, LLMCall
from tests.conftest import wait_for
from tests.support.fake_openai import Reply

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_debate_whose_replies_hold_nul_completes_through_a_worker(
    default_agents, fake_openai, worker_factory
):
    worker_factory("nul", extra_env=fake_openai.env())
    fake_openai.plan = lambda r: Reply.nul("character" if r.number % 2 else "json_escape")

    debate = services.debate_create(
        query="Is Bitcoin a good investment?", options={"model": fake_openai.model}
    )
    done = wait_for(
        lambda: Debate.objects.filter(id=debate.id, status__in=["completed", "failed"]).first(),
        timeout=60,
    )

    assert done.status == Debate.Status.COMPLETED, done.error
    assert done.decision == "WARN"  # as with clean replies (README: split vote)
    calls = list(LLMCall.objects.filter(debate=done))
    assert len(calls) == 12 and {c.status for c in calls} == {"done"}
    assert sum("\x00NUL\x00" in c.raw_reply for c in calls) == 6
    assert fake_openai.count() == 12 and not fake_openai.repeated()
