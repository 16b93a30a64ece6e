"""Spending limits end to end: debates started over the API with a token, run by the real
Celery worker (two worker processes, the offline model), against a small daily token budget:
admitted for their worst case or refused at the start; one not admitted (its tokens unbounded)
stopped at the limit into review and resumed after the reset."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.services import token_issue
from budgets.limits import DAY, period_key
from budgets.models import Counter, SpendingLimit, Usage
from debates.models import Debate, LLMCall
from reviews import services as reviews
from reviews.models import ReviewItem
from tests.conftest import wait_for
from tests.factories import StaffFactory, UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

QUESTIONS = [
    "Is Bitcoin a good investment?",
    "Should I learn Python or JavaScript first?",
    "Should we adopt a four-day work week?",
    "Is remote work better than office work?",
]


def _start(client, question):
    response = client.post("/api/v1/debates/", {"question": question}, format="json")
    assert response.status_code == 202, response.content
    return response.json()["id"]


def _finished(debate_id):
    def check():
        debate = Debate.objects.get(id=debate_id)
        return debate if debate.is_finished else None

    return check


@pytest.fixture
def ana_client(db):
    ana = UserFactory(username="ana")
    _, raw = token_issue(user=ana, name="ci")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return ana, client


def test_a_debate_that_reaches_the_budget_stops_into_review_and_resumes_after_the_reset(
    celery_worker_process, default_agents, ana_client, settings
):
    ana, client = ana_client
    settings.BUDGET_DEBATE_MAX_TOKENS_PER_CALL = 200  # each reply may use 200 tokens at most
    settings.BUDGET_DEBATE_MAX_TOKENS = None  # not admitted: its calls reserved one by one
    SpendingLimit.objects.create(scope="user", user=ana, daily_tokens=5_000)

    debate_id = _start(client, QUESTIONS[0])
    stopped = wait_for(_finished(debate_id), timeout=90)

    assert stopped.status == Debate.Status.FAILED
    assert stopped.error.startswith(
        "Stopped at a spending limit, keeping every reply paid for so far. Spending limit "
        "reached: your daily token limit (user_daily_tokens) is 5,000 tokens;"
    )
    [item] = ReviewItem.objects.filter(debate_id=debate_id)
    assert (item.reason, item.status) == ("budget_exceeded", "open")
    paid = set(
        LLMCall.objects.filter(debate_id=debate_id, status=LLMCall.Status.DONE).values_list(
            "key", flat=True
        )
    )
    assert 1 <= len(paid) < 12
    refused = LLMCall.objects.filter(debate_id=debate_id, status=LLMCall.Status.FAILED)
    assert refused.exists()
    assert all("user_daily_tokens" in e for e in refused.values_list("error", flat=True))
    today = period_key(DAY, timezone.localtime())
    counter = Counter.objects.get(key=f"user:{ana.pk}", period=today)
    assert counter.used_tokens <= 5_000 and counter.reserved_tokens == 0
    assert counter.used_calls == len(paid)

    # The day is over: its spending counts on another day's counter.
    Counter.objects.filter(key=f"user:{ana.pk}", period=today).update(period="d2000-01-01")
    staff = StaffFactory(username="sam")
    reviews.review_rerun(item_id=item.pk, user=staff, note="The new day's budget.")
    done = wait_for(_finished(debate_id), timeout=90)

    assert done.status == Debate.Status.COMPLETED, done.error
    assert LLMCall.objects.filter(debate_id=debate_id, status="done").count() == 12
    # No call was made twice: the debate's own counter counts each paid call once.
    assert Counter.objects.get(key=f"debate:{debate_id}").used_calls == 12
    assert sum(Usage.objects.filter(user=ana).values_list("calls", flat=True)) == 12
    assert Counter.objects.get(key=f"user:{ana.pk}", period=today).used_calls == 12 - len(paid)


def test_debates_started_together_at_a_token_limit_are_admitted_as_they_fit_and_complete(
    celery_worker_process, default_agents, ana_client, settings
):
    ana, client = ana_client
    settings.BUDGET_DEBATE_MAX_TOKENS_PER_CALL = 200
    settings.BUDGET_DEBATE_MAX_TOKENS = 8_000  # an offline S4 debate holds at most about 7,500
    SpendingLimit.objects.create(scope="user", user=ana, daily_tokens=20_000, note="tight")

    answers = [client.post("/api/v1/debates/", {"question": q}, format="json") for q in QUESTIONS]
    started = [a.json()["id"] for a in answers if a.status_code == 202]
    refused = [a.json() for a in answers if a.status_code == 429]
    ended = [wait_for(_finished(i), timeout=120) for i in started]

    # 20,000 tokens hold two debates' worst case (8,000 each), not three: two start.
    assert len(started) == 2 and len(refused) == 2
    assert {(r["limit"], r["needed"]) for r in refused} == {("user_daily_tokens", 8_000)}
    assert [d.status for d in ended] == [Debate.Status.COMPLETED] * 2
    counter = Counter.objects.get(
        key=f"user:{ana.pk}", period=period_key(DAY, timezone.localtime())
    )
    assert counter.reserved_tokens == 0 and counter.reserved_calls == 0
    paid = LLMCall.objects.filter(debate_id__in=started, status=LLMCall.Status.DONE)
    assert counter.used_calls == paid.count() == 24
    spent = sum(c.tokens_in + c.tokens_out for c in paid)
    assert spent == counter.used_tokens <= 20_000
    assert Usage.objects.get(user=ana).cost_usd == Decimal(0)  # the offline model is free
