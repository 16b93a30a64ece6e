"""Reads: usage per user, API token and model, and where each limit stands now."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from django.db.models import Sum
from django.utils import timezone

from budgets.limits import COST, TOKENS, period_key, resets_at
from budgets.models import Counter, Usage
from budgets.services import account_allowances

SUMS = {
    "calls": Sum("calls"),
    "tokens_in": Sum("tokens_in"),
    "tokens_out": Sum("tokens_out"),
    "cost_usd": Sum("cost_usd"),
}


def usage_rows(*, since: date, until: date, user_id=None) -> list[dict[str, Any]]:
    """Spending per user, token and model between two days (both included), dearest first;
    one user's with `user_id`, everyone's without. One query."""
    rows = Usage.objects.filter(day__gte=since, day__lte=until)
    if user_id is not None:
        rows = rows.filter(user_id=user_id)
    return list(
        rows.values("user_id", "user__username", "token_id", "token__name", "model")
        .annotate(**SUMS)
        .order_by("-cost_usd", "-tokens_in", "user_id", "token_id", "model")
    )


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "calls": sum(r["calls"] for r in rows),
        "tokens_in": sum(r["tokens_in"] for r in rows),
        "tokens_out": sum(r["tokens_out"] for r in rows),
        "cost_usd": sum((r["cost_usd"] for r in rows), Decimal(0)),
    }


def limits_status(*, user_id, token_id=None) -> list[dict[str, Any]]:
    """Each limit of a user (and a token) and of the installation, with what is used and
    reserved in its current period and when that resets. Two queries."""
    now = timezone.localtime()
    allowances = account_allowances(user_id, token_id)
    keys = {(a.key, period_key(a.period, now)) for a in allowances}
    counters = {
        (c.key, c.period): c
        for c in Counter.objects.filter(
            key__in={k for k, _ in keys}, period__in={p for _, p in keys}
        )
    }
    found = []
    for a in allowances:
        counter = counters.get((a.key, period_key(a.period, now)))
        for unit, limit in ((COST, a.cost), (TOKENS, a.tokens)):
            if limit is None:
                continue
            if unit == COST:
                used = counter.used_cost_usd if counter else Decimal(0)
                reserved = counter.reserved_cost_usd if counter else Decimal(0)
            else:
                used = counter.used_tokens if counter else 0
                reserved = counter.reserved_tokens if counter else 0
            when = {"day": "daily_", "month": "monthly_"}.get(a.period, "")
            reset = resets_at(a.period, now)
            found.append(
                {
                    "limit": f"{a.scope}_{when}{unit}",
                    "unit": "USD" if unit == COST else unit,
                    "limit_value": limit,
                    "used": used,
                    "reserved": reserved,
                    "remaining": max(limit - used - reserved, 0),
                    "resets_at": reset,
                }
            )
    return found
