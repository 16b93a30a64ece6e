"""Reserving before a call and settling after it: what the LLM gateway calls around every call.

A reservation takes the call's estimated cost and tokens (and one call) from every counter the
spender is limited by, in one statement (`budgets_reserve`, see the migration), only if every
limit still has room for it; otherwise nothing changes and `BudgetExceeded` names the limit.
Settling, in one statement too, gives the reservation back and adds what the call really
spent, and adds it to the usage per day, user, token and model. Two workers spending against
one budget therefore pass it by at most what their calls in flight spend beyond their
estimates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.db import connection
from django.utils import timezone

from budgets.limits import Breach, BudgetExceeded, Spender, resets_at


@dataclass(frozen=True)
class Reservation:
    hold_id: int | None
    entries: list[dict[str, Any]]
    spender: Spender
    at: datetime


def _breach(spender: Spender, row, now: datetime) -> Breach:
    _, key, period, unit, used, limit = row
    allowance = spender.allowance(key, period, now)
    scope = allowance.scope if allowance else key.split(":", 1)[0]
    which = allowance.period if allowance else "ever"
    as_unit = Decimal if unit == "cost" else int
    return Breach(
        scope=scope,
        period=which,
        unit=unit,
        used=as_unit(used),
        limit=as_unit(limit),
        resets_at=resets_at(which, now),
    )


def reserve(spender: Spender, *, cost: Decimal, tokens: int) -> Reservation:
    """Reserve one call's estimate against every limit of `spender`, or raise
    `BudgetExceeded` and reserve nothing. One statement (none when nothing is limited)."""
    now = timezone.localtime()
    entries = spender.entries(now=now, cost=cost, tokens=tokens)
    if not entries:
        return Reservation(None, [], spender, now)
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM budgets_reserve(%s::jsonb, %s)", [json.dumps(entries), now])
        row = cursor.fetchone()
    if row[0] is None:
        raise BudgetExceeded(_breach(spender, row, now))
    return Reservation(row[0], entries, spender, now)


def settle(
    reservation: Reservation,
    *,
    model: str,
    tokens_in: int,
    tokens_out: int,
    cost: Decimal,
) -> None:
    """Give the reservation back and count what the call spent; one statement. A call with no
    reply (`model` empty) still counts as a call."""
    spender = reservation.spender
    if not reservation.entries and not model:
        return
    now = timezone.localtime()
    # The counters of the periods the call was reserved in (a call that ran over midnight is
    # counted on the day it was reserved, where its reservation is).
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT budgets_settle(%s, %s::jsonb, %s, %s, 1, %s, %s, %s, %s, %s, %s, %s)",
            [
                reservation.hold_id,
                json.dumps(reservation.entries),
                cost,
                tokens_in + tokens_out,
                now,
                reservation.at.date(),
                spender.user_id,
                spender.token_id,
                model or None,
                tokens_in,
                tokens_out,
            ],
        )


def release_stale(*, older_than_seconds: int) -> int:
    """Give back reservations whose worker died before settling them; returns how many."""
    before = timezone.now() - timedelta(seconds=older_than_seconds)
    with connection.cursor() as cursor:
        cursor.execute("SELECT budgets_release_stale(%s)", [before])
        return cursor.fetchone()[0]
