"""Review queue benchmark: the queue page over many items, and what enqueueing costs a debate.

Prints:
  1. time (p50, p95, max of --runs) and SQL queries to render /reviews/ for several views, with
     --items review items in the table (a fifth of them closed, so 4/5 open or claimed; a tenth
     of the active ones past their deadline; a fifth assigned to the analyst);
  2. the query plan of the default view (should use the partial index
     reviewitem_active_queue_due);
  3. SQL queries that enqueueing adds to completing a debate that needs review;
  4. the deadline sweep and the agreement report over the same table.

Usage: .venv/bin/python bench/review_queue_bench.py [--items 12500] [--runs 20]
(12,500 items: 10,000 of them open or claimed). It uses its own database (debates_review_bench)
and Redis database 13.
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
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/debates_review_bench"
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


def fill(n_items: int, staff) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from debates.models import Debate
    from reviews.models import ReviewItem

    ReviewItem.objects.all().delete()
    Debate.objects.filter(query__startswith="Bench question").delete()
    now = timezone.now()
    # One item per debate (as the queue opens them), each listing two reasons.
    reasons = ["safety_veto", "parse_failure", "split_vote", "low_confidence"]
    n_debates = n_items
    batch = 5000
    made = 0
    for start in range(0, n_debates, batch):
        debates = Debate.objects.bulk_create(
            Debate(
                query=f"Bench question {i}: is this worth a human look?",
                status="completed",
                decision="WARN",
                consensus_type="split",
                completed_at=now,
                metadata={
                    "vote_breakdown": {"ACT": 1, "WARN": 1, "REFUSE": 1, "VETO": 0},
                    "max_risk": i % 100,
                },
            )
            for i in range(start, min(start + batch, n_debates))
        )
        items = []
        for d in debates:
            if made >= n_items:
                break
            closed = made % 5 == 4
            pair = sorted({reasons[made % 4], reasons[(made + 1) % 4]}, key=reasons.index)
            overdue = not closed and made % 10 == 3
            items.append(
                ReviewItem(
                    debate=d,
                    reason=pair[0],
                    reasons=pair,
                    priority=30 + made % 60,
                    status="dismissed" if closed else ("claimed" if made % 10 == 0 else "open"),
                    assignee=staff if closed or made % 5 == 0 else None,
                    closed_at=now if closed else None,
                    note="bench" if closed else "",
                    due_at=now + timedelta(hours=(-2 if overdue else 4 + made % 20)),
                    overdue_at=now - timedelta(hours=1) if overdue else None,
                )
            )
            made += 1
        ReviewItem.objects.bulk_create(items, batch_size=5000)
        ReviewItem.objects.filter(debate__in=debates).update(
            created_at=now - timedelta(minutes=start)
        )
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE reviews_reviewitem; ANALYZE debates_debate;")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=12_500)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()

    ensure_database()
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from reviews import selectors

    call_command("migrate", verbosity=0)
    from accounts.roles import REVIEWER, grant_roles

    staff, _ = get_user_model().objects.get_or_create(
        username="bench-analyst", defaults={"is_staff": True}
    )
    grant_roles(staff, REVIEWER)  # the queue takes the Reviewer role
    t0 = time.perf_counter()
    fill(args.items, staff)
    print(f"filled {args.items} review items in {time.perf_counter() - t0:.1f} s")

    client = Client(HTTP_HOST="localhost")
    client.force_login(staff)
    active = selectors.queue_items(user=staff).count()
    print(f"{active} of them open or claimed")
    views = {
        "default (open or claimed), page 1": {},
        "default, page 100": {"page": 100},
        "reason=safety_veto": {"reason": "safety_veto"},
        "assigned to me": {"assignee": "me", "status": "open"},
        "mine (claimed)": {"assignee": "me", "status": "claimed"},
        "unassigned": {"assignee": "none", "status": "open"},
        "overdue": {"overdue": "yes"},
        "all statuses, 200 a page": {"status": "all", "per_page": 200},
    }
    print(f"\n{'view':<38} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} {'queries':>7}")
    for label, params in views.items():
        times, queries = [], set()
        for _ in range(args.runs):
            with CaptureQueriesContext(connection) as ctx:
                t0 = time.perf_counter()
                response = client.get("/reviews/", params)
                times.append((time.perf_counter() - t0) * 1000)
            assert response.status_code == 200, response.status_code
            queries.add(len(ctx.captured_queries))
        p95 = statistics.quantiles(times, n=20, method="inclusive")[18]
        print(
            f"{label:<38} {statistics.median(times):>7.1f} {p95:>7.1f} {max(times):>7.1f} "
            f"{'/'.join(map(str, sorted(queries))):>7}"
        )

    sql, params = selectors.queue_items(user=staff).query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN ANALYZE {sql} LIMIT 50", params)
        plan = [row[0] for row in cursor.fetchall()]
    print("\nplan of the default view (first 50):")
    for line in plan[:8]:
        print("  " + line)

    from debates.models import Debate
    from debates.reviewing.items import review_items_for_debate
    from reviews.models import ReviewItem

    debate = Debate.objects.create(
        query="Bench enqueue",
        status="completed",
        decision="REFUSE",
        metadata={
            "consensus_type": "veto",
            "veto_applied": True,
            "veto_agent": "Safety Agent",
            "veto_risk": 90,
            "max_risk": 90,
            "low_confidence_warning": True,
        },
    )
    with CaptureQueriesContext(connection) as ctx:
        created = review_items_for_debate(debate=debate)
    with CaptureQueriesContext(connection) as again:
        review_items_for_debate(debate=debate)
    print(
        f"\nenqueue: {len(created)} items in {len(ctx.captured_queries)} queries; "
        f"repeated: {len(again.captured_queries)} queries, "
        f"{ReviewItem.objects.filter(debate=debate).count()} items in all"
    )

    from reviews import agreement, deadlines

    with CaptureQueriesContext(connection) as ctx:
        t0 = time.perf_counter()
        marked = deadlines.overdue_mark()
        took = (time.perf_counter() - t0) * 1000
    print(f"deadline sweep (nothing new due): {took:.1f} ms, {len(ctx.captured_queries)} queries")
    assert not marked
    with CaptureQueriesContext(connection) as ctx:
        t0 = time.perf_counter()
        agreement.agreement_report()
        took = (time.perf_counter() - t0) * 1000
    print(f"agreement report: {took:.1f} ms, {len(ctx.captured_queries)} queries")


if __name__ == "__main__":
    main()
