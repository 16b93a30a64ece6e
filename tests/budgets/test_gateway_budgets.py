"""The gateway and the budgets: calls reserved before they are sent, refused ones never sent,
with the offline model (real calls through litellm)."""

from __future__ import annotations

import pytest
from django.db import connection

from agents import gateway
from agents.errors import BudgetStop
from budgets.limits import EVER, Allowance, Spender
from budgets.models import Counter, Usage

pytestmark = pytest.mark.django_db

OFFLINE = "offline/heuristic-demo"


def test_concurrent_calls_past_the_limit_are_refused_and_never_sent(monkeypatch):
    sent = []
    real = gateway.acomplete

    async def counting(**kwargs):
        sent.append(kwargs)
        return await real(**kwargs)

    monkeypatch.setattr(gateway, "acomplete", counting)
    spender = Spender(
        allowances=(Allowance(scope="debate", key="debate:g", period=EVER, calls=3),),
        user_id=None,
        max_tokens=256,
    )
    handed, failed = [], []
    errors = gateway.complete_concurrently(
        {
            k: {
                "model": OFFLINE,
                "messages": [{"role": "user", "content": f"Is {k} safe?"}],
                "spender": spender,
            }
            for k in "abcdef"
        },
        max_workers=2,
        on_returned=lambda answered: handed.extend(k for k, _ in answered),
        on_failed=lambda key, exc: failed.append((key, type(exc).__name__)),
    )
    assert len(handed) == 3 and len(sent) == 3
    assert sorted(handed + [k for k, _ in failed]) == list("abcdef")
    assert {name for _, name in failed} == {"BudgetStop"}
    assert all(call["max_tokens"] == 256 and "spender" not in call for call in sent)
    assert {e.breach.name for e in errors} == {"debate_calls"}
    counter = Counter.objects.get(key="debate:g")
    assert (counter.used_calls, counter.reserved_calls) == (3, 0)
    assert Usage.objects.get(model=OFFLINE).calls == 3


def test_a_single_call_is_reserved_and_settled_around_it():
    spender = Spender(
        allowances=(Allowance(scope="user", key="user:5", period=EVER, tokens=100_000),),
        user_id=None,
        max_tokens=64,
    )
    response = gateway.complete(
        model=OFFLINE, messages=[{"role": "user", "content": "Is it raining?"}], spender=spender
    )
    counter = Counter.objects.get(key="user:5")
    assert counter.used_tokens == response.tokens_in + response.tokens_out > 0
    assert counter.reserved_tokens == 0
    # The same budget, now with no room for another call: refused before anything is sent.
    full = Spender(
        allowances=(
            Allowance(scope="user", key="user:5", period=EVER, tokens=counter.used_tokens),
        ),
        max_tokens=64,
    )
    with pytest.raises(BudgetStop) as refused:
        gateway.complete(
            model=OFFLINE, messages=[{"role": "user", "content": "Again?"}], spender=full
        )
    assert refused.value.breach.name == "user_tokens"
    assert Counter.objects.get(key="user:5").used_calls == 1


def test_a_reply_is_settled_by_the_statement_that_stores_it_or_else_by_the_gateway():
    spender = Spender(
        allowances=(Allowance(scope="debate", key="debate:s", period=EVER, calls=10),),
        max_tokens=64,
    )
    calls = {
        k: {
            "model": OFFLINE,
            "messages": [{"role": "user", "content": f"Is {k} safe?"}],
            "spender": spender,
        }
        for k in "ab"
    }
    stored = []

    def store(answered):
        for key, _response, paid in answered:
            if key == "b":
                raise RuntimeError("the store failed")
            sql, params = paid.statement()
            with connection.cursor() as cursor:  # the caller's own statement runs the settle
                cursor.execute(f"WITH paid AS ({sql}) SELECT 1 FROM paid", params)
            paid.done = True
            stored.append(key)

    with pytest.raises(RuntimeError):
        gateway.complete_concurrently(
            calls,
            max_workers=1,
            on_returned=store,
            on_failed=lambda key, exc: None,
            store_settles=True,
        )
    # "a" was settled once, by the store's statement; "b", whose store failed, by the gateway.
    assert stored == ["a"]
    counter = Counter.objects.get(key="debate:s")
    assert (counter.used_calls, counter.reserved_calls) == (2, 0)
    assert Usage.objects.get(model=OFFLINE).calls == 2
