"""The set-based reserving and settling functions (migration 0006) against the loops they
replace (0002's `budgets_settle`, 0005's `budgets_reserve_many`, kept here under other names):
the same rows returned and the same counters, holds and usage after random sequences of
steps; refusals named alike; no deadlock when two connections spend against the same counters
at once; and the migration undone brings the loops back."""

from __future__ import annotations

import json
import random
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from importlib import import_module

import pytest
from django.db import connection, transaction

from budgets import accounting
from budgets.limits import DAY, EVER, MONTH, Allowance, Spender
from budgets.models import Counter, Hold, Usage
from tests.support.threads import at_once

BEFORE = {
    "settle": import_module("budgets.migrations.0002_budgets_reserve_settle_functions").SETTLE,
    "reserve_many": import_module("budgets.migrations.0005_fold_reserve_many").RESERVE_MANY,
}
SET_BASED = import_module("budgets.migrations.0006_set_based_reserve_settle")

T0 = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
PAIRS = [
    (key, period)
    for key in ("debate:a", "debate:b", "global", "token:3", "user:1", "user:2")
    for period in ("d2026-11-24", "ever", "m2026-11")
]
DAYS = [date(2026, 11, 24), date(2026, 11, 25)]
MODELS = ["m1", "m2", None]


@pytest.fixture
def old_functions(db):
    """The functions as they were before 0006, as `old_budgets_settle` and
    `old_budgets_reserve_many` (gone with the test's transaction)."""
    with connection.cursor() as cursor:
        cursor.execute(BEFORE["settle"].replace("budgets_settle(", "old_budgets_settle("))
        cursor.execute(
            BEFORE["reserve_many"].replace("budgets_reserve_many(", "old_budgets_reserve_many(")
        )


def _amount(rng: random.Random, most: int) -> Decimal:
    """A cost below `most` hundredths, with 2 to 10 decimals; half of those with 9 or 10 end
    in a 5 (a half of the 8th decimal the counters keep, where rounding differs most)."""
    places = rng.choice([2, 8, 9, 10])
    units = rng.randrange(0, most * 10 ** (places - 2))
    if places > 8 and rng.random() < 0.5:
        units = units // 10 * 10 + 5
    return Decimal(units).scaleb(-places)


def _limits(rng: random.Random) -> dict:
    return {
        "limit_cost": None if rng.random() < 0.4 else str(_amount(rng, 300)),
        "limit_tokens": None if rng.random() < 0.4 else rng.randrange(200, 4000),
        "limit_calls": None if rng.random() < 0.5 else rng.randrange(1, 12),
    }


@dataclass
class Sequence:
    """One random sequence of steps, played with the old functions (`prefix` "old_") or the
    new ones: what each step returned, with the holds named by the call that took them."""

    seed: int
    prefix: str
    log: list = field(default_factory=list)
    holds: dict = field(default_factory=dict)  # hold id -> (step, call index)
    entries: dict = field(default_factory=dict)  # (step, call index) -> its entries
    outstanding: list = field(default_factory=list)

    def play(self):
        rng = random.Random(self.seed)
        self._start(rng)
        for step in range(rng.randrange(6, 16)):
            at = T0 + timedelta(minutes=step)
            action = rng.choices(["reserve", "settle", "release"], weights=[4, 3, 1])[0]
            getattr(self, action)(rng, step, at)
        return self.log, self.state()

    def _start(self, rng):
        """Counters and usage already there: some reserved, some less than will be given
        back."""
        with connection.cursor() as cursor:
            for key, period in rng.sample(PAIRS, rng.randrange(0, 8)):
                cursor.execute(
                    "INSERT INTO budgets_counter (key, period, used_cost_usd, used_tokens, "
                    "used_calls, reserved_cost_usd, reserved_tokens, reserved_calls, updated_at) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    [
                        key,
                        period,
                        _amount(rng, 200),
                        rng.randrange(0, 3000),
                        rng.randrange(0, 8),
                        _amount(rng, 50),
                        rng.randrange(0, 500),
                        rng.randrange(0, 3),
                        T0 - timedelta(days=1),
                    ],
                )
            if rng.random() < 0.5:
                cursor.execute(
                    "INSERT INTO budgets_usage (day, user_id, token_id, model, calls, tokens_in, "
                    "tokens_out, cost_usd) VALUES (%s, 1, NULL, 'm1', 3, 100, 10, 0.5)",
                    [DAYS[0]],
                )

    def reserve(self, rng, step, at):
        pairs = rng.sample(PAIRS, rng.randrange(1, 5))
        limits = {pair: _limits(rng) for pair in pairs}
        wanted, mixed = [], rng.random() < 0.2  # mixed: calls limited by different counters
        for _ in range(rng.randrange(1, 7)):
            cost, tokens = _amount(rng, 40), rng.randrange(0, 900)
            calls = 1 if rng.random() < 0.9 else rng.choice([0, 2])
            entries = [
                {"key": k, "period": p, "cost": str(cost), "tokens": tokens, "calls": calls}
                | limits[(k, p)]
                for k, p in (
                    rng.sample(pairs, rng.randrange(1, len(pairs) + 1)) if mixed else pairs
                )
            ]
            wanted.append([] if rng.random() < 0.05 else entries)
        skip = None
        if rng.random() < 0.4:
            skip = [rng.random() < 0.3 for _ in range(rng.randrange(0, len(wanted) + 1))]
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT * FROM {self.prefix}budgets_reserve_many(%s::jsonb, %s, %s::boolean[])",
                [json.dumps(wanted), at, skip],
            )
            rows = cursor.fetchall()
        for index, hold_id, *_ in rows:
            if hold_id is not None:
                self.holds[hold_id] = (step, index)
                self.entries[(step, index)] = wanted[index]
                self.outstanding.append((step, index))
        self.log.append(("reserve", [(index, held is not None, *b) for index, held, *b in rows]))

    def settle(self, rng, step, at):
        chosen = rng.sample(self.outstanding, rng.randrange(0, len(self.outstanding) + 1))
        for handle in chosen:
            self.outstanding.remove(handle)
        if chosen and rng.random() < 0.1:
            chosen.append(rng.choice(chosen))  # one hold named twice
        items = [(handle, self.entries[handle]) for handle in chosen]
        for _ in range(rng.choice([0, 0, 1, 2])):  # calls with no hold: unlimited, or
            items.append((None, [] if rng.random() < 0.5 else self._spent(rng)))  # released
        rng.shuffle(items)
        user, token = rng.choice([None, 1, 2]), rng.choice([None, 3])
        calls = [self._call(rng, handle, spent) for handle, spent in items]
        split = rng.randrange(0, len(calls) + 1)
        alone, together = calls[:split], calls[split:]
        with connection.cursor() as cursor:
            for call in alone:
                self._settle_one(cursor, call, at, user, token)
            if self.prefix:
                for call in together:
                    self._settle_one(cursor, call, at, user, token)
            elif together:
                cursor.execute(
                    "SELECT budgets_settle_many(%s::bigint[], %s::jsonb[], %s::numeric[], "
                    "%s::bigint[], %s::int[], %s, %s::date[], %s, %s, %s::text[], "
                    "%s::bigint[], %s::bigint[])",
                    [
                        [c["held"] for c in together],
                        [json.dumps(c["spent"]) for c in together],
                        [c["cost"] for c in together],
                        [c["tokens_in"] + c["tokens_out"] for c in together],
                        [c["calls"] for c in together],
                        at,
                        [c["day"] for c in together],
                        user,
                        token,
                        [c["model"] for c in together],
                        [c["tokens_in"] for c in together],
                        [c["tokens_out"] for c in together],
                    ],
                )
        self.log.append(("settle", len(alone), len(together)))

    def _spent(self, rng):
        cost, tokens = _amount(rng, 40), rng.randrange(0, 900)
        return [
            {"key": k, "period": p, "cost": str(cost), "tokens": tokens, "calls": 1}
            for k, p in rng.sample(PAIRS, rng.randrange(1, 4))
        ]

    def _call(self, rng, handle, spent):
        hold_id = next((h for h, named in self.holds.items() if named == handle), None)
        if spent and rng.random() < 0.1:
            spent = [*spent, spent[0]]  # a counter named twice: counted twice
        released = rng.random() < 0.1  # a reservation given back unused: no call, no model
        return {
            "held": hold_id,
            "spent": spent,
            "cost": Decimal(0) if released else _amount(rng, 60),
            "tokens_in": 0 if released else rng.randrange(0, 700),
            "tokens_out": 0 if released else rng.randrange(0, 300),
            "calls": 0 if released else 1,
            "day": rng.choice(DAYS),
            "model": None if released else rng.choice(MODELS),
        }

    def _settle_one(self, cursor, call, at, user, token):
        cursor.execute(
            f"SELECT {self.prefix}budgets_settle(%s, %s::jsonb, %s, %s, %s, %s, %s, %s, %s, "
            "%s, %s, %s)",
            [
                call["held"],
                json.dumps(call["spent"]),
                call["cost"],
                call["tokens_in"] + call["tokens_out"],
                call["calls"],
                at,
                call["day"],
                user,
                token,
                call["model"],
                call["tokens_in"],
                call["tokens_out"],
            ],
        )

    def release(self, rng, step, at):
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT budgets_release_stale(%s, 'UTC')",
                [T0 + timedelta(minutes=rng.randint(0, step))],
            )
            self.log.append(("release", cursor.fetchone()[0]))

    def state(self):
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT key, period, used_cost_usd, used_tokens, used_calls, reserved_cost_usd, "
                "reserved_tokens, reserved_calls, updated_at FROM budgets_counter "
                "ORDER BY key, period"
            )
            counters = [tuple(map(str, row)) for row in cursor.fetchall()]
            cursor.execute("SELECT id, entries::text, created_at FROM budgets_hold")
            holds = sorted((self.holds.get(i, "?"), e, c) for i, e, c in cursor.fetchall())
            cursor.execute(
                "SELECT day, user_id, token_id, model, calls, tokens_in, tokens_out, "
                "cost_usd::text FROM budgets_usage ORDER BY day, user_id, token_id, model"
            )
            usage = cursor.fetchall()
        return counters, holds, usage


def _played(seed: int, prefix: str):
    """The sequence played from the state it starts in, which is then put back."""
    with transaction.atomic():
        played = Sequence(seed, prefix).play()
        transaction.set_rollback(True)
    return played


@pytest.mark.django_db
def test_random_sequences_end_as_they_did_with_the_loops(old_functions):
    seen = {"refused": 0, "reserved": 0, "released": 0, "settled together": 0}
    for seed in range(200):
        old_log, old_state = _played(seed, "old_")
        new_log, new_state = _played(seed, "")
        assert new_log == old_log, f"seed {seed}"
        assert new_state == old_state, f"seed {seed}"
        for entry in new_log:
            if entry[0] == "reserve":
                seen["reserved"] += sum(1 for row in entry[1] if row[1])
                seen["refused"] += sum(1 for row in entry[1] if not row[1])
            elif entry[0] == "release":
                seen["released"] += entry[1]
            else:
                seen["settled together"] += entry[2]
    # The sequences went through every path: refusals, stale holds, calls settled together.
    assert all(count > 50 for count in seen.values()), seen


def _reserve_both(wanted, skip=None):
    rows = {}
    for prefix in ("old_", ""):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                f"SELECT * FROM {prefix}budgets_reserve_many(%s::jsonb, %s, %s::boolean[])",
                [json.dumps(wanted), T0, skip],
            )
            rows[prefix] = [(i, h is not None, *b) for i, h, *b in cursor.fetchall()]
            transaction.set_rollback(True)
    return rows["old_"], rows[""]


def _entry(key, period="ever", *, cost="0.1", tokens=100, **limits):
    return {"key": key, "period": period, "cost": cost, "tokens": tokens, "calls": 1} | {
        name: limits.get(name) for name in ("limit_cost", "limit_tokens", "limit_calls")
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("wanted", "skip", "refusal"),
    [
        # The third call would pass the cost limit, counting the two before it.
        (
            [[_entry("user:1", "d1", cost="0.4", limit_cost="1")]] * 3,
            None,
            (2, False, "user:1", "d1", "cost", Decimal("0.8"), Decimal("1")),
        ),
        # The second entry (in key order) refuses on tokens; the first had room. The first
        # call is skipped.
        (
            [[_entry("user:1", tokens=300, limit_tokens=1000), _entry("global")]] * 5,
            [True],
            (4, False, "user:1", "ever", "tokens", 900, 1000),
        ),
        # Every limit passed at once: cost is named first; the first call is refused.
        (
            [[_entry("debate:a", cost="2", tokens=5000, limit_cost="1", limit_tokens=10)]],
            None,
            (0, False, "debate:a", "ever", "cost", 0, 1),
        ),
        # Two call limits passed at once: the counter that sorts first is named.
        (
            [[_entry("global", limit_calls=1), _entry("debate:b", limit_calls=1)]] * 2,
            None,
            (1, False, "debate:b", "ever", "calls", 1, 1),
        ),
    ],
)
def test_a_refusal_is_the_row_the_loop_returned(old_functions, wanted, skip, refusal):
    old, new = _reserve_both(wanted, skip)
    assert new == old
    assert new[-1] == refusal
    assert len(new) == refusal[0] + 1 - sum(skip or [])
    assert all(held for _, held, *_ in new[:-1])


def _spender(*allowances, user_id=None, token_id=None) -> Spender:
    return Spender(allowances=allowances, user_id=user_id, token_id=token_id)


def _run_prepared(sql, params):
    """As the statements that store a step's replies run: values sent apart, prepared."""
    with connection.connection.cursor() as cursor:
        cursor.execute(sql, params, prepare=True)


@pytest.mark.django_db
@pytest.mark.parametrize("run", [accounting.settle_now, _run_prepared], ids=["plain", "prepared"])
def test_calls_that_return_together_are_settled_by_one_statement(run, django_assert_num_queries):
    who = _spender(
        Allowance(scope="user", key="user:5", period=DAY, tokens=10_000),
        Allowance(scope="debate", key="debate:s", period=EVER, calls=10),
        user_id=5,
    )
    held, _ = accounting.reserve_many(who, [(Decimal("0.01"), 300)] * 3)
    found = accounting.settle_many_sql(
        [
            (held[0], "m1", 100, 20, Decimal("0.002")),
            (held[1], "m1", 50, 5, 0),
            (held[2], "", 0, 0, Decimal(0)),  # no reply: still a call, no usage
        ]
    )
    with django_assert_num_queries(1 if run is accounting.settle_now else 0):
        run(*found)
    row = Counter.objects.get(key="user:5")
    assert (row.used_tokens, row.used_calls, row.reserved_tokens, row.reserved_calls) == (
        175,
        3,
        0,
        0,
    )
    assert Counter.objects.get(key="debate:s").used_calls == 3
    assert not Hold.objects.exists()
    usage = Usage.objects.get()
    assert (usage.user_id, usage.model, usage.calls, usage.tokens_in, usage.tokens_out) == (
        5,
        "m1",
        2,
        150,
        25,
    )
    assert usage.cost_usd == Decimal("0.002")


@pytest.mark.django_db
def test_settling_together_calls_with_nothing_to_count_is_no_statement():
    who = _spender(user_id=1)
    assert accounting.settle_many_sql([]) is None
    assert accounting.settle_many_sql([(accounting.unlimited(who), "", 0, 0, Decimal(0))]) is None
    other = accounting.unlimited(_spender(user_id=2))
    with pytest.raises(ValueError, match="one spender"):
        accounting.settle_many_sql(
            [(accounting.unlimited(who), "m", 1, 1, Decimal(0)), (other, "m", 1, 1, Decimal(0))]
        )


@pytest.mark.django_db(transaction=True)
def test_two_connections_spending_against_the_same_counters_do_not_deadlock():
    user_day = Allowance(scope="user", key="user:1", period=DAY, tokens=150_000)
    user_month = Allowance(scope="user", key="user:1", period=MONTH, cost=Decimal("1000"))
    installation = Allowance(scope="global", key="global", period=DAY, tokens=10**9)
    spenders = [  # the same counters, named in other orders, and one of each their own
        _spender(
            installation,
            user_day,
            user_month,
            Allowance(scope="debate", key="debate:a", period=EVER, calls=10**6),
            user_id=1,
        ),
        _spender(
            Allowance(scope="debate", key="debate:b", period=EVER, calls=10**6),
            user_month,
            user_day,
            installation,
            user_id=1,
        ),
    ]
    settled = [[0, 0, Decimal(0)], [0, 0, Decimal(0)]]  # calls, tokens, cost per thread

    def spend(n: int):
        rng = random.Random(n)
        for round_ in range(120):
            with transaction.atomic(durable=True) if round_ % 3 == 0 else nullcontext():
                wanted = [(Decimal("0.001"), rng.randrange(50, 500))] * rng.randrange(1, 7)
                held, _ = accounting.reserve_many(spenders[n], wanted)
                items = [
                    (r, rng.choice(["m1", "m2"]), rng.randrange(0, 400), 10, Decimal("0.002"))
                    for r in held
                ]
                alone = items[: rng.randrange(0, len(items) + 1)]
                for r, model, tokens_in, tokens_out, cost in alone:
                    accounting.settle(
                        r, model=model, tokens_in=tokens_in, tokens_out=tokens_out, cost=cost
                    )
                found = accounting.settle_many_sql(items[len(alone) :])
                if found:
                    accounting.settle_now(*found)
            for _, _, tokens_in, tokens_out, cost in items:
                settled[n][0] += 1
                settled[n][1] += tokens_in + tokens_out
                settled[n][2] += cost

    at_once(lambda: spend(0), lambda: spend(1))  # a deadlock would be raised here
    calls, tokens, cost = (sum(column) for column in zip(*settled, strict=True))
    assert 0 < calls
    for key, period in [("user:1", "d"), ("user:1", "m"), ("global", "d")]:
        row = Counter.objects.get(key=key, period__startswith=period)
        assert (row.used_calls, row.used_tokens, row.used_cost_usd) == (calls, tokens, cost)
        assert (row.reserved_calls, row.reserved_tokens, row.reserved_cost_usd) == (0, 0, 0)
    assert [Counter.objects.get(key=f"debate:{d}").used_calls for d in "ab"] == [
        settled[0][0],
        settled[1][0],
    ]
    assert not Hold.objects.exists()
    assert sum(Usage.objects.values_list("calls", flat=True)) == calls


@pytest.mark.django_db
def test_undoing_the_migration_brings_the_loops_back():
    def body(sql):
        return sql.split("$$")[1]

    with connection.cursor() as cursor:
        for operation in reversed(SET_BASED.Migration.operations):
            cursor.execute(operation.reverse_sql)
        cursor.execute(
            "SELECT proname, lanname, prosrc FROM pg_proc JOIN pg_language l "
            "ON l.oid = prolang WHERE proname LIKE 'budgets_%' ORDER BY proname"
        )
        functions = {name: (language, source) for name, language, source in cursor.fetchall()}
    assert "budgets_settle_many" not in functions
    assert functions["budgets_settle"] == ("plpgsql", body(BEFORE["settle"]))
    assert functions["budgets_reserve_many"] == ("plpgsql", body(BEFORE["reserve_many"]))
