"""Spending-limit benchmark: what reserving and settling cost each LLM call, and how it holds
when many threads spend against one budget at once (the installation's counter is one row
every call locks).

Prints, for 1, 4 and 16 threads each making --calls reserve+settle pairs against the same
budgets (a user's day and month, the installation's day, a debate): pairs per second, the
median and 95th percentile time of one pair, and whether the budget held (used <= limit,
nothing left reserved).

Usage: .venv/bin/python bench/budget_bench.py [--calls 300]
It uses its own database (BENCH_DATABASE_URL, default debates_budget_bench).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DB_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/debates_budget_bench"
)
os.environ.update(
    DJANGO_SETTINGS_MODULE="config.settings.local",
    DATABASE_URL=DB_URL,
    REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13"),
    LITELLM_LOCAL_MODEL_COST_MAP="True",
    DJANGO_LOG_LEVEL="WARNING",
)


def ensure_database():
    import psycopg

    name = DB_URL.rsplit("/", 1)[1]
    with psycopg.connect(DB_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def run(threads: int, calls: int, limit_tokens: int) -> dict:
    from django.db import connection

    from budgets import accounting
    from budgets.limits import DAY, EVER, MONTH, Allowance, BudgetExceeded, Spender
    from budgets.models import Counter, Hold, Usage

    Counter.objects.all().delete()
    Hold.objects.all().delete()
    Usage.objects.all().delete()
    spender = Spender(
        allowances=(
            Allowance(scope="user", key="user:1", period=DAY, tokens=limit_tokens),
            Allowance(scope="user", key="user:1", period=MONTH, cost=Decimal("1000")),
            Allowance(scope="global", key="global", period=DAY, cost=Decimal("1000")),
            Allowance(scope="debate", key="debate:bench", period=EVER, calls=10**9),
        ),
        user_id=1,
    )
    times: list[float] = []
    refused = [0]
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def worker():
        mine = []
        start.wait()
        try:
            for _ in range(calls):
                t0 = time.perf_counter()
                try:
                    held = accounting.reserve(spender, cost=Decimal("0.001"), tokens=100)
                except BudgetExceeded:
                    with lock:
                        refused[0] += 1
                    continue
                accounting.settle(
                    held, model="bench", tokens_in=80, tokens_out=20, cost=Decimal("0.001")
                )
                mine.append(time.perf_counter() - t0)
        finally:
            connection.close()
            with lock:
                times.extend(mine)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    t0 = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    elapsed = time.perf_counter() - t0
    user_day = Counter.objects.get(key="user:1", period__startswith="d")
    return {
        "threads": threads,
        "pairs": len(times),
        "refused": refused[0],
        "per_second": len(times) / elapsed,
        "median_ms": statistics.median(times) * 1000,
        "p95_ms": statistics.quantiles(times, n=20)[-1] * 1000,
        "held": user_day.used_tokens <= limit_tokens and user_day.reserved_tokens == 0,
        "used": user_day.used_tokens,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    ensure_database()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    print("threads  pairs  refused  pairs/s  median ms  p95 ms  budget held (used/limit)")
    for threads in (1, 4, 16):
        limit = threads * args.calls * 100 * 3 // 4  # a quarter of the calls do not fit
        r = run(threads, args.calls, limit)
        print(
            f"{r['threads']:>7}  {r['pairs']:>5}  {r['refused']:>7}  {r['per_second']:>7.0f}  "
            f"{r['median_ms']:>9.2f}  {r['p95_ms']:>6.2f}  {r['held']} ({r['used']}/{limit})"
        )


if __name__ == "__main__":
    main()
