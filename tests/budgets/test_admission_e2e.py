"""Admission, not attrition, end to end: debates with a token-dense question started over the API
all at once against a daily cost limit, run by a real Celery worker against a provider that
bills with a real tokenizer (`tests/support/fake_openai.py`). Those whose whole worst case fits
start and complete; the others are refused at once with 429 and nothing stored; what the
provider billed stays within the limit, and is what the counters hold."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.utils import timezone

from budgets.limits import DAY, period_key
from budgets.models import Counter, Hold, SpendingLimit
from debates.models import Debate, LLMCall
from tests.api.conftest import client_for
from tests.conftest import wait_for
from tests.factories import UserFactory
from tests.support.threads import at_once

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

QUESTION = "Is it a good idea to invest now? " + "🙂" * 1950  # under 2,000 characters
PRICES = {"input": 20, "output": 60}  # USD per million tokens
LIMIT = Decimal("7.00")  # the user's daily cost limit
PER_DEBATE = Decimal("2.00")  # a debate's own cost limit: its worst case
STARTS = 12


def _post_all(client_of, n: int) -> list:
    """`n` debates started at once, from as many threads (each its own connection)."""
    clients = [client_of() for _ in range(n)]
    body = {"question": QUESTION, "options": {"model": "openai/fake-model"}}
    return at_once(*[lambda c=c: c.post("/api/v1/debates/", body, format="json") for c in clients])


def test_debates_at_the_edge_of_a_cost_limit_either_start_and_complete_or_are_refused(
    worker_factory, fake_openai, default_agents, settings
):
    settings.BUDGET_MODEL_PRICES = {fake_openai.model: PRICES}
    settings.BUDGET_DEBATE_MAX_COST_USD = PER_DEBATE
    settings.BUDGET_DEBATE_MAX_TOKENS_PER_CALL = 150
    worker_factory(
        "edge",
        extra_env={
            **fake_openai.env(),
            "BUDGET_MODEL_PRICES": json.dumps({fake_openai.model: PRICES}),
        },
    )
    ana = UserFactory(username="ana")
    SpendingLimit.objects.create(scope="user", user=ana, daily_cost_usd=LIMIT)
    clients = iter([client_for(ana) for _ in range(STARTS)])

    answers = _post_all(lambda: next(clients), STARTS)

    started = [a.json()["id"] for a in answers if a.status_code == 202]
    refused = [a for a in answers if a.status_code == 429]
    ended = [wait_for(_finished(i), timeout=180) for i in started]
    _, _, billed = fake_openai.billed({"fake-model": (PRICES["input"], PRICES["output"])})
    counter = Counter.objects.get(key=f"user:{ana.pk}", period=period_key(DAY, timezone.now()))
    completed = [d for d in ended if d.status == Debate.Status.COMPLETED]
    print(
        f"\nlimit ${LIMIT}: {len(answers)} started at once, {len(refused)} refused, "
        f"{len(completed)} completed, {len(ended) - len(completed)} failed; billed ${billed:.4f}, "
        f"counted ${counter.used_cost_usd:.4f}"
    )

    assert len(started) + len(refused) == STARTS
    # Each was admitted for its own cost limit: as many as fit, no more.
    assert len(started) == int(LIMIT // PER_DEBATE)
    assert len(completed) == len(started), [d.error for d in ended]
    assert {r.json()["limit"] for r in refused} == {"user_daily_cost"}
    assert {r.json()["needed"] for r in refused} == {str(PER_DEBATE)}
    assert Debate.objects.count() == len(started)  # a refused one left nothing behind
    # Never past the limit, and counted as billed (to the counters' 8 decimals).
    assert billed <= LIMIT
    assert counter.used_cost_usd == billed.quantize(Decimal("1e-8"))
    assert sum(d.cost_usd for d in completed) == billed.quantize(Decimal("1e-6"))
    assert counter.reserved_cost_usd == 0 and not Hold.objects.exists()
    assert LLMCall.objects.filter(debate_id__in=started, status="done").count() == 12 * len(started)


def _finished(debate_id):
    def check():
        debate = Debate.objects.get(id=debate_id)
        return debate if debate.is_finished else None

    return check
