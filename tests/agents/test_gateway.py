"""The LLM gateway: retries, typed errors and accounting. Only `litellm.acompletion` is
replaced; no network, no database."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest
from litellm.types.utils import Usage

from agents import gateway, litellm_loader
from agents.errors import LLMError
from agents.gateway import complete

MESSAGES = [{"role": "user", "content": "Reply with a JSON object."}]
REPLY = '{"decision": "ACT", "confidence": 80, "risk": 10, "reasoning": "fine"}'


@pytest.fixture
def litellm():
    return litellm_loader.get_litellm()


@pytest.fixture
def sleeps(monkeypatch):
    """Record retry delays instead of waiting."""
    delays: list[float] = []

    async def pause(seconds):
        delays.append(seconds)

    monkeypatch.setattr(gateway, "_pause", pause)
    return delays


@pytest.fixture(autouse=True)
def retry_settings(settings):
    settings.DEBATE_LLM_RETRY_BASE_DELAY = 1.0
    settings.DEBATE_LLM_MAX_RETRIES = 3
    settings.DEBATE_LLM_TIMEOUT = 12.5


def model_response(litellm, model="gpt-4o-mini", prompt_tokens=120, completion_tokens=30):
    return litellm.ModelResponse(
        model=model,
        choices=[
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": REPLY},
            }
        ],
        usage=Usage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
        ),
    )


class FakeCompletion:
    """Plays `outcomes` in order, one per call: an exception is raised, anything else returned."""

    def __init__(self, *outcomes):
        self.outcomes = list(outcomes)
        self.calls: list[dict] = []

    async def __call__(self, **kwargs):
        self.calls.append(kwargs)
        outcome = self.outcomes.pop(0) if len(self.outcomes) > 1 else self.outcomes[0]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


def install(monkeypatch, litellm, fake: FakeCompletion) -> FakeCompletion:
    monkeypatch.setattr(litellm, "acompletion", fake)
    return fake


def rate_limit(litellm):
    return litellm.RateLimitError(message="slow down", llm_provider="openai", model="gpt-x")


def timeout(litellm):
    return litellm.Timeout(message="took too long", model="gpt-x", llm_provider="openai")


TRANSIENT = {
    "rate-limit": rate_limit,
    "timeout": timeout,
    "connection": lambda m: m.APIConnectionError(
        message="refused", llm_provider="openai", model="gpt-x"
    ),
    "server-error": lambda m: m.InternalServerError(
        message="oops", llm_provider="openai", model="gpt-x"
    ),
    "unavailable": lambda m: m.ServiceUnavailableError(
        message="down", llm_provider="openai", model="gpt-x"
    ),
}

PERMANENT = {
    "authentication": lambda m: m.AuthenticationError(
        message="bad key", llm_provider="openai", model="gpt-x"
    ),
    "bad-request": lambda m: m.BadRequestError(
        message="bad request", model="gpt-x", llm_provider="openai"
    ),
    "unexpected": lambda m: ValueError("something else broke"),
}


# --- retries ---


def test_rate_limited_twice_then_succeeds_on_the_third_attempt(monkeypatch, litellm, sleeps):
    fake = install(
        monkeypatch,
        litellm,
        FakeCompletion(rate_limit(litellm), rate_limit(litellm), model_response(litellm)),
    )

    response = complete(model="gpt-4o-mini", messages=MESSAGES)

    assert response.content == REPLY
    assert response.attempts == 3
    assert len(fake.calls) == 3
    assert len(sleeps) == 2
    # base 1.0 s doubling per attempt, with jitter of 50-100 %.
    assert 0.5 <= sleeps[0] < 1.0
    assert 1.0 <= sleeps[1] < 2.0


@pytest.mark.parametrize("make_error", TRANSIENT.values(), ids=TRANSIENT.keys())
def test_transient_errors_are_retried(monkeypatch, litellm, sleeps, make_error):
    install(monkeypatch, litellm, FakeCompletion(make_error(litellm), model_response(litellm)))

    response = complete(model="gpt-4o-mini", messages=MESSAGES)

    assert response.attempts == 2
    assert len(sleeps) == 1


@pytest.mark.parametrize("max_retries", [0, 2])
def test_persistent_timeout_gives_a_transient_error_after_max_retries(
    monkeypatch, litellm, sleeps, max_retries
):
    fake = install(monkeypatch, litellm, FakeCompletion(timeout(litellm)))

    with pytest.raises(LLMError) as caught:
        complete(model="gpt-x", messages=MESSAGES, max_retries=max_retries)

    assert caught.value.permanent is False
    assert caught.value.attempts == max_retries + 1
    assert len(fake.calls) == max_retries + 1
    assert len(sleeps) == max_retries
    assert sleeps == sorted(sleeps)
    assert isinstance(caught.value.__cause__, litellm.Timeout)


def test_retry_count_defaults_to_the_setting(monkeypatch, litellm, sleeps, settings):
    settings.DEBATE_LLM_MAX_RETRIES = 4
    fake = install(monkeypatch, litellm, FakeCompletion(timeout(litellm)))

    with pytest.raises(LLMError) as caught:
        complete(model="gpt-x", messages=MESSAGES)

    assert caught.value.attempts == 5
    assert len(fake.calls) == 5


def test_backoff_delay_is_capped_at_thirty_seconds(monkeypatch, litellm, sleeps, settings):
    settings.DEBATE_LLM_RETRY_BASE_DELAY = 10.0
    install(monkeypatch, litellm, FakeCompletion(rate_limit(litellm)))

    with pytest.raises(LLMError):
        complete(model="gpt-x", messages=MESSAGES, max_retries=5)

    assert len(sleeps) == 5
    assert max(sleeps) < 30.0
    assert all(delay >= 5.0 for delay in sleeps)


@pytest.mark.parametrize("make_error", PERMANENT.values(), ids=PERMANENT.keys())
def test_permanent_errors_fail_at_once_without_retry(monkeypatch, litellm, sleeps, make_error):
    fake = install(monkeypatch, litellm, FakeCompletion(make_error(litellm), REPLY))

    with pytest.raises(LLMError) as caught:
        complete(model="gpt-x", messages=MESSAGES)

    assert caught.value.permanent is True
    assert caught.value.attempts == 1
    assert len(fake.calls) == 1
    assert sleeps == []
    assert str(caught.value).startswith("gpt-x: ")


# --- what is sent and what is recorded ---


def test_call_asks_for_json_with_the_timeout_and_no_litellm_retries(monkeypatch, litellm):
    fake = install(monkeypatch, litellm, FakeCompletion(model_response(litellm)))

    complete(model="gpt-4o-mini", messages=MESSAGES, temperature=0.7)

    (call,) = fake.calls
    assert call["model"] == "gpt-4o-mini"
    assert call["messages"] == MESSAGES
    assert call["temperature"] == 0.7
    assert call["timeout"] == 12.5
    assert call["response_format"] == {"type": "json_object"}
    assert call["num_retries"] == 0


def test_tokens_cost_and_latency_are_recorded(monkeypatch, litellm):
    async def slow_completion(**kwargs):
        await asyncio.sleep(0.05)
        return model_response(litellm, prompt_tokens=321, completion_tokens=45)

    monkeypatch.setattr(litellm, "acompletion", slow_completion)

    response = complete(model="gpt-4o-mini", messages=MESSAGES)

    assert (response.tokens_in, response.tokens_out) == (321, 45)
    assert response.latency_ms >= 50
    assert response.cost_usd > 0
    assert isinstance(response.cost_usd, Decimal)


def test_unknown_model_costs_zero_instead_of_failing(monkeypatch, litellm):
    model = "openai/no-such-model-in-the-cost-map"
    install(monkeypatch, litellm, FakeCompletion(model_response(litellm, model=model)))

    response = complete(model=model, messages=MESSAGES)

    assert response.cost_usd == Decimal(0)
    assert response.content == REPLY
    assert response.tokens_in == 120


class _Died(BaseException):
    pass


def test_concurrent_calls_hand_over_every_reply_and_report_failures(monkeypatch):
    async def fake_complete(target, *, messages, **kwargs):
        if target.name == "broken":
            raise LLMError("broken: down", permanent=True, attempts=1)
        return gateway.LLMResponse(target.name, messages[0]["content"], 1, 1, 0, 1, 1)

    monkeypatch.setattr(gateway, "_complete", fake_complete)
    handed, failed = [], []
    errors = gateway.complete_concurrently(
        {
            k: {"model": m, "messages": [{"role": "user", "content": k}]}
            for k, m in [("a", "ok"), ("b", "broken"), ("c", "ok")]
        },
        max_workers=3,
        on_returned=lambda answered: handed.extend(k for k, _ in answered),
        on_failed=lambda key, exc: failed.append(key),
    )
    assert sorted(handed) == ["a", "c"]
    assert failed == ["b"]
    assert [str(e) for e in errors] == ["broken: down"]


def test_a_fatal_error_is_raised_after_the_replies_that_returned_with_it(monkeypatch):
    async def fake_complete(target, *, messages, **kwargs):
        if target.name == "dies":
            raise _Died()
        return gateway.LLMResponse(target.name, "{}", 1, 1, 0, 1, 1)

    monkeypatch.setattr(gateway, "_complete", fake_complete)
    handed = []
    with pytest.raises(_Died):
        gateway.complete_concurrently(
            {"a": {"model": "ok", "messages": []}, "b": {"model": "dies", "messages": []}},
            max_workers=1,
            on_returned=lambda answered: handed.extend(k for k, _ in answered),
            on_failed=lambda key, exc: None,
        )
    assert handed == ["a"]
