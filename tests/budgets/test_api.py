"""Spending limits over the API, as programs meet them: a start refused with 429, the limit,
what is used and when it resets, nothing stored; the usage endpoint, own and everyone's."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import token_issue
from budgets.limits import period_key
from budgets.models import Charge, Counter, SpendingLimit, Usage
from debates.models import Debate, IdempotencyKey, Participant
from tests.factories import StaffFactory, UserFactory

QUESTION = "Should we adopt a four-day work week?"


def token_client(user, name="tests") -> tuple[APIClient, ApiToken]:
    token, raw = token_issue(user=user, name=name)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client, token


def spent(key: str, *, cost=Decimal(0), tokens=0, period="day"):
    now = timezone.localtime()
    Counter.objects.update_or_create(
        key=key,
        period=period_key(period, now),
        defaults={"used_cost_usd": cost, "used_tokens": tokens},
    )


@pytest.fixture
def ana(db):
    return UserFactory(username="ana")


def test_a_start_past_the_users_daily_cost_is_refused_with_429_and_nothing_is_stored(
    ana, default_agents, settings
):
    settings.BUDGET_USER_DAILY_COST_USD = Decimal("1.50")
    client, _ = token_client(ana)
    spent(f"user:{ana.pk}", cost=Decimal("1.5"))
    response = client.post(
        "/api/v1/debates/",
        {"question": QUESTION},
        format="json",
        headers={"Idempotency-Key": "k-1"},
    )
    assert response.status_code == 429
    body = response.json()
    tomorrow = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
    tomorrow += timezone.timedelta(days=1)
    assert body == {
        "detail": body["detail"],
        "code": "budget_exceeded",
        "limit": "user_daily_cost",
        "description": "your daily cost limit",
        "unit": "USD",
        "limit_value": "1.50",
        "used": "1.50000000",
        "resets_at": tomorrow.isoformat(),
    }
    assert body["detail"].startswith(
        "Spending limit reached: your daily cost limit (user_daily_cost) is $1.5000; $1.5000 "
        "is used or reserved; it resets at "
    )
    wait = int(response["Retry-After"])
    assert 0 < wait <= 86401
    assert abs(wait - (tomorrow - timezone.now()).total_seconds()) < 5
    for model in (Debate, Participant, Charge, IdempotencyKey):
        assert not model.objects.exists()


def test_a_tokens_own_limit_refuses_it_while_the_users_other_token_still_starts(
    ana, default_agents, django_capture_on_commit_callbacks
):
    capped, capped_token = token_client(ana, "capped")
    free, free_token = token_client(ana, "free")
    SpendingLimit.objects.create(scope="token", token=capped_token, daily_tokens=10_000)
    spent(f"token:{capped_token.pk}", tokens=9_000)  # less room than one reply may use

    refused = capped.post("/api/v1/debates/", {"question": QUESTION}, format="json")
    assert refused.status_code == 429
    assert (refused.json()["limit"], refused.json()["used"]) == ("token_daily_tokens", 9000)

    with django_capture_on_commit_callbacks(execute=False):
        accepted = free.post("/api/v1/debates/", {"question": QUESTION}, format="json")
    assert accepted.status_code == 202
    charge = Charge.objects.get()
    assert (charge.subject, charge.user, charge.token) == (
        f"debate:{accepted.json()['id']}",
        ana,
        free_token,
    )


def test_the_installations_ceiling_refuses_everyone(ana, default_agents, settings):
    settings.BUDGET_GLOBAL_DAILY_COST_USD = Decimal("20")
    spent("global", cost=Decimal("20.01"))
    client, _ = token_client(ana)
    response = client.post("/api/v1/debates/", {"question": QUESTION}, format="json")
    assert response.status_code == 429
    assert response.json()["limit"] == "global_daily_cost"
    assert "the installation's daily cost ceiling" in response.json()["detail"]


def test_a_contradiction_run_is_refused_the_same_way(ana, settings):
    settings.BUDGET_USER_MONTHLY_TOKENS = 1000
    spent(f"user:{ana.pk}", tokens=1000, period="month")
    client, _ = token_client(ana)
    reports = [
        {"agent": "a", "confidence": 0.9, "findings": [{"metric": "revenue", "value": 100}]},
        {"agent": "b", "confidence": 0.8, "findings": [{"metric": "revenue", "value": 200}]},
    ]
    response = client.post("/api/v1/contradiction-runs/", {"reports": reports}, format="json")
    assert response.status_code == 429, response.content
    assert response.json()["limit"] == "user_monthly_tokens"
    assert "Retry-After" in response


def _usage(**row):
    defaults = {"day": timezone.localdate(), "calls": 1, "tokens_in": 10, "tokens_out": 5}
    return Usage.objects.create(**{**defaults, **row})


def test_a_user_reads_their_own_usage_and_limits(ana, settings, django_assert_max_num_queries):
    settings.BUDGET_USER_DAILY_COST_USD = Decimal("5")
    other = UserFactory(username="ben")
    client, token = token_client(ana)
    _usage(user=ana, token=token, model="openai/gpt-4o-mini", cost_usd=Decimal("0.25"), calls=3)
    _usage(user=ana, token=None, model="offline/heuristic-demo", cost_usd=0, tokens_in=100)
    _usage(user=other, model="openai/gpt-4o-mini", cost_usd=Decimal("9"))
    spent(f"user:{ana.pk}", cost=Decimal("0.25"))

    with django_assert_max_num_queries(8):
        response = client.get("/api/v1/usage/")
    assert response.status_code == 200
    body = response.json()
    assert [(r["username"], r["token_name"], r["model"], r["calls"]) for r in body["rows"]] == [
        ("ana", "tests", "openai/gpt-4o-mini", 3),
        ("ana", None, "offline/heuristic-demo", 1),
    ]
    assert body["totals"] == {
        "calls": 4,
        "tokens_in": 110,
        "tokens_out": 10,
        "cost_usd": "0.25000000",
    }
    daily = next(limit for limit in body["limits"] if limit["limit"] == "user_daily_cost")
    assert (daily["limit_value"], daily["used"], daily["remaining"]) == (
        "5.0000",
        "0.25000000",
        "4.75000000",
    )
    assert client.get("/api/v1/usage/", {"user": other.pk}).status_code == 403


def test_staff_read_everyones_usage_or_one_users(ana, django_assert_max_num_queries):
    staff = StaffFactory(username="sam")
    other = UserFactory(username="ben")
    for i in range(5):
        _usage(user=UserFactory(), model=f"m{i}", cost_usd=Decimal(i))
    _usage(user=other, model="openai/gpt-4o-mini", cost_usd=Decimal("9"))
    client, _ = token_client(staff)
    with django_assert_max_num_queries(10):
        everyone = client.get("/api/v1/usage/")
    assert everyone.status_code == 200
    assert len(everyone.json()["rows"]) == 6
    assert everyone.json()["rows"][0]["username"] == "ben"  # dearest first
    one = client.get("/api/v1/usage/", {"user": other.pk}).json()
    assert [r["username"] for r in one["rows"]] == ["ben"]
    bad = client.get("/api/v1/usage/", {"since": "2026-12-01", "until": "2026-11-01"})
    assert bad.status_code == 400 and "since" in bad.json()


def test_usage_needs_credentials():
    assert APIClient().get("/api/v1/usage/").status_code in (401, 403)


def test_the_start_page_and_the_command_line_say_the_same(ana, default_agents, settings, client):
    settings.BUDGET_USER_DAILY_TOKENS = 100
    client.force_login(ana)
    response = client.post("/debates/new/", {"question": QUESTION, "protocol": "s4"})
    assert response.status_code == 400
    assert "Spending limit reached: your daily token limit (user_daily_tokens)" in (
        response.content.decode()
    )
    assert not Debate.objects.exists()
    with pytest.raises(CommandError) as refused:
        call_command("debate", QUESTION, "--in-process", "--as", "ana")
    assert "budget: Spending limit reached: your daily token limit (user_daily_tokens)" in str(
        refused.value
    )
    assert not Debate.objects.exists()
