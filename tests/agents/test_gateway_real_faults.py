"""The gateway against replies as hosted models send them: the real gateway and litellm over
HTTP to a fake OpenAI-compatible server on 127.0.0.1 (`tests/support/fake_openai.py`). Nothing
in the gateway is patched; no database."""

from __future__ import annotations

import json
import threading
import time

import pytest

from agents import pg_text
from agents.errors import LLMError
from agents.gateway import complete
from tests.conftest import wait_for
from tests.support.fake_openai import FAULTS, FaultPlan, Reply

MESSAGES = [{"role": "user", "content": "<step>analysis</step> Reply with a JSON object."}]
ANSWER = '{"decision": "ACT", "confidence": 80, "risk": 10, "reasoning": "Paris is the capital."}'


@pytest.fixture(autouse=True)
def quick_retries(settings):
    settings.DEBATE_LLM_RETRY_BASE_DELAY = 0.01
    settings.DEBATE_LLM_MAX_RETRIES = 3
    settings.DEBATE_LLM_TIMEOUT = 5


def ask(server, **kwargs):
    return complete(model=server.model, messages=MESSAGES, **kwargs)


def test_rate_limits_server_errors_malformed_bodies_and_timeouts_are_retried(fake_openai):
    fake_openai.script(
        Reply.error(429),
        Reply.error(500),
        Reply.error(503),
        Reply.malformed(),
        Reply.slow(3),
        Reply.ok(ANSWER),
    )

    response = ask(fake_openai, max_retries=5, timeout=0.5)

    assert response.content == ANSWER and response.attempts == 6
    assert [r.kind for r in fake_openai.requests()] == [
        "http_429",
        "http_500",
        "http_503",
        "malformed",
        "slow",
        "ok",
    ]
    assert fake_openai.requests()[0].messages == MESSAGES


def test_a_call_gives_up_after_its_bounded_attempts(fake_openai):
    fake_openai.script(*[Reply.error(503)] * 5)

    with pytest.raises(LLMError) as failed:
        ask(fake_openai, max_retries=3)

    assert (failed.value.permanent, failed.value.attempts) == (False, 4)
    assert fake_openai.count() == 4  # litellm's own client does not retry behind our back


def test_a_rejected_key_is_permanent_and_not_retried(fake_openai):
    fake_openai.script(Reply.error(401, "Incorrect API key provided"))

    with pytest.raises(LLMError) as failed:
        ask(fake_openai)

    assert failed.value.permanent and "Incorrect API key" in str(failed.value)
    assert fake_openai.count() == 1


@pytest.mark.parametrize("blank", ["", "   \n\t", "<think>Hmm.</think>  "])
def test_an_empty_reply_is_retried_and_every_attempt_is_accounted(fake_openai, blank):
    fake_openai.script(Reply.empty(blank), Reply.empty(blank), Reply.ok(ANSWER))

    response = ask(fake_openai)

    assert response.content == ANSWER and response.attempts == 3
    assert fake_openai.count(kind="empty") == 2 and fake_openai.count() == 3
    # Tokens of the empty replies were paid for too: each prompt as the server billed it.
    billed = [r.prompt_tokens for r in fake_openai.requests()]
    assert billed[0] > 0 and response.tokens_in == sum(billed) == 3 * billed[0]


def test_empty_on_every_attempt_returns_the_empty_reply_for_the_fail_safe(fake_openai):
    fake_openai.script(*[Reply.empty()] * 4)

    response = ask(fake_openai, max_retries=3)

    assert (response.content, response.attempts, fake_openai.count()) == ("", 4, 4)


def test_a_think_block_is_kept_raw_while_the_service_reads_the_answer(fake_openai):
    fake_openai.script(Reply.think("The user wants a capital. Paris.", content=ANSWER))

    response = ask(fake_openai)

    assert response.content == ANSWER  # litellm removed the block
    assert response.raw_content == f"<think>The user wants a capital. Paris.</think>{ANSWER}"
    assert response.reasoning_content == "The user wants a capital. Paris."


def test_reasoning_content_sent_beside_the_reply_is_kept(fake_openai):
    fake_openai.script(Reply.reasoning("Check the atlas first.", content=ANSWER))

    response = ask(fake_openai)

    assert (response.content, response.raw_content) == (ANSWER, ANSWER)
    assert response.reasoning_content == "Check the atlas first."


def test_nul_in_either_form_is_kept_raw_and_cleaned_in_the_copy_parsers_read(fake_openai):
    fake_openai.script(Reply.nul("character"), Reply.nul("json_escape"))

    character, json_escape = ask(fake_openai), ask(fake_openai)

    assert "\x00NUL\x00" in character.raw_content
    assert "\x00" not in character.content and "\ufffdNUL\ufffd" in character.content
    assert "\\u0000NUL\\u0000" in json_escape.raw_content
    assert "\\ufffdNUL\\ufffd" in json_escape.content
    assert "\x00" not in json.loads(json_escape.content)["reasoning"]


def test_a_raw_nul_byte_in_the_body_is_not_json_so_it_is_retried_like_a_malformed_one(
    fake_openai,
):
    fake_openai.script(Reply.nul("raw_byte"), Reply.ok(ANSWER))

    response = ask(fake_openai)

    assert response.content == ANSWER and response.attempts == 2
    assert [r.kind for r in fake_openai.requests()] == ["nul_raw_byte", "ok"]


def test_an_error_message_holding_a_nul_is_storable(fake_openai):
    fake_openai.script(Reply.error(400, "bad \x00 request"))

    with pytest.raises(LLMError) as failed:
        ask(fake_openai)

    assert not pg_text.has_refused(str(failed.value))


def test_under_a_fault_plan_every_call_is_answered_once(fake_openai):
    fake_openai.plan = FaultPlan(rate=0.3, seed=3)
    prompts = [
        [{"role": "user", "content": f"<step>analysis</step> question {i}"}] for i in range(20)
    ]

    answers = [complete(model=fake_openai.model, messages=m, max_retries=8) for m in prompts]

    assert all(a.content for a in answers)
    faults = fake_openai.count() - 20
    assert faults == sum(a.attempts - 1 for a in answers) and faults > 0
    assert {r.kind for r in fake_openai.requests()} <= set(FAULTS) | {"ok"}
    assert not fake_openai.repeated()


def test_a_held_reply_stays_in_flight_until_released(fake_openai):
    release = threading.Event()
    fake_openai.script(Reply.held(release, content=ANSWER))
    answers = []
    caller = threading.Thread(target=lambda: answers.append(ask(fake_openai)))
    caller.start()

    wait_for(lambda: fake_openai.count(kind="held") == 1, timeout=10)
    time.sleep(0.3)
    assert answers == [] and caller.is_alive()
    release.set()
    caller.join(timeout=10)

    assert [a.content for a in answers] == [ANSWER]


def test_a_priced_model_costs_what_litellm_priced_it_at_without_pricing_it_twice(
    monkeypatch, settings
):
    import litellm

    from tests.support.fake_openai import FakeOpenAI

    priced_again = []
    price = litellm.completion_cost

    def counted(*args, **kwargs):
        priced_again.append(kwargs)
        return price(*args, **kwargs)

    monkeypatch.setattr(litellm, "completion_cost", counted)
    with FakeOpenAI(model_name="gpt-4o-mini") as server:
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        settings.DEBATE_ALLOWED_MODELS = [*settings.DEBATE_ALLOWED_MODELS, server.model]
        response = ask(server)

    entry = litellm.model_cost["gpt-4o-mini"]
    expected = (
        response.tokens_in * entry["input_cost_per_token"]
        + response.tokens_out * entry["output_cost_per_token"]
    )
    assert response.tokens_in > 0 and response.tokens_out > 0
    assert float(response.cost_usd) == pytest.approx(expected, rel=1e-9)
    assert priced_again == []  # the figure litellm put on the reply, not a second pricing
