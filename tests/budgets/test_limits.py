"""The pure rules of spending limits: periods, resets, what a refusal says; and the settings'
strict parsing."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from budgets.limits import (
    COST,
    DAY,
    EVER,
    MONTH,
    TOKENS,
    Allowance,
    Breach,
    BudgetExceeded,
    Spender,
    period_key,
    resets_at,
)
from tests.conftest import ROOT

moments = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)


@given(moments)
def test_a_day_resets_at_the_next_midnight_and_a_month_on_the_next_first(now):
    day, month = resets_at(DAY, now), resets_at(MONTH, now)
    assert (day.hour, day.minute, day.second) == (0, 0, 0)
    assert 0 < (day - now).total_seconds() <= 86400
    assert day.day == 1 or (month > day)
    assert (month.day, month.hour) == (1, 0)
    assert month > now and (month - now).days <= 31
    assert period_key(DAY, day) != period_key(DAY, now)
    assert period_key(MONTH, month) != period_key(MONTH, now)
    assert resets_at(EVER, now) is None and period_key(EVER, now) == "ever"


def test_a_breach_names_the_limit_the_amount_used_and_the_reset():
    now = datetime(2026, 11, 24, 22, 0, tzinfo=UTC)
    breach = Breach(
        scope="user",
        period=DAY,
        unit=COST,
        used=Decimal("5.0100"),
        limit=Decimal("5"),
        resets_at=resets_at(DAY, now),
    )
    assert breach.name == "user_daily_cost"
    assert breach.message() == (
        "Spending limit reached: your daily cost limit (user_daily_cost) is $5.0000; $5.0100 is "
        "used or reserved; it resets at 2026-11-25T00:00:00+00:00."
    )
    assert breach.retry_after(now) == 7201
    assert breach.as_dict() == {
        "limit": "user_daily_cost",
        "description": "your daily cost limit",
        "unit": "USD",
        "limit_value": "5",
        "used": "5.0100",
        "resets_at": "2026-11-25T00:00:00+00:00",
    }
    error = BudgetExceeded(breach)
    assert error.message_dict == {"budget": [breach.message()]}  # shown like any bad input
    per_debate = Breach(scope="debate", period=EVER, unit="calls", used=12, limit=12)
    assert per_debate.name == "debate_calls" and per_debate.retry_after(now) is None
    assert "resets" not in per_debate.message()


def test_a_spender_reserves_only_against_limited_counters():
    now = datetime(2026, 11, 24, tzinfo=UTC)
    spender = Spender(
        allowances=(
            Allowance(scope="user", key="user:1", period=DAY, tokens=100),
            Allowance(scope="user", key="user:1", period=MONTH),
            Allowance(scope="debate", key="debate:x", period=EVER, calls=3),
        )
    )
    entries = spender.entries(now=now, cost=Decimal("0.5"), tokens=7)
    assert [(e["key"], e["period"], e["limit_tokens"], e["limit_calls"]) for e in entries] == [
        ("user:1", "d2026-11-24", 100, None),
        ("debate:x", "ever", None, 3),
    ]
    assert {e["cost"] for e in entries} == {"0.5"} and {e["tokens"] for e in entries} == {7}
    assert TOKENS == "tokens"


@pytest.mark.slow
@pytest.mark.parametrize(
    "value, problem",
    [
        ("ten", "BUDGET_USER_DAILY_COST_USD='ten' is not a limit"),
        ("-1", "BUDGET_USER_DAILY_COST_USD='-1' is not a limit"),
        ("NaN", "BUDGET_USER_DAILY_COST_USD='NaN' is not a limit"),
    ],
)
def test_a_limit_that_cannot_be_read_stops_the_start_naming_the_variable(value, problem):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    env["BUDGET_USER_DAILY_COST_USD"] = value
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert problem in done.stderr


def test_limits_read_from_the_environment(monkeypatch):
    from config.settings.envvars import env_limit

    monkeypatch.setenv("X_LIMIT", "2_000")
    assert env_limit("X_LIMIT") == 2000
    monkeypatch.setenv("X_LIMIT", "")
    assert env_limit("X_LIMIT", default="5") is None  # set empty: no limit
    monkeypatch.setenv("X_LIMIT", "none")
    assert env_limit("X_LIMIT") is None
    monkeypatch.setenv("X_LIMIT", "0.25")
    assert env_limit("X_LIMIT", kind=Decimal) == Decimal("0.25")
    monkeypatch.delenv("X_LIMIT")
    assert env_limit("X_LIMIT", default="5", kind=Decimal) == Decimal("5")
