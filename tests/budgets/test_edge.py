"""Limits at their edge, under concurrency, against a provider that bills with a real tokenizer
(`tests/support/fake_openai.py`): calls with token-dense prompts (emoji, CJK, long numbers,
code) and replies that run to their `max_tokens`, from several threads at once (each with its
own PostgreSQL connection), against each kind of limit. What the provider billed never passes
the limit, and the counters hold exactly what it billed."""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest
from django.db import connection
from django.utils import timezone

from agents import gateway
from agents.errors import BudgetStop
from budgets.limits import COST, DAY, EVER, MONTH, TOKENS, Allowance, Spender, period_key
from budgets.models import Counter, Hold
from tests.agents.test_tokens import DENSE
from tests.support.fake_openai import Reply

pytestmark = pytest.mark.django_db(transaction=True)

# USD per million tokens in and out: dear, so that a few calls reach a limit.
PRICES = {"input": 20, "output": 60}
THREADS, CALLS = 4, 5
MAX_TOKENS = 150

# (scope, period, unit, limit): each kind of limit, set where about half the calls fit.
LIMITS = [
    ("user", DAY, COST, Decimal("0.60")),
    ("user", MONTH, TOKENS, 50_000),
    ("token", DAY, COST, Decimal("0.45")),
    ("global", DAY, TOKENS, 40_000),
    ("run", EVER, COST, Decimal("0.50")),
]


def _spender(n, scope, period, unit, limit) -> Spender:
    key = {"user": f"user:{n}", "token": f"token:{n}", "global": "global"}.get(scope, f"run:{n}")
    allowance = Allowance(scope=scope, key=key, period=period, **{unit: limit})
    return Spender(allowances=(allowance,), max_tokens=MAX_TOKENS, label=f"run:{n}")


def test_concurrent_dense_calls_never_pass_a_limit_and_are_counted_as_billed(fake_openai, settings):
    """One test for every kind of limit (one database flush, not five)."""
    settings.BUDGET_MODEL_PRICES = {fake_openai.model: PRICES}
    fake_openai.default = Reply.long("🙂 現在 1234567890 ")
    for n, (scope, period, unit, limit) in enumerate(LIMITS, start=1):
        fake_openai.log.clear()
        _at_the_edge(fake_openai, _spender(n, scope, period, unit, limit), limit)


def _at_the_edge(fake_openai, spender: Spender, limit) -> None:
    allowance = spender.allowances[0]
    scope, period = allowance.scope, allowance.period
    unit = COST if allowance.cost is not None else TOKENS
    texts = sorted(DENSE.values())
    refused, sent, errors = [], [], []

    def spend(n: int) -> None:
        try:
            for i in range(CALLS):
                text = texts[(n + i) % len(texts)]
                try:
                    gateway.complete(
                        model=fake_openai.model,
                        messages=[{"role": "user", "content": text}],
                        spender=spender,
                    )
                    sent.append(n)
                except BudgetStop as exc:
                    refused.append(exc.breach.name)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=spend, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert not errors, errors
    tokens_in, tokens_out, cost = fake_openai.billed(
        {"fake-model": (PRICES["input"], PRICES["output"])}
    )
    print(
        f"\n{scope} {period} {unit} limit {limit}: {len(sent)} calls billed ${cost:.6f} "
        f"({tokens_in + tokens_out:,} tokens), {len(refused)} refused"
    )
    # At the edge: some calls fit, the others were refused before anything was sent.
    assert sent and refused and len(sent) + len(refused) == THREADS * CALLS
    assert fake_openai.count() == len(sent)
    assert set(refused) == {Breach_name(scope, period, unit)}
    counter = Counter.objects.get(key=allowance.key)
    assert counter.period == period_key(period, timezone.localtime())
    # Counted exactly as billed, and never past the limit.
    assert counter.used_cost_usd == cost
    assert counter.used_tokens == tokens_in + tokens_out
    assert (counter.reserved_cost_usd, counter.reserved_tokens) == (0, 0)
    assert not Hold.objects.filter(run=spender.label).exists()
    billed = cost if unit == COST else tokens_in + tokens_out
    assert billed <= limit


def Breach_name(scope, period, unit) -> str:  # noqa: N802 - reads as the breach's name
    when = {DAY: "daily_", MONTH: "monthly_", EVER: ""}[period]
    return f"{scope}_{when}{unit}"
