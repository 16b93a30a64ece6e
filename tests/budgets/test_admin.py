"""Limits edited in the admin by an operator, each edit in the audit trail; usage per user,
token and model shown there."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from accounts.roles import OPERATOR
from accounts.services import token_issue
from audit.models import AuditEntry
from budgets.models import SpendingLimit, Usage
from tests.factories import StaffFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator():
    client = Client()
    client.force_login(StaffFactory(username="olga", roles=[OPERATOR]))
    return client


def test_an_operator_sets_a_users_limit_and_the_audit_trail_says_from_what_to_what(operator):
    ana = UserFactory(username="ana")
    response = operator.post(
        "/admin/budgets/spendinglimit/add/",
        {"scope": "user", "user": ana.pk, "daily_cost_usd": "2.50", "note": "trial account"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    limit = SpendingLimit.objects.get(user=ana)
    assert (limit.daily_cost_usd, limit.monthly_tokens) == (Decimal("2.50"), None)
    created = AuditEntry.objects.get(action="budget.create")
    assert (created.actor_name, created.subject_repr) == ("olga", "Limits of user ana")
    assert created.changes["daily_cost_usd"] == {"from": None, "to": "2.5000"}

    response = operator.post(
        f"/admin/budgets/spendinglimit/{limit.pk}/change/",
        {"scope": "user", "user": ana.pk, "daily_cost_usd": "4", "daily_tokens": "50000"},
    )
    assert response.status_code == 302
    changed = AuditEntry.objects.get(action="budget.change")
    assert changed.changes == {
        "daily_cost_usd": {"from": "2.5000", "to": "4.0000"},
        "daily_tokens": {"from": None, "to": 50000},
        "note": {"from": "trial account", "to": ""},
    }

    operator.post(f"/admin/budgets/spendinglimit/{limit.pk}/delete/", {"post": "yes"})
    assert not SpendingLimit.objects.exists()
    deleted = AuditEntry.objects.get(action="budget.delete")
    assert deleted.changes["daily_tokens"] == {"from": 50000, "to": None}


def test_a_limit_for_the_wrong_subject_is_refused_with_a_message(operator):
    response = operator.post(
        "/admin/budgets/spendinglimit/add/", {"scope": "token", "daily_tokens": "10"}
    )
    assert response.status_code == 200
    assert "errornote" in response.content.decode()
    assert not SpendingLimit.objects.exists() and not AuditEntry.objects.exists()


def test_usage_per_user_token_and_model_is_listed_with_totals(
    operator, django_assert_max_num_queries
):
    today = timezone.localdate()
    for i in range(6):
        user = UserFactory(username=f"user-{i}")
        token, _ = token_issue(user=user, name=f"token-{i}")
        Usage.objects.create(
            day=today,
            user=user,
            token=token,
            model="openai/gpt-4o-mini",
            calls=2,
            tokens_in=100,
            tokens_out=40,
            cost_usd=Decimal("0.01"),
        )
    with django_assert_max_num_queries(14):
        response = operator.get("/admin/budgets/usage/")
    page = response.content.decode()
    assert response.status_code == 200
    assert "user-5" in page and "token-5" in page and "openai/gpt-4o-mini" in page
    assert "Total of the rows shown: 12 calls, 600 tokens in, 240 tokens out, $0.0600" in page
    assert operator.get("/admin/budgets/usage/add/").status_code == 403


def test_ordinary_staff_without_the_role_cannot_edit_limits():
    client = Client()
    client.force_login(StaffFactory(username="rita", roles=[]))
    assert client.get("/admin/budgets/spendinglimit/").status_code == 403


def test_an_operator_raises_one_debates_own_limit_and_it_is_audited(operator, default_agents):
    from budgets.models import Charge
    from debates import services

    debate = services.debate_create(query="Should we adopt a four-day work week?", enqueue=False)
    charge = Charge.objects.get(subject=f"debate:{debate.id}")
    response = operator.post(
        f"/admin/budgets/charge/{charge.pk}/change/",
        {
            "max_calls": "300",
            "max_tokens_per_call": "4096",
            "max_tokens": "250000",
            "max_cost_usd": "2",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    charge.refresh_from_db()
    assert charge.max_calls == 300
    entry = AuditEntry.objects.get(action="budget.debate_change")
    assert entry.changes == {"max_calls": {"from": 100, "to": 300}}
    assert entry.subject_repr == f"debate:{debate.id}"
