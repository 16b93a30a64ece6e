"""Providers' rate limits kept by every worker together, through Redis
(`agents.provider_limits`): a call past a deployment's `rpm` or `tpm` waits for its turn."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.exceptions import ImproperlyConfigured

from agents import provider_limits, routing
from debates import services
from debates.models import Debate
from tests.conftest import wait_for
from tests.support.fake_openai import FakeOpenAI


def _deployment(**limits) -> routing.Deployment:
    return routing.Deployment(
        id=f"test-{uuid.uuid4().hex[:8]}", group="g", params={"model": "m"}, **limits
    )


def test_a_deployments_limits_are_read_from_its_group_and_not_sent_to_the_model():
    config = routing.RoutingConfig(
        groups={"reasoning": [{"model": "openai/x", "rpm": 60, "tpm": 90_000}, "openai/y"]},
        routes={},
        fallbacks={},
        allowed=[],
        default_model="offline/heuristic-demo",
    )
    limited, plain = config.groups["reasoning"]
    assert (limited.rpm, limited.tpm, limited.params) == (60, 90_000, {"model": "openai/x"})
    assert (plain.rpm, plain.tpm) == (None, None)


@pytest.mark.parametrize("bad", [0, -5, 2.5, "60", True])
def test_a_limit_that_is_not_a_whole_number_above_0_is_refused_at_start_up(bad):
    with pytest.raises(ImproperlyConfigured, match="'rpm' must be a whole number above 0"):
        routing.RoutingConfig(
            groups={"cheap": {"model": "openai/x", "rpm": bad}},
            routes={},
            fallbacks={},
            allowed=[],
            default_model="offline/heuristic-demo",
        )


def _run(coroutine):
    """Run `coroutine` on an event loop of its own thread (the browser tests' Playwright may
    hold one on this thread)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def _times(deployment, calls: int, tokens: int = 1) -> list[float]:
    """When each of `calls` calls started at once got its place, in seconds from the start."""
    started = time.monotonic()

    async def one():
        async with provider_limits.held(deployment, tokens=tokens):
            return time.monotonic() - started

    return sorted(await asyncio.gather(*(one() for _ in range(calls))))


def test_calls_past_the_requests_limit_wait_for_the_window(settings, redis_client):
    settings.DEBATE_PROVIDER_LIMIT_WINDOW = 0.5
    times = _run(_times(_deployment(rpm=3), calls=7))
    assert max(times[:3]) < 0.4  # the first three at once
    assert 0.45 < min(times[3:6]) and max(times[3:6]) < 0.95  # the next three a window later
    assert times[6] > 0.95


def test_calls_past_the_tokens_limit_wait_and_what_a_reply_used_is_what_counts(
    settings, redis_client
):
    settings.DEBATE_PROVIDER_LIMIT_WINDOW = 0.5
    deployment = _deployment(tpm=100)
    times = _run(_times(deployment, calls=3, tokens=60))  # one fits at a time
    assert times[0] < 0.4 and 0.45 < times[1] < 0.95 and times[2] > 0.95

    async def used_less():
        async with provider_limits.held(deployment, tokens=90) as use:
            use.tokens = 10  # the reply's usage: 10 tokens, not the 90 estimated
        return await _times(deployment, calls=1, tokens=80)

    time.sleep(0.5)
    assert _run(used_less())[0] < 0.4


def test_a_deployment_without_limits_never_touches_redis(redis_client):
    deployment = _deployment()
    assert _run(_times(deployment, calls=20))[-1] < 0.2
    assert not redis_client.exists(*provider_limits.keys(deployment))


# --- two workers, one provider -------------------------------------------------------------------

LIMIT = 6  # requests per window the provider accepts
WINDOW = 1.0  # seconds
DEBATES = 20


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_two_workers_kept_to_a_providers_limit_get_no_429(default_agents, worker_factory, settings):
    with (
        FakeOpenAI(rate_limit=(LIMIT, WINDOW)) as limited,
        FakeOpenAI(rate_limit=(LIMIT, WINDOW)) as unlimited,
    ):
        groups = {
            "kept": {"model": "openai/fake-model", "api_base": limited.api_base, "rpm": LIMIT},
            "unkept": {"model": "openai/fake-model", "api_base": unlimited.api_base},
        }
        settings.DEBATE_MODEL_GROUPS = groups
        env = {
            "DEBATE_MODEL_GROUPS": json.dumps(groups),
            "DEBATE_PROVIDER_LIMIT_WINDOW": str(WINDOW),
            "OPENAI_API_KEY": "sk-fake-for-tests",
        }
        worker_factory("one", extra_env=env)
        worker_factory("two", extra_env=env)
        outcome = {}
        for group, server in (("unkept", unlimited), ("kept", limited)):
            started = time.monotonic()
            ids = [
                services.debate_create(
                    query=f"Is Bitcoin a good investment? ({group} {n})",
                    protocol="vote",
                    options={"model": group},
                ).id
                for n in range(DEBATES)
            ]
            ended = Debate.objects.filter(
                id__in=ids, status__in=[Debate.Status.COMPLETED, Debate.Status.FAILED]
            )
            wait_for(lambda: ended.count() == DEBATES, timeout=240, interval=0.5)  # noqa: B023
            outcome[group] = {
                "completed": ended.filter(status=Debate.Status.COMPLETED).count(),
                "requests": server.count(),
                "429": server.count(status=429),
                "seconds": round(time.monotonic() - started, 1),
            }
    print(f"{DEBATES} debates, provider limit {LIMIT} per {WINDOW:g} s:", outcome)
    assert outcome["kept"] == {
        "completed": DEBATES,
        "requests": 3 * DEBATES,
        "429": 0,
        "seconds": outcome["kept"]["seconds"],
    }
    assert outcome["unkept"]["429"] > 0  # the same load without the shared limit
