"""Routing through a real Celery worker: two model groups on two fake OpenAI-compatible servers,
each call recorded with the deployment that answered, a failed deployment falling back."""

from __future__ import annotations

import json

import pytest

from debates import selectors, services
from debates.models import Debate, LLMCall
from tests.conftest import wait_for
from tests.support.fake_openai import FakeOpenAI, Reply

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def cheap_server():
    with FakeOpenAI(model_name="fake-cheap") as server:
        yield server


def test_a_debate_routes_challenges_to_the_cheap_group_and_falls_back_on_a_503(
    default_agents,
    fake_openai,
    cheap_server,
    worker_factory,
    settings,
):
    groups = {
        "reasoning": [
            {
                "name": "primary",
                "model": fake_openai.model,
                "api_base": fake_openai.api_base,
                "api_key": "sk-fake",
            },
            {
                "name": "backup",
                "model": cheap_server.model,
                "api_base": cheap_server.api_base,
                "api_key": "sk-fake",
            },
        ],
        "cheap": [
            {
                "name": "budget",
                "model": cheap_server.model,
                "api_base": cheap_server.api_base,
                "api_key": "sk-fake",
            }
        ],
    }
    settings.DEBATE_MODEL_GROUPS = groups
    worker_factory(
        "routing",
        extra_env={
            "DEBATE_MODEL_GROUPS": json.dumps(groups),
            "DEBATE_LLM_RETRY_BASE_DELAY": "0.01",
        },
    )
    fake_openai.script(Reply.error(503))  # one reasoning call: primary fails, backup answers

    debate = services.debate_create(query="Is Bitcoin a good investment?")
    done = wait_for(
        lambda: Debate.objects.filter(id=debate.id, status__in=["completed", "failed"]).first(),
        timeout=60,
    )

    assert done.status == Debate.Status.COMPLETED, done.error
    assert done.decision == "WARN"  # the same debate as with the offline model (README)
    calls = list(LLMCall.objects.filter(debate=done))
    by_step = {}
    for call in calls:
        by_step.setdefault(call.step, []).append((call.deployment, call.model))
    assert sorted(by_step["challenge"]) == [("budget", cheap_server.model)] * 6
    others = sorted(by_step["analysis"] + by_step["revision"])
    assert others == sorted([("backup", cheap_server.model)] + [("primary", fake_openai.model)] * 5)
    assert [r.status for r in fake_openai.log].count(503) == 1
    assert fake_openai.count(status=200) == 5 and cheap_server.count(status=200) == 7
    assert all(c.attempts == 1 for c in calls)  # the fallback happened within one attempt
    assert not fake_openai.repeated() and not cheap_server.repeated()
    export = selectors.debate_export(selectors.debate_detail_queryset().get(id=done.id))
    assert export["models"] == [cheap_server.model, fake_openai.model]
    assert export["deployments"] == ["backup", "budget", "primary"]
