"""The analytics page over many debates: its render time (p50 / p95) and SQL queries, for the
default view (the last 30 days, every debate) and filtered by a schedule and a model.

Usage: .venv/bin/python bench/analytics_bench.py [--debates 100000] [--runs 15] [--keep]
It uses its own database (BENCH_DATABASE_URL, default debates_analytics_bench) and Redis
database (BENCH_REDIS_URL, default 9). Rows come from `tests/analytics/bulk.py` (bulk inserts:
three agents, three calls and up to three revisions per debate, over 30 days); --keep reuses
them when the database already holds that many.
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
        assert response.status_code == 200, response.status_code
        queries = len(ctx.captured_queries)
    return statistics.median(times), percentile(times, 0.95), queries


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--debates", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--keep", action="store_true", help="reuse rows already seeded")
    args = parser.parse_args()
    ensure_database()
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from debates.models import Debate
    from schedules.models import DebateSchedule
    from tests.analytics import bulk

    call_command("migrate", verbosity=0)
    User = get_user_model()
    staff, _ = User.objects.get_or_create(
        username="bench-analyst", defaults={"is_staff": True, "is_superuser": True}
    )
    schedule = DebateSchedule.objects.filter(name="bench").first()
    if not (args.keep and schedule and Debate.objects.count() == args.debates):
        Debate.objects.all().delete()
        DebateSchedule.objects.filter(name="bench").delete()
        schedule = DebateSchedule.objects.create(
            name="bench", owner=staff, questions="q", kind="interval", every=1, period="days"
        )
        start = time.perf_counter()
        bulk.seed(args.debates, schedule=schedule)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        print(f"seeded {args.debates} debates in {time.perf_counter() - start:.0f} s")

    client = Client(HTTP_HOST="localhost")
    client.force_login(staff)
    cases = [
        ("default (last 30 days, all debates)", {}),
        ("one protocol", {"protocol": "s4"}),
        ("one schedule and one model", {"schedule": schedule.pk, "model": bulk.MODELS[0]}),
    ]
    for label, params in cases:
        p50, p95, queries = measure(client, "/analytics/", params, args.runs)
        print(
            f"/analytics/ {label}: p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
            f"{queries} queries ({args.runs} runs, {args.debates} debates)"
        )
    p50, p95, queries = measure(client, "/analytics/cost-by-model.csv", {}, args.runs)
    print(
        f"/analytics/cost-by-model.csv: p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
        f"{queries} queries"
    )


if __name__ == "__main__":
    main()
