"""Cost limits with a priced model: the fake OpenAI-compatible server, reached through the real
gateway, priced by BUDGET_MODEL_PRICES; the debate runs in-process."""

from __future__ import annotations

from decimal import Decimal

import pytest

from budgets.models import Charge, Counter, Hold, Usage
from debates import running, services
from debates.models import Debate, LLMCall
from reviews import services as reviews
from tests.factories import StaffFactory, UserFactory

QUESTION = "Is Bitcoin a good investment?"
PRICE_IN, PRICE_OUT = Decimal("0.0001"), Decimal("0.0003")  # USD per token


@pytest.fixture
def priced(fake_openai, settings):
    settings.BUDGET_MODEL_PRICES = {fake_openai.model: {"input": 100, "output": 300}}
    settings.BUDGET_DEBATE_MAX_TOKENS_PER_CALL = 300
    settings.DEBATE_LLM_RETRY_BASE_DELAY = 0.01
    return fake_openai


def test_a_debate_stops_at_its_cost_limit_and_resumes_when_it_is_raised(
    priced, default_agents, settings, django_capture_on_commit_callbacks
):
    settings.BUDGET_DEBATE_MAX_COST_USD = Decimal("0.50")
    ana = UserFactory(username="ana")
    debate = services.debate_create(
        query=QUESTION, options={"model": priced.model}, created_by=ana, enqueue=False
    )
    running.debate_run(debate_id=debate.id)
    debate.refresh_from_db()

    assert debate.status == Debate.Status.FAILED
    assert "the cost limit of one debate (debate_cost) is $0.5000" in debate.error
    assert debate.review_items.get().reason == "budget_exceeded"
    paid = list(LLMCall.objects.filter(debate=debate, status=LLMCall.Status.DONE))
    assert paid and len(paid) < 12
    for call in paid:  # priced by the table, from the tokens the server reported
        assert call.cost_usd == call.tokens_in * PRICE_IN + call.tokens_out * PRICE_OUT > 0
    assert sum(c.cost_usd for c in paid) <= Decimal("0.50")
    # Refused calls were never sent; every call sent asked for at most 300 tokens of reply.
    assert priced.count() == len(paid)
    assert {r.body.get("max_tokens") for r in priced.requests()} == {300}
    usage = Usage.objects.get(user=ana)
    assert (usage.model, usage.calls) == (priced.model, len(paid))
    assert usage.cost_usd == sum(c.cost_usd for c in paid)

    Charge.objects.filter(subject=f"debate:{debate.id}").update(max_cost_usd=Decimal("10"))
    item = debate.review_items.get()
    with django_capture_on_commit_callbacks(execute=False):
        reviews.review_rerun(item_id=item.pk, user=StaffFactory(), note="Raised its limit.")
    running.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    assert debate.status == Debate.Status.COMPLETED, debate.error
    assert priced.count() == 12 and not priced.repeated()  # no call paid for twice
    assert debate.cost_usd == Counter.objects.get(key=f"debate:{debate.id}").used_cost_usd


def test_a_debate_stops_at_its_call_limit(priced, default_agents, settings):
    settings.BUDGET_DEBATE_MAX_CALLS = 4
    debate = services.debate_create(query=QUESTION, options={"model": priced.model}, enqueue=False)
    running.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    assert debate.status == Debate.Status.FAILED
    assert "the call limit of one debate (debate_calls) is 4 calls" in debate.error
    assert priced.count() == 4
    assert LLMCall.objects.filter(debate=debate, status=LLMCall.Status.DONE).count() == 4


def test_a_resumed_step_reserves_only_the_calls_not_made_yet(
    priced, default_agents, settings, django_capture_on_commit_callbacks
):
    settings.BUDGET_DEBATE_MAX_CALLS = 5  # the first step's calls, and part of the second's
    debate = services.debate_create(query=QUESTION, options={"model": priced.model}, enqueue=False)
    running.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    assert debate.status == Debate.Status.FAILED
    assert LLMCall.objects.filter(debate=debate, status=LLMCall.Status.DONE).count() == 5

    # Exactly the 12 calls of the debate: the resumed step must not reserve the calls of it an
    # earlier run made, or the last step would find no room.
    Charge.objects.filter(subject=f"debate:{debate.id}").update(max_calls=12)
    with django_capture_on_commit_callbacks(execute=False):
        reviews.review_rerun(
            item_id=debate.review_items.get().pk, user=StaffFactory(), note="Raised."
        )
    running.debate_run(debate_id=debate.id)
    debate.refresh_from_db()
    assert debate.status == Debate.Status.COMPLETED, debate.error
    assert priced.count() == 12 and not priced.repeated()
    counter = Counter.objects.get(key=f"debate:{debate.id}")
    assert (counter.used_calls, counter.reserved_calls) == (12, 0)
    assert not Hold.objects.exists()
