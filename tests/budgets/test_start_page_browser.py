"""The New debate page in real headless Chromium, for a user whose daily budget is spent."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import timezone

from budgets.limits import DAY, period_key
from budgets.models import Counter, SpendingLimit
from debates.models import Debate
from tests.debates.test_live_browser import PASSWORD, log_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_user_over_budget_is_told_which_limit_and_when_it_resets(
    live_server, page, default_agents, django_user_model, artifacts_dir
):
    maya = django_user_model.objects.create_user("maya", password=PASSWORD)
    SpendingLimit.objects.create(scope="user", user=maya, daily_cost_usd=Decimal("0.50"))
    Counter.objects.create(
        key=f"user:{maya.pk}",
        period=period_key(DAY, timezone.localtime()),
        used_cost_usd=Decimal("0.5"),
    )
    log_in(page, live_server.url, "maya")
    page.click("header.site >> text=New debate")
    page.fill("#id_question", "Should we adopt a four-day work week?")
    page.click("button:has-text('Start the debate')")

    shown = page.locator(".errorlist").first.inner_text()
    assert "Spending limit reached: your daily cost limit (user_daily_cost) is $0.5000" in shown
    assert "$0.5000 is used or reserved; it resets at" in shown
    assert page.input_value("#id_question") == "Should we adopt a four-day work week?"
    page.screenshot(path=str(artifacts_dir / "budget-start-refused.png"), full_page=True)
    assert not Debate.objects.exists()
