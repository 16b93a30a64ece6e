"""Spending against a busy counter waits in the row's queue (migration 0007): while one
transaction has changed the installation's counter and not yet committed, the reservations and
settlements that need it line up behind it, one of them waiting on that transaction and the
others on the row's lock, so that its commit wakes one of them, not all. And the totals are
exact once they have all gone through; undoing the migration brings 0006's functions back."""

from __future__ import annotations

import threading
import time
from decimal import Decimal
from importlib import import_module

import pytest
from django.db import connection, transaction

from budgets import accounting
from budgets.limits import DAY, Allowance, Spender
from budgets.models import Counter, Hold

BEFORE = import_module("budgets.migrations.0006_set_based_reserve_settle")
QUEUED = import_module("budgets.migrations.0007_counters_queue_in_order")

INSTALLATION = Spender(
    allowances=(Allowance(scope="global", key="global", period=DAY, tokens=10**9),)
)
WAITERS = 3


def _waiting(pids: list[int]) -> list[str]:
    """What each of `pids` waits for (pg_locks' lock type), for those that wait."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT locktype FROM pg_locks WHERE NOT granted AND pid = ANY(%s) ORDER BY locktype",
            [pids],
        )
        return [locktype for (locktype,) in cursor.fetchall()]


def _behind_an_open_change(spend) -> tuple[list[str], list[BaseException]]:
    """Run `spend` in WAITERS threads (each on its own connection) while this connection has
    changed the installation's counter in a transaction still open; what they waited on."""
    pids: list[int] = []
    errors: list[BaseException] = []

    def one(n: int) -> None:
        try:
            connection.ensure_connection()
            pids.append(connection.connection.info.backend_pid)
            spend(n)
        except BaseException as exc:  # noqa: BLE001 - reported by the caller's assertion
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=one, args=(n,)) for n in range(WAITERS)]
    with transaction.atomic():
        Counter.objects.filter(key="global").update(used_calls=0)  # changed, not committed
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 20
        while (len(pids) < WAITERS or len(_waiting(pids)) < WAITERS) and not errors:
            assert time.monotonic() < deadline, f"not all waiting: {_waiting(pids)}"
            time.sleep(0.02)
        waits = _waiting(pids)
    for thread in threads:
        thread.join(timeout=20)
    return waits, errors


@pytest.mark.django_db(transaction=True)
def test_settling_against_a_counter_being_changed_waits_in_its_queue():
    reservations, _ = accounting.reserve_many(INSTALLATION, [(Decimal(0), 100)] * WAITERS)
    assert len(reservations) == WAITERS

    def settle(n: int) -> None:
        accounting.settle_now(
            *accounting.settle_many_sql([(reservations[n], "m", 40, 20, Decimal("0.01"))])
        )

    waits, errors = _behind_an_open_change(settle)
    assert not errors, errors
    assert waits == ["transactionid", "tuple", "tuple"]
    row = Counter.objects.get(key="global")
    assert (row.used_calls, row.used_tokens, row.used_cost_usd) == (
        WAITERS,
        60 * WAITERS,
        Decimal("0.01") * WAITERS,
    )
    assert (row.reserved_calls, row.reserved_tokens) == (0, 0)
    assert not Hold.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_reserving_against_a_counter_being_changed_waits_in_its_queue():
    accounting.reserve_many(INSTALLATION, [])  # nothing yet
    first, _ = accounting.reserve_many(INSTALLATION, [(Decimal(0), 100)])  # the counter exists
    held: list = []

    def reserve(n: int) -> None:
        reservations, refused = accounting.reserve_many(INSTALLATION, [(Decimal(0), 10)])
        assert refused is None
        held.extend(reservations)

    waits, errors = _behind_an_open_change(reserve)
    assert not errors, errors
    assert waits == ["transactionid", "tuple", "tuple"]
    assert len(held) == WAITERS
    row = Counter.objects.get(key="global")
    assert (row.reserved_calls, row.reserved_tokens) == (1 + WAITERS, 100 + 10 * WAITERS)


@pytest.mark.django_db(transaction=True)
def test_a_reservation_still_creates_the_counters_it_does_not_find():
    Counter.objects.all().delete()
    held, refused = accounting.reserve_many(INSTALLATION, [(Decimal(0), 7)] * 2)
    assert refused is None and len(held) == 2
    row = Counter.objects.get(key="global")
    assert (row.reserved_calls, row.reserved_tokens, row.used_calls) == (2, 14, 0)


@pytest.mark.django_db
def test_undoing_the_migration_brings_0006s_functions_back():
    def body(sql):
        return sql.split("$$")[1]

    def functions():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT proname, prosrc FROM pg_proc "
                "WHERE proname IN ('budgets_reserve_many', 'budgets_settle_many')"
            )
            return dict(cursor.fetchall())

    assert functions() == {
        "budgets_reserve_many": body(QUEUED.RESERVE_MANY),
        "budgets_settle_many": body(QUEUED.SETTLE_MANY),
    }
    with connection.cursor() as cursor:
        for operation in reversed(QUEUED.Migration.operations):
            cursor.execute(operation.reverse_sql)
    assert functions() == {
        "budgets_reserve_many": body(BEFORE.RESERVE_MANY),
        "budgets_settle_many": body(BEFORE.SETTLE_MANY),
    }
