"""The analytics page over many finished debates: the render time (p50 / p95) and SQL queries of
the page and of every chart's CSV, with no filter (the last 30 days) and with each filter.

Usage: .venv/bin/python bench/analytics_bench.py [--debates 1000000] [--runs 9] [--csv-runs 5]

It uses its own database (BENCH_DATABASE_URL, default debates_analytics_bench) and Redis
database (BENCH_REDIS_URL, default 9). Rows are written by PostgreSQL (`bench/analytics_rows.py`:
`generate_series`, twelve calls and six statements per debate, over 30 days), in chunks of
100,000; a database that holds fewer bench debates than asked gets the rest added, so a run at
1,000,000 after one at 100,000 writes only the difference.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DB_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/debates_analytics_bench"
)
os.environ.update(
    DJANGO_SETTINGS_MODULE="config.settings.local",
    DATABASE_URL=DB_URL,
    REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/9"),
    DJANGO_LOG_LEVEL="WARNING",
)
CHUNK = 100_000


def ensure_database():
    import psycopg

    name = DB_URL.rsplit("/", 1)[1]
    with psycopg.connect(DB_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(client, url, params, runs):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url, params)  # warm up
    times, queries = [], 0
    for _ in range(runs):
        with CaptureQueriesContext(connection) as ctx:
            start = time.perf_counter()
            response = client.get(url, params)
            times.append(time.perf_counter() - start)
        assert response.status_code == 200, (response.status_code, response.content[:500])
        queries = len(ctx.captured_queries)
    return statistics.median(times), percentile(times, 0.95), queries


def seed(target: int, schedule) -> None:
    """As many bench debates as `target`, adding what is missing (written without the analytics
    roll-ups' triggers, as a bulk load is; the roll-ups are then built in one go and timed)."""
    from django.core.management import call_command
    from django.db import connection, transaction

    from bench import analytics_rows
    from debates.models import Debate

    have = Debate.objects.filter(query__startswith="question ").count()
    if have > target:
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE debates_debate CASCADE")
        have = 0
    if have < target:
        start = time.perf_counter()
        for offset in range(have, target, CHUNK):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SET LOCAL session_replication_role = replica")
                analytics_rows.seed(
                    min(CHUNK, target - offset), schedule_id=schedule.pk, offset=offset
                )
            print(f"  {min(offset + CHUNK, target)} debates written", flush=True)
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
        print(f"seeded {target - have} debates in {time.perf_counter() - start:.0f} s", flush=True)
    if "rollup_analytics" in _commands():
        from analytics import rollups

        if have < target or rollups.problem():
            start = time.perf_counter()
            call_command("rollup_analytics", verbosity=0)
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")
            print(f"rolled up in {time.perf_counter() - start:.0f} s", flush=True)


def _commands():
    from django.core.management import get_commands

    return get_commands()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--debates", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--csv-runs", type=int, default=5)
    args = parser.parse_args()
    ensure_database()
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    from analytics.charts import CHARTS
    from bench import analytics_rows
    from schedules.models import DebateSchedule

    call_command("migrate", verbosity=0)
    User = get_user_model()
    staff, _ = User.objects.get_or_create(
        username="bench-analyst", defaults={"is_staff": True, "is_superuser": True}
    )
    schedule = DebateSchedule.objects.filter(name="bench").first()
    if schedule is None:
        schedule = DebateSchedule.objects.create(
            name="bench", owner=staff, questions="q", kind="interval", every=1, period="days"
        )
    seed(args.debates, schedule)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM debates_llmcall")
        calls = cursor.fetchone()[0]
    print(f"{args.debates} debates, {calls} calls")

    client = Client(HTTP_HOST="localhost")
    client.force_login(staff)
    today = timezone.localdate()
    week = {"since": (today - timezone.timedelta(days=6)).isoformat()}
    year = {"since": (today - timezone.timedelta(days=364)).isoformat()}
    cases = [
        ("default (last 30 days, all debates)", {}),
        ("one protocol", {"protocol": "s4"}),
        (
            "one schedule and one model",
            {"schedule": schedule.pk, "model": analytics_rows.MODELS[0]},
        ),
        ("last 7 days", week),
        (
            "last 365 days (by week), one protocol and one model",
            {**year, "protocol": "round_robin", "model": analytics_rows.MODELS[1]},
        ),
    ]
    for label, params in cases:
        p50, p95, queries = measure(client, "/analytics/", params, args.runs)
        print(
            f"/analytics/ {label}: p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
            f"{queries} queries ({args.runs} runs)",
            flush=True,
        )
    worst = (0.0, "")
    for chart in CHARTS:
        for label, params in cases:
            p50, p95, queries = measure(client, f"/analytics/{chart.id}.csv", params, args.csv_runs)
            if p95 > worst[0]:
                worst = (
                    p95,
                    f"{chart.id}.csv, {label}: p50 {p50 * 1000:.0f} ms, {queries} queries",
                )
        print(f"/analytics/{chart.id}.csv: slowest p95 so far {worst[0] * 1000:.0f} ms", flush=True)
    print(f"slowest CSV: p95 {worst[0] * 1000:.0f} ms ({worst[1]})")


if __name__ == "__main__":
    main()
