"""Writes and the limits in force: who pays for a debate or run (`charge_open`), a debate's
admission against the account limits (`admit`, ended by `close`), the spender a run reserves
against (`spender_for`), whether a run may start (`start_check`), what calls lost in flight are
counted as (`charge_lost`), and staff edits of limits, recorded in the audit trail
(`limit_save`)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

import audit
from budgets import accounting
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
from budgets.models import Charge, Counter, Hold, SpendingLimit

LIMIT_FIELDS = ("daily_cost_usd", "monthly_cost_usd", "daily_tokens", "monthly_tokens", "note")


def _defaults(scope: str) -> dict[str, Any]:
    """The settings' limits of a scope, by SpendingLimit field."""
    prefix = {"user": "BUDGET_USER", "token": "BUDGET_TOKEN", "global": "BUDGET_GLOBAL"}[scope]

    def read(name):
        return getattr(settings, f"{prefix}_{name}", None)

    return {
        "daily_cost_usd": read("DAILY_COST_USD"),
        "monthly_cost_usd": read("MONTHLY_COST_USD"),
        "daily_tokens": read("DAILY_TOKENS"),
        "monthly_tokens": read("MONTHLY_TOKENS"),
    }


def effective_limits(scope: str, row: SpendingLimit | None) -> dict[str, Any]:
    """A scope's limits: the row's values where set, the settings' elsewhere."""
    values = _defaults(scope)
    if row is not None:
        for name in values:
            if getattr(row, name) is not None:
                values[name] = getattr(row, name)
    return values


def _allowances(scope: str, key: str, limits: dict[str, Any]) -> list[Allowance]:
    return [
        Allowance(
            scope=scope,
            key=key,
            period=period,
            cost=limits[f"{name}_cost_usd"],
            tokens=limits[f"{name}_tokens"],
        )
        for period, name in ((DAY, "daily"), (MONTH, "monthly"))
    ]


def _limit_rows(user_id, token_id) -> dict[str, SpendingLimit]:
    """The rows of the user, the token and the installation, in one query."""
    where = Q(scope=SpendingLimit.Scope.INSTALLATION)
    if user_id is not None:
        where |= Q(scope=SpendingLimit.Scope.USER, user_id=user_id)
    if token_id is not None:
        where |= Q(scope=SpendingLimit.Scope.TOKEN, token_id=token_id)
    return {row.scope: row for row in SpendingLimit.objects.filter(where)}


# What a run's spender is built from, as JSON numbers can not carry them exactly: amounts as
# text, read back with their field's `to_python`.
_CHARGE_VALUES = (
    "user_id",
    "token_id",
    "max_calls",
    "max_tokens_per_call",
    "max_tokens",
    "max_cost_usd",
)
_LIMIT_VALUES = ("scope", "daily_cost_usd", "monthly_cost_usd", "daily_tokens", "monthly_tokens")


def spender_sql(subject: str, user: str) -> str:
    """An SQL expression (one JSON value) holding what `spender_for` builds a run's spender
    from: its charge, and the limit rows of who pays for it (the charge's user and token, or
    `user` when there is no charge) and of the installation. `subject` and `user` are SQL
    expressions; a statement that takes the run can return it (`spender_for(found=...)`)."""
    qn = connection.ops.quote_name

    def values(alias: str, model, names) -> str:
        columns = []
        for name in names:
            f = model._meta.get_field(name)
            column = f"{alias}.{qn(f.column)}"
            columns.append(f"{column}::text" if f.get_internal_type() == "DecimalField" else column)
        return f"json_build_array({', '.join(columns)})"

    scope = SpendingLimit.Scope
    hold = qn(Hold._meta.db_table)
    admission = (
        "(SELECT CASE WHEN count(*) = 0 THEN NULL ELSE json_build_array("
        "sum((h.entries->0->>'cost')::numeric)::text, sum((h.entries->0->>'tokens')::bigint)) "
        f"END FROM {hold} h WHERE h.admits = ch.subject)"
    )
    return (
        "(SELECT json_build_array("
        f"CASE WHEN ch.id IS NULL THEN NULL ELSE {values('ch', Charge, _CHARGE_VALUES)} END, "
        f"COALESCE(json_agg({values('l', SpendingLimit, _LIMIT_VALUES)}) "
        f"FILTER (WHERE l.id IS NOT NULL), '[]'), {admission}) "
        f"FROM (VALUES (1)) AS one (x) "
        f"LEFT JOIN {qn(Charge._meta.db_table)} ch ON ch.subject = {subject} "
        f"LEFT JOIN {qn(SpendingLimit._meta.db_table)} l ON l.scope = '{scope.INSTALLATION}' "
        f"OR (l.scope = '{scope.USER}' AND l.user_id = "
        f"CASE WHEN ch.id IS NULL THEN {user} ELSE ch.user_id END) "
        f"OR (l.scope = '{scope.TOKEN}' AND l.token_id = ch.token_id) "
        "GROUP BY ch.id)"
    )


def _read_found(found):
    """`spender_sql`'s value read: the charge's values (None: no charge), the limit rows by
    scope (unsaved, with the limits only), and the admission held for it (cost and tokens; None
    when it was not admitted)."""
    charge_row, limit_rows, admission = (*found, None)[:3]

    def read(model, names, row) -> dict[str, Any]:
        return {n: model._meta.get_field(n).to_python(v) for n, v in zip(names, row, strict=True)}

    charge = None if charge_row is None else read(Charge, _CHARGE_VALUES, charge_row)
    rows = {}
    for row in limit_rows:
        limit = SpendingLimit(**read(SpendingLimit, _LIMIT_VALUES, row))
        rows[limit.scope] = limit
    if admission is not None:
        admission = (Decimal(admission[0]), int(admission[1]))
    return charge, rows, admission


def _allowances_of(user_id, token_id, rows: dict[str, SpendingLimit]) -> list[Allowance]:
    found: list[Allowance] = []
    if user_id is not None:
        found += _allowances("user", f"user:{user_id}", effective_limits("user", rows.get("user")))
    if token_id is not None:
        found += _allowances(
            "token", f"token:{token_id}", effective_limits("token", rows.get("token"))
        )
    found += _allowances("global", "global", effective_limits("global", rows.get("global")))
    return [a for a in found if a.limited]


def account_allowances(user_id, token_id) -> list[Allowance]:
    """The day and month allowances of a user, a token and the installation."""
    return _allowances_of(user_id, token_id, _limit_rows(user_id, token_id))


def charge_open(*, subject: str, user=None, token=None) -> Charge:
    """Record who pays for a new debate or run, with the per-debate limits in force now."""
    (charge,) = charges_open(subjects=[subject], user=user, token=token)
    return charge


def charges_open(*, subjects: list[str], user=None, token=None) -> list[Charge]:
    """`charge_open` for several debates at once: one insert."""
    return Charge.objects.bulk_create(charges_for(subjects=subjects, user=user, token=token))


def charges_for(*, subjects: list[str], user=None, token=None) -> list[Charge]:
    """The charges `charges_open` stores (not saved: for a caller that stores them in a
    statement of its own, with what they are charged for)."""
    return [
        Charge(
            subject=subject,
            user=user if getattr(user, "pk", None) else None,
            token=token,
            max_calls=settings.BUDGET_DEBATE_MAX_CALLS,
            max_tokens_per_call=settings.BUDGET_DEBATE_MAX_TOKENS_PER_CALL,
            max_tokens=settings.BUDGET_DEBATE_MAX_TOKENS,
            max_cost_usd=settings.BUDGET_DEBATE_MAX_COST_USD,
        )
        for subject in subjects
    ]


# --- admission: a debate's whole worst case held on the account limits while it runs --------


def admits(charge: Charge) -> bool:
    """Whether a debate with this charge can be admitted: its own limits bound what it may
    spend in all (a token limit, so its cost is bounded at the dearest price too)."""
    return charge.max_tokens is not None


#: The least a debate is admitted for: a cost limit used up refuses even a debate whose models
#: cost nothing (its counters store 8 decimals).
LEAST_COST = Decimal("0.00000001")


def admission_entries(
    subject: str, allowances: list[Allowance], *, now, cost: Decimal, tokens: int
) -> list[dict[str, Any]]:
    """What admitting `subject` holds on each account counter: its most cost (at least
    `LEAST_COST`) and tokens."""
    cost = max(cost, LEAST_COST)
    return [
        {
            "admits": subject,
            "key": a.key,
            "period": period_key(a.period, now),
            "cost": str(cost),
            "tokens": tokens,
            "calls": 0,
            "limit_cost": None if a.cost is None else str(a.cost),
            "limit_tokens": a.tokens,
            "limit_calls": None,
        }
        for a in allowances
        if a.cost is not None or a.tokens is not None
    ]


def admit(*, worst: list[tuple[str, Decimal, int]], user=None, token=None) -> int:
    """Admit new debates (`worst`: each one's subject, most cost and most tokens) against the
    limits of `user`, `token` and the installation, all or none: each one's worst case is held
    on every counter (one hold per debate, `Hold.admits`) until it ends (`close`). Raises
    `BudgetExceeded` naming the first limit one would pass, with what it needs; the caller's
    transaction then keeps nothing (call it inside the one that stores the debates). Returns
    how many were held (none when no account limit applies). Two queries."""
    allowances = account_allowances(getattr(user, "pk", None), getattr(token, "pk", None))
    now = timezone.localtime()
    wanted = [
        admission_entries(subject, allowances, now=now, cost=cost, tokens=tokens)
        for subject, cost, tokens in worst
    ]
    if not wanted or not wanted[0]:
        return 0
    spender = Spender(allowances=tuple(allowances))
    found = accounting.Batch(spender, wanted, now)
    with connection.cursor() as cursor:
        cursor.execute(*found.sql())
        held, refused = found.read(cursor.fetchall())
    if refused is not None:
        index, exceeded = refused
        _, cost, tokens = worst[index]
        breach = exceeded.breach
        need = cost if breach.unit == COST else tokens
        raise BudgetExceeded(
            Breach(
                scope=breach.scope,
                period=breach.period,
                unit=breach.unit,
                used=breach.used,
                limit=breach.limit,
                resets_at=breach.resets_at,
                details={"needed": need} if need > LEAST_COST else {},
            )
        )
    return len(held)


def close_sql(subject: str) -> tuple[str, list[Any]]:
    """The statement (a SELECT) that ends a debate's admission: its hold is given back and
    what it spent counted in its place on the account counters (`budgets_close`)."""
    return "SELECT budgets_close(%s, %s)", [subject, timezone.now()]


def close(subject: str) -> int:
    """End a debate's (run's) admission, if it has one; returns how many holds it ended."""
    with connection.cursor() as cursor:
        cursor.execute(*close_sql(subject))
        return cursor.fetchone()[0]


def top_up(subject: str, *, cost: Decimal, tokens: int) -> bool:
    """Widen a debate's admission by `cost` and `tokens`, held on the same counters as its
    admission, if every limit has room (after a crash: what its calls lost in flight were
    counted as, so that they can be made again). False when it has no admission or no room."""
    first = Hold.objects.filter(admits=subject).order_by("id").first()
    if first is None:
        return False
    entries = [{**e, "cost": str(cost), "tokens": tokens} for e in first.entries]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT * FROM budgets_reserve(%s::jsonb, %s)", [json.dumps(entries), timezone.now()]
        )
        return cursor.fetchone()[0] is not None


def charge_lost(subject: str) -> list[dict[str, Any]]:
    """Count the calls of `subject` still holding a reservation as spent, at the most they
    held (their worker died: each may have been answered and billed). Call it only when no
    runner of `subject` is alive (under its lock). Returns what each was counted as: its call's
    key, cost, tokens in and out. One statement."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT call, cost, tokens_in, tokens_out FROM budgets_charge_holds("
            "ARRAY(SELECT id FROM budgets_hold WHERE run = %s), %s, %s)",
            [subject, timezone.now(), settings.TIME_ZONE],
        )
        return [
            {"call": call or "", "cost": cost, "tokens_in": tokens_in, "tokens_out": tokens_out}
            for call, cost, tokens_in, tokens_out in cursor.fetchall()
        ]


def spender_for(*, subject: str, user_id=None, found=None) -> Spender:
    """The spender a run reserves against: its charge (or, for one created before budgets
    existed, `user_id` and the settings), the account limits now in force. One query, none
    when `found` holds what `spender_sql` returned for it."""
    if found is None:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {spender_sql('%s', '%s')}", [subject, user_id])
            [found] = cursor.fetchone()
    charge, rows, admission = _read_found(found)
    if charge is not None:
        user_id, token_id = charge["user_id"], charge["token_id"]
        max_calls, max_tokens = charge["max_calls"], charge["max_tokens_per_call"]
        max_cost, max_total = charge["max_cost_usd"], charge["max_tokens"]
    else:
        token_id = None
        max_calls = settings.BUDGET_DEBATE_MAX_CALLS
        max_tokens = settings.BUDGET_DEBATE_MAX_TOKENS_PER_CALL
        max_cost, max_total = settings.BUDGET_DEBATE_MAX_COST_USD, None
    scope = "debate" if subject.startswith("debate:") else "run"
    if admission is not None:
        # Admitted: its admission holds its most on the account limits, so its calls are
        # reserved against its own counter only, within what was admitted.
        allowances = []
        max_cost, max_total = admission
    else:
        allowances = _allowances_of(user_id, token_id, rows)
    allowances.append(
        Allowance(
            scope=scope, key=subject, period=EVER, cost=max_cost, tokens=max_total, calls=max_calls
        )
    )
    return Spender(
        allowances=tuple(allowances),
        user_id=user_id,
        token_id=token_id,
        max_tokens=max_tokens,
        label=subject,
        admitted=admission is not None,
    )


def start_check(*, user=None, token=None) -> None:
    """Raise `BudgetExceeded` when a new debate or run could not make a single call: a cost
    limit of the user, the token or the installation is used up, or a token limit has less
    room left than one reply may use (BUDGET_DEBATE_MAX_TOKENS_PER_CALL). Two queries."""
    user_id = getattr(user, "pk", None)
    token_id = getattr(token, "pk", None)
    allowances = account_allowances(user_id, token_id)
    if not allowances:
        return
    now = timezone.localtime()
    wanted = {(a.key, period_key(a.period, now)): a for a in allowances}
    counters = {
        (c.key, c.period): c
        for c in Counter.objects.filter(
            key__in={k for k, _ in wanted}, period__in={p for _, p in wanted}
        )
    }
    reply = settings.BUDGET_DEBATE_MAX_TOKENS_PER_CALL or 0
    for (key, period), allowance in wanted.items():
        counter = counters.get((key, period))
        cost = counter.used_cost_usd + counter.reserved_cost_usd if counter else Decimal(0)
        tokens = counter.used_tokens + counter.reserved_tokens if counter else 0
        breach = None
        if allowance.cost is not None and cost >= allowance.cost:
            breach = (COST, cost, allowance.cost)
        elif allowance.tokens is not None and tokens + reply > allowance.tokens:
            breach = (TOKENS, tokens, allowance.tokens)
        if breach:
            unit, used, limit = breach
            raise BudgetExceeded(
                Breach(
                    scope=allowance.scope,
                    period=allowance.period,
                    unit=unit,
                    used=used,
                    limit=limit,
                    resets_at=resets_at(allowance.period, now),
                )
            )


@transaction.atomic
def limit_save(*, limit: SpendingLimit, actor, before: dict[str, Any] | None) -> SpendingLimit:
    """Store a staff edit of a limit, with an audit entry saying who changed what from what
    to what (`before`: `audited(limit)` before the edit, None for a new row)."""
    limit.full_clean()
    limit.save()
    limit.refresh_from_db()  # amounts as stored (2.5 -> 2.5000), so entries compare alike
    after = audited(limit)
    if before is None:
        audit.record(
            actor=actor,
            action="budget.create",
            subject=limit,
            changes={k: {"from": None, "to": v} for k, v in after.items()},
        )
    elif changes := audit.diff(before, after):
        audit.record(actor=actor, action="budget.change", subject=limit, changes=changes)
    return limit


@transaction.atomic
def limit_delete(*, limit: SpendingLimit, actor) -> None:
    """Remove a limit (its scope goes back to the defaults), recorded in the audit trail."""
    before = audited(limit)
    audit.record(
        actor=actor,
        action="budget.delete",
        subject=limit,
        changes={k: {"from": v, "to": None} for k, v in before.items()},
    )
    limit.delete()


CHARGE_FIELDS = ("max_calls", "max_tokens_per_call", "max_tokens", "max_cost_usd")


@transaction.atomic
def charge_save(*, charge: Charge, actor) -> Charge:
    """Store a staff edit of one debate's (run's) own limits, e.g. raised so that a re-run can
    finish it, with an audit entry from what to what."""
    before = audit.snapshot(Charge.objects.get(pk=charge.pk), CHARGE_FIELDS)
    charge.full_clean()
    charge.save(update_fields=list(CHARGE_FIELDS))
    charge.refresh_from_db(fields=list(CHARGE_FIELDS))
    if changes := audit.diff(before, audit.snapshot(charge, CHARGE_FIELDS)):
        audit.record(actor=actor, action="budget.debate_change", subject=charge, changes=changes)
    return charge


def audited(limit: SpendingLimit) -> dict[str, Any]:
    return audit.snapshot(limit, ("scope", "user", "token", *LIMIT_FIELDS))


def release_stale_holds() -> int:
    """Count as spent the holds of calls older than BUDGET_HOLD_TIMEOUT (longer than any call
    lasts: their worker died); returns how many."""
    return accounting.release_stale(older_than_seconds=settings.BUDGET_HOLD_TIMEOUT)
