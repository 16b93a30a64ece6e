"""A contradiction run's spending is bounded like a debate's: admitted for its worst case
against the account limits (or refused, nothing stored), that admission given back when it
ends; its arbitrations stopped into review at its own limit, keeping those paid for, resumed by
a re-run without repeating them."""

from __future__ import annotations

from unittest import mock

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.services import token_issue
from agents import gateway
from budgets.limits import DAY, BudgetExceeded, period_key
from budgets.models import Charge, Counter, Hold
from contradictions import running, services
from contradictions.models import AgentReport, ContradictionRun, Resolution
from reviews import services as reviews
from tests.contradictions.conftest import ScriptedArbitrator
from tests.contradictions.test_services import many_metrics
from tests.factories import StaffFactory, UserFactory
from tests.support.threads import at_once

pytestmark = pytest.mark.django_db


def test_a_run_stops_at_its_call_limit_and_a_rerun_resumes_it(
    settings, django_capture_on_commit_callbacks
):
    settings.BUDGET_DEBATE_MAX_CALLS = 2
    settings.CONTRADICTION_MAX_CONCURRENT_CALLS = 1  # one arbitration at a time
    run = services.contradiction_run_create(reports=many_metrics(5), enqueue=False)
    running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()

    assert run.status == ContradictionRun.Status.FAILED
    assert "the call limit of one contradiction run (run_calls) is 2 calls" in run.error
    [item] = run.review_items.all()
    assert (item.reason, item.status) == ("budget_exceeded", "open")
    assert Resolution.objects.filter(contradiction__run=run).count() == 2

    Charge.objects.filter(subject=f"contradiction-run:{run.id}").update(max_calls=10)
    with django_capture_on_commit_callbacks(execute=False):
        reviews.review_rerun(item_id=item.pk, user=StaffFactory(), note="Raised.")
    running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()
    assert run.status == ContradictionRun.Status.COMPLETED, run.error
    assert Resolution.objects.filter(contradiction__run=run).count() == 5
    assert Counter.objects.get(key=f"contradiction-run:{run.id}").used_calls == 5


# --- admission: a run's whole worst case held on the account limits while it runs ----------


def _held(key: str) -> tuple[int, int]:
    """The tokens reserved and used on `key`'s day counter."""
    counter = Counter.objects.get(key=key, period=period_key(DAY, timezone.localtime()))
    return counter.reserved_tokens, counter.used_tokens


def test_a_run_is_admitted_for_its_own_limits_and_gives_them_back_when_it_ends(settings):
    settings.BUDGET_DEBATE_MAX_TOKENS = 30_000
    settings.BUDGET_USER_DAILY_TOKENS = 100_000
    user = UserFactory()
    run = services.contradiction_run_create(reports=many_metrics(3), created_by=user, enqueue=False)
    subject = f"contradiction-run:{run.id}"
    assert Hold.objects.filter(admits=subject).count() == 1
    assert _held(f"user:{user.pk}") == (30_000, 0)

    with mock.patch.object(gateway, "acomplete", ScriptedArbitrator()):
        running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()
    assert run.status == ContradictionRun.Status.COMPLETED, run.error
    spent = run.tokens_in + run.tokens_out
    assert spent == 3 * 140
    # Given back, and what it spent counted in its place.
    assert not Hold.objects.filter(admits=subject).exists()
    assert _held(f"user:{user.pk}") == (0, spent)


def test_a_run_whose_worst_case_does_not_fit_is_refused_and_nothing_is_stored(settings):
    settings.BUDGET_DEBATE_MAX_TOKENS = 30_000
    settings.BUDGET_USER_DAILY_TOKENS = 50_000
    user = UserFactory()
    services.contradiction_run_create(reports=many_metrics(2), created_by=user, enqueue=False)
    # 20,000 tokens left: room for a call, not for a second run's 30,000.
    with pytest.raises(BudgetExceeded) as refused:
        services.contradiction_run_create(reports=many_metrics(2), created_by=user, enqueue=False)
    assert refused.value.breach.limit == 50_000
    assert refused.value.breach.details == {"needed": 30_000}
    assert ContradictionRun.objects.count() == 1
    assert Charge.objects.count() == Hold.objects.count() == 1
    assert AgentReport.objects.count() == 2


def test_a_run_stopped_by_its_own_limit_gives_its_admission_back(settings):
    settings.BUDGET_DEBATE_MAX_CALLS = 1
    settings.BUDGET_USER_DAILY_TOKENS = 10_000_000
    settings.CONTRADICTION_MAX_CONCURRENT_CALLS = 1
    user = UserFactory()
    run = services.contradiction_run_create(reports=many_metrics(3), created_by=user, enqueue=False)
    with mock.patch.object(gateway, "acomplete", ScriptedArbitrator()):
        running.contradiction_run_execute(run_id=run.id)
    run.refresh_from_db()
    assert run.status == ContradictionRun.Status.FAILED
    assert not Hold.objects.filter(admits=f"contradiction-run:{run.id}").exists()
    assert _held(f"user:{user.pk}") == (0, 140)


def test_a_run_with_unbounded_tokens_is_let_in_and_reserves_call_by_call(settings):
    settings.BUDGET_DEBATE_MAX_TOKENS = None
    settings.BUDGET_USER_DAILY_TOKENS = 100_000
    run = services.contradiction_run_create(
        reports=many_metrics(2), created_by=UserFactory(), enqueue=False
    )
    assert not Hold.objects.filter(admits=f"contradiction-run:{run.id}").exists()


def test_the_api_refuses_a_run_that_does_not_fit_with_429_and_what_it_needs(settings):
    settings.BUDGET_DEBATE_MAX_TOKENS = 30_000
    settings.BUDGET_USER_DAILY_TOKENS = 20_000
    user = UserFactory()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_issue(user=user, name='t')[1]}")
    reports = [
        {"agent": "a", "confidence": 0.9, "findings": [{"metric": "revenue", "value": 100}]},
        {"agent": "b", "confidence": 0.8, "findings": [{"metric": "revenue", "value": 200}]},
    ]
    response = client.post("/api/v1/contradiction-runs/", {"reports": reports}, format="json")
    assert response.status_code == 429, response.content
    body = response.json()
    assert (body["limit"], body["used"], body["limit_value"]) == ("user_daily_tokens", 0, 20000)
    assert "30000" in body["detail"].replace(",", "")
    assert ContradictionRun.objects.count() == 0 and Charge.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_runs_started_at_once_at_a_limit_are_admitted_only_while_they_fit(settings):
    settings.BUDGET_DEBATE_MAX_TOKENS = 30_000
    settings.BUDGET_USER_DAILY_TOKENS = 100_000  # room for three runs' worst cases, not four
    user = UserFactory()

    def start() -> ContradictionRun:
        return services.contradiction_run_create(
            reports=many_metrics(2), created_by=user, enqueue=False
        )

    outcomes = at_once(*[start] * 6, expected=(BudgetExceeded,))
    assert (
        sorted(type(o).__name__ for o in outcomes)
        == ["BudgetExceeded"] * 3 + ["ContradictionRun"] * 3
    )
    assert ContradictionRun.objects.count() == Hold.objects.count() == 3
    assert _held(f"user:{user.pk}") == (90_000, 0)
