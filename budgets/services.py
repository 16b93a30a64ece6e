"""Writes and the limits in force: who pays for a debate or run (`charge_open`), the spender a
run reserves against (`spender_for`), whether a new debate may start (`start_check`), and staff
edits of limits, recorded in the audit trail (`limit_save`)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

import audit
from budgets.accounting import release_stale
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
from budgets.models import Charge, Counter, SpendingLimit

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
_CHARGE_VALUES = ("user_id", "token_id", "max_calls", "max_tokens_per_call", "max_cost_usd")
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
    return (
        "(SELECT json_build_array("
        f"CASE WHEN ch.id IS NULL THEN NULL ELSE {values('ch', Charge, _CHARGE_VALUES)} END, "
        f"COALESCE(json_agg({values('l', SpendingLimit, _LIMIT_VALUES)}) "
        "FILTER (WHERE l.id IS NOT NULL), '[]')) "
        f"FROM (VALUES (1)) AS one (x) "
        f"LEFT JOIN {qn(Charge._meta.db_table)} ch ON ch.subject = {subject} "
        f"LEFT JOIN {qn(SpendingLimit._meta.db_table)} l ON l.scope = '{scope.INSTALLATION}' "
        f"OR (l.scope = '{scope.USER}' AND l.user_id = "
        f"CASE WHEN ch.id IS NULL THEN {user} ELSE ch.user_id END) "
        f"OR (l.scope = '{scope.TOKEN}' AND l.token_id = ch.token_id) "
        "GROUP BY ch.id)"
    )


def _read_found(found) -> tuple[dict[str, Any] | None, dict[str, SpendingLimit]]:
    """`spender_sql`'s value read: the charge's values (None: no charge) and the limit rows
    by scope (unsaved, with the limits only)."""
    charge_row, limit_rows = found

    def read(model, names, row) -> dict[str, Any]:
        return {n: model._meta.get_field(n).to_python(v) for n, v in zip(names, row, strict=True)}

    charge = None if charge_row is None else read(Charge, _CHARGE_VALUES, charge_row)
    rows = {}
    for row in limit_rows:
        limit = SpendingLimit(**read(SpendingLimit, _LIMIT_VALUES, row))
        rows[limit.scope] = limit
    return charge, rows


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
            max_cost_usd=settings.BUDGET_DEBATE_MAX_COST_USD,
        )
        for subject in subjects
    ]


def spender_for(*, subject: str, user_id=None, found=None) -> Spender:
    """The spender a run reserves against: its charge (or, for one created before budgets
    existed, `user_id` and the settings), the account limits now in force. One query, none
    when `found` holds what `spender_sql` returned for it."""
    if found is None:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {spender_sql('%s', '%s')}", [subject, user_id])
            [found] = cursor.fetchone()
    charge, rows = _read_found(found)
    if charge is not None:
        user_id, token_id = charge["user_id"], charge["token_id"]
        max_calls, max_tokens = charge["max_calls"], charge["max_tokens_per_call"]
        max_cost = charge["max_cost_usd"]
    else:
        token_id = None
        max_calls = settings.BUDGET_DEBATE_MAX_CALLS
        max_tokens = settings.BUDGET_DEBATE_MAX_TOKENS_PER_CALL
        max_cost = settings.BUDGET_DEBATE_MAX_COST_USD
    allowances = _allowances_of(user_id, token_id, rows)
    scope = "debate" if subject.startswith("debate:") else "run"
    allowances.append(
        Allowance(scope=scope, key=subject, period=EVER, cost=max_cost, calls=max_calls)
    )
    return Spender(
        allowances=tuple(allowances),
        user_id=user_id,
        token_id=token_id,
        max_tokens=max_tokens,
        label=subject,
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


CHARGE_FIELDS = ("max_calls", "max_tokens_per_call", "max_cost_usd")


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
    return release_stale(older_than_seconds=settings.BUDGET_HOLD_TIMEOUT)
