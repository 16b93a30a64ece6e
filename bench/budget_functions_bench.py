"""What the spending-limit functions cost the database, before and after they were made
set-based (migration 0006): the loop of 0005 (created here as `old_budgets_reserve_many`)
against 0006's `budgets_reserve_many`, and 0002's loop `budgets_settle` once per call against
0006's `budgets_settle_many` for all, in one run.

For a step of 6 calls with 2 entries each (the installation's day and the debate) and with 4
(and the user's day and month), it times --iterations times:
- reserving the step: `budgets_reserve_many`, old and new;
- settling its 6 calls: `budgets_settle` 6 times, and `budgets_settle_many` once.
Each is run in a DO block that commits after every step (as the calls' own transactions do)
and adds up `clock_timestamp()` around the function calls only. Prints, per step and per call,
the milliseconds spent in the functions and the backend's CPU for the whole block (from
/proc/<backend pid>/stat: user + system time, so it also counts the loop and the commits),
and the ratios old / new. Each block runs --rounds times; the fastest round is shown.

Usage: .venv/bin/python bench/budget_functions_bench.py [--iterations 2000] [--rounds 2]
It uses its own database (BENCH_DATABASE_URL, default debates_budget_functions_bench).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DB_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/debates_budget_functions_bench"
)
os.environ.update(
    DJANGO_SETTINGS_MODULE="config.settings.local",
    DATABASE_URL=DB_URL,
    REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"),
    LITELLM_LOCAL_MODEL_COST_MAP="True",
    DJANGO_LOG_LEVEL="WARNING",
)
CALLS = 6
TICKS = os.sysconf("SC_CLK_TCK")


def ensure_database():
    import psycopg

    name = DB_URL.rsplit("/", 1)[1]
    with psycopg.connect(DB_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def migrate_and_add_old_functions():
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    reserve = importlib.import_module("budgets.migrations.0005_fold_reserve_many")
    with connection.cursor() as cursor:
        cursor.execute(
            reserve.RESERVE_MANY.replace("budgets_reserve_many(", "old_budgets_reserve_many(")
        )
    connection.close()


def entries(tag: str, count: int) -> list[dict]:
    """One call's entries: the installation's day and the debate, then the user's day and
    month; limits far away, so that every call fits (and every limit is checked)."""
    counters = [
        (f"global:{tag}", "d2026-11-24", {"limit_cost": "1000000", "limit_tokens": 10**12}),
        (f"debate:{tag}", "ever", {"limit_calls": 10**9}),
        (f"user:{tag}", "d2026-11-24", {"limit_cost": "1000000", "limit_tokens": 10**12}),
        (f"user:{tag}", "m2026-11", {"limit_cost": "1000000", "limit_tokens": 10**12}),
    ][:count]
    empty = {"limit_cost": None, "limit_tokens": None, "limit_calls": None}
    return [
        {"key": key, "period": period, "cost": "0.0012345", "tokens": 1500, "calls": 1}
        | empty
        | limits
        for key, period, limits in counters
    ]


def timed_block(body: str, declare: str = "") -> str:
    """A DO block that runs `body` (SQL with {iterations}, {function} ... left to fill, and the
    step's number `i`, from 0) once per step, committing after each, and reports the
    milliseconds spent in it (a notice). `declare`: its own variables."""
    return (
        """
DO $$
DECLARE
    spent interval := '0';
    t timestamptz;
"""
        + declare
        + """
BEGIN
    FOR i IN 0 .. {iterations} - 1 LOOP
"""
        + body
        + """
        spent := spent + (clock_timestamp() - t);
        COMMIT;
    END LOOP;
    RAISE NOTICE '%', extract(epoch FROM spent) * 1000;
END;
$$;
"""
    )


RESERVE = timed_block(
    """
        t := clock_timestamp();
        PERFORM * FROM {function}('{wanted}'::jsonb, now());"""
)

# The holds are made beforehand, ids first_id onwards, 6 a step.
HOLDS = """
    first_id bigint := (SELECT min(id) FROM budgets_hold);"""

SETTLE_ONE_BY_ONE = timed_block(
    """
        t := clock_timestamp();
        FOR k IN 0 .. {calls} - 1 LOOP
            PERFORM {function}(first_id + i * {calls} + k, call, 0.0011, 1400, 1, now(),
                               current_date, 1, NULL, 'bench-model', 1000, 400);
        END LOOP;""",
    HOLDS
    + """
    call jsonb := '{entries}'::jsonb;""",
)

SETTLE_TOGETHER = timed_block(
    """
        ids := ARRAY(SELECT first_id + i * {calls} + k FROM generate_series(0, {calls} - 1) k);
        t := clock_timestamp();
        PERFORM budgets_settle_many(
            ids, calls, array_fill(0.0011, ARRAY[{calls}]), array_fill(1400::bigint,
            ARRAY[{calls}]), array_fill(1, ARRAY[{calls}]), now(),
            array_fill(current_date, ARRAY[{calls}]), 1, NULL,
            array_fill('bench-model'::text, ARRAY[{calls}]),
            array_fill(1000::bigint, ARRAY[{calls}]), array_fill(400::bigint, ARRAY[{calls}]));""",
    HOLDS
    + """
    calls jsonb[] := array_fill('{entries}'::jsonb, ARRAY[{calls}]);
    ids bigint[];""",
)


def backend_cpu(pid: int) -> float:
    """The backend's user + system CPU seconds so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def run_block(conn, pid: int, sql: str) -> tuple[float, float]:
    """(milliseconds in the functions, backend CPU milliseconds) of one DO block."""
    notices = []

    def heard(diag):
        notices.append(float(diag.message_primary))

    conn.add_notice_handler(heard)
    cpu = backend_cpu(pid)
    conn.execute(sql)
    cpu = backend_cpu(pid) - cpu
    conn.remove_notice_handler(heard)
    return notices[-1], cpu * 1000


def fresh(conn):
    conn.execute("TRUNCATE budgets_counter, budgets_hold, budgets_usage")
    conn.execute("VACUUM ANALYZE budgets_counter, budgets_hold, budgets_usage")


def make_holds(conn, call: list[dict], iterations: int):
    """The holds (and the counters' reservations) of iterations steps, taken by one statement:
    their ids follow each other, 6 a step."""
    conn.execute(
        "SELECT count(*) FROM budgets_reserve_many(%s::jsonb, now())",
        [json.dumps([call] * iterations * CALLS)],
    )


def measure(conn, pid: int, label: str, sql: str, iterations: int, setup=None) -> dict:
    fresh(conn)
    if setup:
        setup()
    ms, cpu = run_block(conn, pid, sql)
    return {"label": label, "ms": ms / iterations, "cpu": cpu / iterations}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    ensure_database()
    migrate_and_add_old_functions()
    import psycopg

    n = args.iterations
    with psycopg.connect(DB_URL, autocommit=True) as conn:
        pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        rows = []
        for count in (2, 4):
            call = entries("bench", count)
            wanted = json.dumps([call] * CALLS)
            step = f"{CALLS} calls x {count} entries"
            cases = [
                (
                    f"reserve_many, {step}",
                    [
                        (f, RESERVE.format(iterations=n, function=f, wanted=wanted), None)
                        for f in ("old_budgets_reserve_many", "budgets_reserve_many")
                    ],
                ),
                (
                    f"settle, {step}",
                    [
                        (
                            "budgets_settle",
                            SETTLE_ONE_BY_ONE.format(
                                iterations=n,
                                calls=CALLS,
                                function="budgets_settle",
                                entries=json.dumps(call),
                            ),
                            lambda call=call: make_holds(conn, call, n),
                        ),
                        (
                            "budgets_settle_many",
                            SETTLE_TOGETHER.format(
                                iterations=n, calls=CALLS, entries=json.dumps(call)
                            ),
                            lambda call=call: make_holds(conn, call, n),
                        ),
                    ],
                ),
            ]
            for label, variants in cases:
                best = {}
                for _ in range(args.rounds):
                    for function, sql, setup in variants:
                        r = measure(conn, pid, function, sql, n, setup)
                        if function not in best or r["ms"] < best[function]["ms"]:
                            best[function] = r
                rows.append((label, list(best.values())))
    print(f"{n} steps of {CALLS} calls each; ms per step (per call); backend CPU ms per step")
    for label, results in rows:
        print(label)
        old = results[0]
        for r in results:
            print(
                f"  {r['label']:<26} {r['ms']:7.3f} ms ({r['ms'] / CALLS:6.3f} a call)  "
                f"CPU {r['cpu']:7.3f} ms   old/new {old['ms'] / r['ms']:5.2f}x "
                f"(CPU {old['cpu'] / r['cpu']:5.2f}x)"
            )


if __name__ == "__main__":
    main()
