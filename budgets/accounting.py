"""Reserving before a call and settling after it: what the LLM gateway calls around every call.

A reservation takes the call's estimated cost and tokens (and one call) from every counter the
spender is limited by, in one statement (`budgets_reserve`, see the migration), only if every
limit still has room for it; otherwise nothing changes and `BudgetExceeded` names the limit.
The calls of one step are reserved together, in one statement (`reserve_many`): in order, as
many as fit. Settling, in one statement too (or as a part of the statement that stores the
call's reply: `settle_sql`), gives the reservation back and adds what the call really
spent, and adds it to the usage per day, user, token and model; calls of one spender that
return together can be settled by one statement (`settle_many_sql`). Two workers spending
against one budget therefore pass it by at most what their calls in flight spend beyond their
estimates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
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


def reserve(
    spender: Spender, *, cost: Decimal, tokens: int, extra: dict[str, Any] | None = None
) -> Reservation:
    """Reserve one call's worst case against every limit of `spender`, or raise
    `BudgetExceeded` and reserve nothing. One statement (none when nothing is limited)."""
    now = timezone.localtime()
    entries = spender.entries(now=now, cost=cost, tokens=tokens, extra=extra)
    if not entries:
        return Reservation(None, [], spender, now)
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM budgets_reserve(%s::jsonb, %s)", [json.dumps(entries), now])
        row = cursor.fetchone()
    if row[0] is None:
        raise BudgetExceeded(_breach(spender, row, now))
    return Reservation(row[0], entries, spender, now)


@dataclass(frozen=True)
class Batch:
    """Calls to reserve together, in order (`budgets_reserve_many`): the statement that
    reserves them (`sql`, to run alone or as a part of another) and how to read its rows."""

    spender: Spender
    entries: list[list[dict[str, Any]]]
    at: datetime

    def sql(self, skip_sql: str = "NULL::boolean[]", skip_params: list[Any] | None = None):
        """The statement; `skip_sql` (with `skip_params`), an SQL boolean[] aligned with the
        calls, leaves out the calls it marks true."""
        return (
            f"SELECT * FROM budgets_reserve_many(%s::jsonb, %s, {skip_sql})",
            [json.dumps(self.entries), self.at, *(skip_params or [])],
        )

    def read(self, rows) -> tuple[dict[int, Reservation], tuple[int, BudgetExceeded] | None]:
        """The statement's rows (call index, hold, breach...): the reservations by call index,
        and the first call refused with the limit it would pass (None: every call fit)."""
        held, refused = {}, None
        for index, hold_id, *breach in rows:
            if hold_id is None:
                refused = (index, BudgetExceeded(_breach(self.spender, (None, *breach), self.at)))
            else:
                held[index] = Reservation(hold_id, self.entries[index], self.spender, self.at)
        return held, refused


def batch(spender: Spender, wanted: list[tuple]) -> Batch | None:
    """The calls' worst cases (cost, tokens[, extra]) to reserve together; None when nothing
    limits them (they are then not reserved: `unlimited`)."""
    now = timezone.localtime()
    entries = [
        spender.entries(now=now, cost=w[0], tokens=w[1], extra=w[2] if len(w) > 2 else None)
        for w in wanted
    ]
    if not entries or not entries[0]:
        return None
    return Batch(spender, entries, now)


def unlimited(spender: Spender) -> Reservation:
    """What a call nothing limits holds (nothing; its settling only counts its usage)."""
    return Reservation(None, [], spender, timezone.localtime())


def reserve_many(
    spender: Spender, wanted: list[tuple]
) -> tuple[list[Reservation], BudgetExceeded | None]:
    """Reserve calls' estimates (cost, tokens) against every limit of `spender`, in order, as
    many as fit: the reservations of the first ones, and, when one did not fit, the limit it
    would pass (it and the calls after it are not reserved). One statement (none when nothing
    is limited)."""
    found = batch(spender, wanted)
    if found is None:
        return [unlimited(spender) for _ in wanted], None
    with connection.cursor() as cursor:
        cursor.execute(*found.sql())
        held, refused = found.read(cursor.fetchall())
    return [held[i] for i in sorted(held)], refused[1] if refused else None


def to_settle(reservation: Reservation, model: str) -> bool:
    """Whether settling a call does anything: it gives back what it holds, or it counts a
    reply (`model`)."""
    return bool(reservation.entries or model)


def settle_sql(
    reservation: Reservation,
    *,
    model: str,
    tokens_in: int,
    tokens_out: int,
    cost: Decimal,
    calls: int = 1,
) -> tuple[str, list[Any]] | None:
    """The statement (a SELECT, to run alone or as a part of another) that gives the
    reservation back and counts what the call spent; None when there is nothing to do."""
    spender = reservation.spender
    if not to_settle(reservation, model):
        return None
    now = timezone.localtime()
    # The counters of the periods the call was reserved in (a call that ran over midnight is
    # counted on the day it was reserved, where its reservation is).
    return (
        "SELECT budgets_settle(%s, %s::jsonb, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        [
            reservation.hold_id,
            json.dumps(reservation.entries),
            cost,
            tokens_in + tokens_out,
            calls,
            now,
            reservation.at.date(),
            spender.user_id,
            spender.token_id,
            model or None,
            tokens_in,
            tokens_out,
        ],
    )


def settle_many_sql(
    items: list[tuple[Reservation, str, int, int, Decimal]],
) -> tuple[str, list[Any]] | None:
    """The statement that settles several calls of one spender at once, with the effect of
    `settle_sql`'s one by one (`budgets_settle_many`): `items` are (reservation, model,
    tokens_in, tokens_out, cost), one a call. None when there is nothing to do."""
    items = [item for item in items if to_settle(item[0], item[1])]
    if not items:
        return None
    spender = items[0][0].spender
    if any(
        (r.spender.user_id, r.spender.token_id) != (spender.user_id, spender.token_id)
        for r, *_ in items
    ):
        raise ValueError("the calls settled together share one spender")
    reservations = [reservation for reservation, *_ in items]
    return (
        "SELECT budgets_settle_many(%s::bigint[], %s::jsonb[], %s::numeric[], %s::bigint[], "
        "%s::int[], %s, %s::date[], %s, %s, %s::text[], %s::bigint[], %s::bigint[])",
        [
            [r.hold_id for r in reservations],
            [json.dumps(r.entries) for r in reservations],
            [Decimal(str(cost)) for *_, cost in items],  # one type: psycopg dumps the list
            [tokens_in + tokens_out for _, _, tokens_in, tokens_out, _ in items],
            [1] * len(items),
            timezone.localtime(),
            [r.at.date() for r in reservations],  # as in `settle_sql`
            spender.user_id,
            spender.token_id,
            [model or None for _, model, *_ in items],
            [tokens_in for _, _, tokens_in, _, _ in items],
            [tokens_out for *_, tokens_out, _ in items],
        ],
    )


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
    found = settle_sql(
        reservation, model=model, tokens_in=tokens_in, tokens_out=tokens_out, cost=cost
    )
    if found is not None:
        settle_now(*found)


def settle_now(sql: str, params: list[Any]) -> None:
    """Run a statement of `settle_sql` (or `settle_many_sql`) on its own."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def release(reservation: Reservation) -> None:
    """Give back the reservation of a call that was never sent (nothing is counted)."""
    if not reservation.entries:
        return
    found = settle_sql(reservation, model="", tokens_in=0, tokens_out=0, cost=Decimal(0), calls=0)
    if found is not None:
        settle_now(*found)


def release_stale(*, older_than_seconds: int) -> int:
    """Count as spent, at the most they held, the reservations of calls older than
    `older_than_seconds` (their worker died before settling them; the provider may have billed
    them); a debate's admission is left alone. Returns how many."""
    before = timezone.now() - timedelta(seconds=older_than_seconds)
    with connection.cursor() as cursor:
        cursor.execute("SELECT budgets_release_stale(%s, %s)", [before, settings.TIME_ZONE])
        return cursor.fetchone()[0]
