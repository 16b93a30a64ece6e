"""Debates against replies as real models send them: NULs, `<think>` blocks and reasoning
content, empty replies. Every protocol runs in-process through the real gateway and litellm to
a fake OpenAI-compatible server on 127.0.0.1 (`tests/support/fake_openai.py`), whose default
answers are the offline model's; the gateway is not patched."""

from __future__ import annotations

import pytest
from django.urls import reverse

from debates import running, services
from debates.models import Challenge, Debate, LLMCall, Statement
from reviews.models import ReviewItem
from tests.support.fake_openai import Reply

QUESTIONS = {
    "s4": "Is Bitcoin a good investment?",
    "moderated": "Should I learn Python or JavaScript first?",
    "moderated_extended": "Should I learn Python or JavaScript first?",
    "round_robin": "Should I invest in Tesla (TSLA) considering all factors?",
}


@pytest.fixture(autouse=True)
def quick_retries(settings):
    settings.DEBATE_LLM_RETRY_BASE_DELAY = 0.01
    settings.DEBATE_LLM_MAX_RETRIES = 3


def run_debate(server, protocol: str) -> Debate:
    debate = services.debate_create(
        query=QUESTIONS[protocol], protocol=protocol, options={"model": server.model}, enqueue=False
    )
    running.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    return debate


def clean_outcome(server, protocol: str) -> tuple[str, int]:
    """The decision and call count of the same debate with well-behaved replies."""
    plan, server.plan = server.plan, None
    try:
        debate = run_debate(server, protocol)
    finally:
        server.plan = plan
    assert debate.status == Debate.Status.COMPLETED, debate.error
    server.log.clear()
    return debate.decision, debate.llm_calls.count()


def shown_text(debate) -> str:
    """What the transcript shows of the agents' replies."""
    return " ".join(
        [s.reasoning for s in Statement.objects.filter(debate=debate)]
        + [c.argument for c in Challenge.objects.filter(debate=debate)]
    )


@pytest.mark.parametrize("protocol", list(QUESTIONS))
def test_replies_holding_nul_are_stored_and_the_debate_completes(
    default_agents, fake_openai, protocol
):
    decision, calls = clean_outcome(fake_openai, protocol)
    # Every reply holds NULs: as characters of the content, or escaped in the model's JSON.
    fake_openai.plan = lambda r: Reply.nul("character" if r.number % 2 else "json_escape")

    debate = run_debate(fake_openai, protocol)

    assert debate.status == Debate.Status.COMPLETED, debate.error
    assert (debate.decision, debate.llm_calls.count()) == (decision, calls)
    stored = list(LLMCall.objects.filter(debate=debate))
    assert {c.status for c in stored} == {LLMCall.Status.DONE}
    assert not any(c.parse_failed for c in stored)
    assert fake_openai.count() == calls and not fake_openai.repeated()
    # The raw replies are kept exactly as sent ...
    characters = [c for c in stored if c.raw_escaped]
    escapes = [c for c in stored if not c.raw_escaped]
    assert characters and escapes
    assert all("\x00NUL\x00" in c.raw_reply and "\\u0000" in c.raw_response for c in characters)
    assert all("\\u0000NUL\\u0000" in c.raw_reply for c in escapes)
    # ... and what the transcript shows was parsed from a cleaned copy.
    assert "\ufffdNUL\ufffd" in shown_text(debate)


@pytest.mark.parametrize("protocol", list(QUESTIONS))
def test_think_blocks_and_reasoning_content_are_kept_and_the_transcript_shows_the_answer(
    default_agents, fake_openai, admin_client, protocol
):
    decision, calls = clean_outcome(fake_openai, protocol)
    fake_openai.plan = lambda r: (
        Reply.think(f"Thinking step {r.number}.")
        if r.number % 2
        else Reply.reasoning(f"Reasoning step {r.number}.")
    )

    debate = run_debate(fake_openai, protocol)

    assert debate.status == Debate.Status.COMPLETED, debate.error
    assert (debate.decision, debate.llm_calls.count()) == (decision, calls)
    stored = list(LLMCall.objects.filter(debate=debate))
    thought = [c for c in stored if c.raw_response.startswith("<think>Thinking step ")]
    reasoned = [c for c in stored if c.reasoning_content.startswith("Reasoning step ")]
    assert len(thought) + len(reasoned) == calls and thought and reasoned
    assert all(c.reasoning_content in c.raw_response for c in thought)
    assert not any(c.parse_failed for c in stored)
    assert "<think>" not in shown_text(debate) and "step" not in shown_text(debate)

    page = admin_client.get(reverse("admin:debates_debate_change", args=[debate.id]))
    assert page.status_code == 200
    html = page.content.decode()
    assert f"&lt;think&gt;{thought[0].reasoning_content}&lt;/think&gt;" in html
    assert reasoned[0].reasoning_content in html


@pytest.mark.parametrize("protocol", list(QUESTIONS))
def test_an_empty_reply_is_retried_and_the_answer_stored(default_agents, fake_openai, protocol):
    decision, calls = clean_outcome(fake_openai, protocol)
    seen: set[str] = set()

    def empty_first(request):  # every call's first attempt comes back empty or blank
        if request.fingerprint in seen:
            return None
        seen.add(request.fingerprint)
        return Reply.empty(" \n" if request.number % 2 else "")

    fake_openai.plan = empty_first

    debate = run_debate(fake_openai, protocol)

    assert debate.status == Debate.Status.COMPLETED, debate.error
    assert (debate.decision, debate.llm_calls.count()) == (decision, calls)
    stored = list(LLMCall.objects.filter(debate=debate))
    assert {(c.status, c.attempts, c.parse_failed) for c in stored} == {("done", 2, False)}
    assert fake_openai.count(kind="empty") == calls and fake_openai.count() == 2 * calls


def test_a_model_that_only_sends_empty_replies_gets_the_fail_safe_after_its_attempts(
    default_agents, fake_openai, settings
):
    settings.DEBATE_LLM_MAX_RETRIES = 1
    fake_openai.plan = lambda r: (
        Reply.empty() if "You are the Safety Agent" in r.messages[0]["content"] else None
    )

    debate = run_debate(fake_openai, "s4")

    assert debate.status == Debate.Status.COMPLETED, debate.error
    safety = LLMCall.objects.filter(debate=debate, participant__slug="safety")
    assert {(c.attempts, c.parse_failed) for c in safety} == {(2, True)}
    assert debate.votes.get(participant__slug="safety").decision == "REFUSE"
    assert debate.decision != "ACT"
    assert ReviewItem.objects.filter(debate=debate, reason="parse_failure").exists()
    assert fake_openai.count(kind="empty") == 2 * safety.count()
