"""The spender a run reserves against: read by its own query, or returned by the statement that
claims the debate, the same either way, amounts exact."""

from __future__ import annotations

from decimal import Decimal

import pytest

from accounts.models import ApiToken
from budgets import services as budgets
from budgets.limits import EVER, Allowance
from budgets.models import Charge, Counter, SpendingLimit
from debates import running, services
from runs import lifecycle
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _limits(user, token):
    SpendingLimit.objects.create(
        scope="user", user=user, daily_cost_usd=Decimal("1.2345"), monthly_tokens=7_000_000_001
    )
    SpendingLimit.objects.create(scope="token", token=token, daily_cost_usd=Decimal("0.0001"))
    SpendingLimit.objects.create(scope="global", monthly_cost_usd=Decimal("99999999.9999"))


def test_the_claim_returns_the_spender_its_own_query_reads(
    default_agents, django_assert_num_queries, settings
):
    settings.BUDGET_DEBATE_MAX_TOKENS = None  # not admitted: its calls reserve one by one
    user = UserFactory()
    other = UserFactory()
    token = ApiToken.objects.create(user=user, name="ci", key_hash="x" * 64, prefix="dbt_abcdef")
    _limits(user, token)
    SpendingLimit.objects.create(scope="user", user=other, daily_cost_usd=Decimal("3"))
    debate = services.debate_create(query="Should I learn Python or Go?", enqueue=False)
    Charge.objects.filter(subject=f"debate:{debate.id}").update(
        user=user, token=token, max_calls=17, max_cost_usd=Decimal("0.0123")
    )
    debate.created_by = other  # the charge says who pays, not the creator
    debate.save(update_fields=["created_by"])

    with django_assert_num_queries(1):
        read = budgets.spender_for(subject=f"debate:{debate.id}", user_id=other.id)
    row = lifecycle.claim(running.DEBATES, debate.id)
    with django_assert_num_queries(0):
        claimed = budgets.spender_for(
            subject=f"debate:{debate.id}", user_id=other.id, found=row.spender_found
        )
    assert claimed == read
    assert (read.user_id, read.token_id, read.max_tokens) == (user.id, token.id, 4096)
    by_key = {(a.key, a.period): a for a in read.allowances}
    assert by_key[(f"user:{user.id}", "day")].cost == Decimal("1.2345")
    assert by_key[(f"user:{user.id}", "month")].tokens == 7_000_000_001
    assert by_key[(f"token:{token.id}", "day")].cost == Decimal("0.0001")
    assert by_key[("global", "month")].cost == Decimal("99999999.9999")
    assert by_key[(f"debate:{debate.id}", EVER)] == Allowance(
        scope="debate", key=f"debate:{debate.id}", period=EVER, cost=Decimal("0.0123"), calls=17
    )
    assert not any(key == f"user:{other.id}" for key, _ in by_key)


def test_a_run_with_no_charge_is_paid_by_the_user_given_with_the_settings_limits(settings):
    settings.BUDGET_DEBATE_MAX_CALLS, settings.BUDGET_DEBATE_MAX_COST_USD = 9, Decimal("0.5")
    user = UserFactory()
    SpendingLimit.objects.create(scope="user", user=user, daily_tokens=123)
    spender = budgets.spender_for(subject="debate:older", user_id=user.id)
    by_key = {(a.key, a.period): a for a in spender.allowances}
    assert (spender.user_id, spender.token_id) == (user.id, None)
    assert by_key[(f"user:{user.id}", "day")].tokens == 123
    assert by_key[("debate:older", EVER)].calls == 9
    assert by_key[("debate:older", EVER)].cost == Decimal("0.5")


def test_an_admitted_debate_reserves_its_calls_against_its_admission_alone(
    default_agents, settings
):
    settings.BUDGET_MODEL_PRICES = {"openai/priced": {"input": 2, "output": 8}}
    settings.DEBATE_ALLOWED_MODELS = ["openai/priced"]
    settings.BUDGET_DEBATE_MAX_TOKENS = 100_000
    settings.BUDGET_DEBATE_MAX_COST_USD = Decimal("0.5")
    user = UserFactory()
    SpendingLimit.objects.create(scope="user", user=user, daily_cost_usd=Decimal("3"))
    debate = services.debate_create(
        query="Should I learn Python or Go?",
        options={"model": "openai/priced"},
        created_by=user,
        enqueue=False,
    )
    row = lifecycle.claim(running.DEBATES, debate.id)
    spender = budgets.spender_for(subject=f"debate:{debate.id}", found=row.spender_found)
    # 100,000 tokens at $8 a million would be $0.80: its own cost limit, $0.50, is less.
    assert spender.admitted and spender.allowances == (
        Allowance(
            scope="debate",
            key=f"debate:{debate.id}",
            period=EVER,
            cost=Decimal("0.5"),
            tokens=100_000,
            calls=settings.BUDGET_DEBATE_MAX_CALLS,
        ),
    )
    held = {c.key: c.reserved_cost_usd for c in Counter.objects.all()}
    assert held == {f"user:{user.id}": Decimal("0.5"), "global": Decimal("0.5")}
