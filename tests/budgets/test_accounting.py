"""Reserving and settling against the real PostgreSQL: one statement each, all or nothing, and
safe when many threads and processes spend against one budget at once."""

from __future__ import annotations

import os
import subprocess
import sys
from decimal import Decimal

import pytest
from django.conf import settings

from budgets import accounting
from budgets.limits import DAY, EVER, MONTH, Allowance, BudgetExceeded, Spender
from budgets.models import Counter, Hold, Usage
from tests.conftest import ROOT
from tests.support.threads import at_once


def spender(*allowances, user_id=None) -> Spender:
    return Spender(allowances=allowances, user_id=user_id)


def counter(key: str, period: str = "") -> Counter:
    rows = Counter.objects.filter(key=key)
    return rows.get(period=period) if period else rows.get(period__startswith="d")


@pytest.mark.django_db
def test_a_call_is_reserved_then_settled_with_what_it_spent(django_assert_num_queries):
    who = spender(
        Allowance(scope="user", key="user:7", period=DAY, cost=Decimal("1"), tokens=1000),
        Allowance(scope="debate", key="debate:a", period=EVER, calls=5),
        user_id=7,
    )
    with django_assert_num_queries(1):
        held = accounting.reserve(who, cost=Decimal("0.2"), tokens=300)
    row = counter("user:7")
    assert (row.reserved_cost_usd, row.reserved_tokens, row.reserved_calls) == (
        Decimal("0.2"),
        300,
        1,
    )
    assert Hold.objects.count() == 1
    with django_assert_num_queries(1):
        accounting.settle(held, model="m1", tokens_in=150, tokens_out=50, cost=Decimal("0.05"))
    row = counter("user:7")
    assert (row.used_cost_usd, row.used_tokens, row.used_calls) == (Decimal("0.05"), 200, 1)
    assert (row.reserved_cost_usd, row.reserved_tokens, row.reserved_calls) == (0, 0, 0)
    assert counter("debate:a", "ever").used_calls == 1
    assert not Hold.objects.exists()
    usage = Usage.objects.get()
    assert (usage.user_id, usage.model, usage.calls, usage.tokens_in, usage.tokens_out) == (
        7,
        "m1",
        1,
        150,
        50,
    )


@pytest.mark.django_db
def test_a_reservation_that_does_not_fit_changes_nothing_and_names_the_limit():
    who = spender(
        Allowance(scope="user", key="user:8", period=MONTH, tokens=10_000),
        Allowance(scope="debate", key="debate:b", period=EVER, calls=2),
    )
    for _ in range(2):
        accounting.reserve(who, cost=Decimal(0), tokens=100)
    with pytest.raises(BudgetExceeded) as refused:
        accounting.reserve(who, cost=Decimal(0), tokens=100)
    breach = refused.value.breach
    assert (breach.name, breach.used, breach.limit, breach.resets_at) == (
        "debate_calls",
        2,
        2,
        None,
    )
    # All or nothing: the user's counter did not take the refused call's tokens.
    assert counter("user:8", Counter.objects.get(key="user:8").period).reserved_tokens == 200


@pytest.mark.django_db
def test_a_reservation_left_by_a_dead_worker_is_counted_as_spent_at_its_most():
    who = spender(Allowance(scope="global", key="global", period=DAY, tokens=1000))
    accounting.reserve(who, cost=Decimal(0), tokens=900)
    with pytest.raises(BudgetExceeded):
        accounting.reserve(who, cost=Decimal(0), tokens=200)
    # Its call may have been answered and billed: it counts, at the most it could cost.
    assert accounting.release_stale(older_than_seconds=-1) == 1
    row = counter("global")
    assert (row.used_tokens, row.used_calls, row.reserved_tokens) == (900, 1, 0)
    assert not Hold.objects.exists()
    with pytest.raises(BudgetExceeded):
        accounting.reserve(who, cost=Decimal(0), tokens=200)
    accounting.reserve(who, cost=Decimal(0), tokens=100)  # what is left


def _spend_in_threads(who: Spender, *, threads: int, calls: int, estimate: int, actual: int):
    made, refused = [], []

    def worker():
        for _ in range(calls):
            try:
                held = accounting.reserve(who, cost=Decimal(0), tokens=estimate)
            except BudgetExceeded:
                refused.append(1)
                continue
            accounting.settle(held, model="m", tokens_in=actual, tokens_out=0, cost=0)
            made.append(1)

    at_once(*[worker] * threads)
    return len(made), len(refused)


@pytest.mark.django_db(transaction=True)
def test_eight_threads_spending_at_once_never_pass_the_budget():
    who = spender(Allowance(scope="user", key="user:threads", period=DAY, tokens=5_000))
    made, refused = _spend_in_threads(who, threads=8, calls=20, estimate=100, actual=100)
    assert made == 50 and refused == 110  # exactly the budget, not one call more
    row = counter("user:threads")
    assert (row.used_tokens, row.used_calls, row.reserved_tokens) == (5_000, 50, 0)


@pytest.mark.django_db(transaction=True)
def test_calls_that_spend_more_than_reserved_pass_by_at_most_the_calls_in_flight():
    who = spender(Allowance(scope="user", key="user:over", period=DAY, tokens=5_000))
    threads = 8
    made, _ = _spend_in_threads(who, threads=threads, calls=20, estimate=100, actual=130)
    row = counter("user:over")
    assert row.used_tokens == made * 130
    # Each call was let through with room for its estimate; at most one call per thread was
    # in flight when the last room was given, so the overshoot is bounded by them.
    assert row.used_tokens <= 5_000 + threads * 130


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_two_processes_spending_against_one_budget_stop_at_it_together():
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
    }
    command = [sys.executable, "-m", "tests.budgets.spend", "user:procs", "3000", "40", "100"]
    procs = [
        subprocess.Popen(
            [*command, "100"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    assert [p.stdout.readline() for p in procs] == ["ready\n", "ready\n"]
    for p in procs:  # both set up: they start spending together
        p.stdin.write("go\n")
        p.stdin.flush()
    results = [p.communicate(timeout=120)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    made = [int(r[0]) for r in results]
    assert sum(made) == 30, results  # 3000 tokens / 100 a call, between both processes
    assert all(m > 0 for m in made), results  # both spent: they really ran at once
    row = counter("user:procs")
    assert (row.used_tokens, row.reserved_tokens) == (3000, 0)


@pytest.mark.django_db
def test_a_steps_calls_are_reserved_together_as_many_as_fit_in_order(django_assert_num_queries):
    who = spender(
        Allowance(scope="user", key="user:9", period=DAY, tokens=1_000),
        Allowance(scope="debate", key="debate:c", period=EVER, calls=10),
        user_id=9,
    )
    accounting.reserve(who, cost=Decimal(0), tokens=300)
    wanted = [(Decimal(0), 200), (Decimal(0), 400), (Decimal(0), 200), (Decimal(0), 50)]
    with django_assert_num_queries(1):
        held, exceeded = accounting.reserve_many(who, wanted)
    # 300 + 200 + 400 fit; the third (200 more) would pass 1,000: it and the fourth are not
    # reserved, although the fourth alone would fit (calls are made in order).
    assert len(held) == 2 and len({h.hold_id for h in held}) == 2
    breach = exceeded.breach
    assert (breach.name, breach.used, breach.limit) == ("user_daily_tokens", 900, 1_000)
    assert counter("user:9").reserved_tokens == 900
    assert counter("debate:c", "ever").reserved_calls == 3
    assert Hold.objects.count() == 3

    # A reservation given back without the call being made is not counted as a call.
    accounting.release(held[1])
    row = counter("user:9")
    assert (row.reserved_tokens, row.used_tokens, row.used_calls) == (500, 0, 0)
    assert counter("debate:c", "ever").used_calls == 0
    accounting.settle(held[0], model="m", tokens_in=150, tokens_out=0, cost=Decimal(0))
    row = counter("user:9")
    assert (row.reserved_tokens, row.used_tokens, row.used_calls) == (300, 150, 1)


@pytest.mark.django_db
def test_a_batch_with_no_limit_reserves_nothing_in_no_statement(django_assert_num_queries):
    with django_assert_num_queries(0):
        held, exceeded = accounting.reserve_many(spender(), [(Decimal(0), 10)] * 3)
    assert exceeded is None and [h.hold_id for h in held] == [None] * 3


@pytest.mark.django_db(transaction=True)
def test_eight_threads_reserving_steps_at_once_never_pass_the_budget():
    who = spender(
        Allowance(scope="user", key="user:steps", period=DAY, tokens=5_000),
        Allowance(scope="global", key="global", period=DAY, tokens=1_000_000),
    )
    made, refused = [], []

    def worker():
        for _ in range(8):
            held, exceeded = accounting.reserve_many(who, [(Decimal(0), 100)] * 3)
            refused.append(3 - len(held) if exceeded else 0)
            for one in held:
                accounting.settle(one, model="m", tokens_in=100, tokens_out=0, cost=0)
                made.append(1)

    at_once(*[worker] * 8)
    assert len(made) == 50 and sum(refused) == 8 * 8 * 3 - 50  # exactly the budget
    row = counter("user:steps")
    assert (row.used_tokens, row.used_calls, row.reserved_tokens) == (5_000, 50, 0)
    assert not Hold.objects.exists()
