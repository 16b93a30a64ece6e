"""The service with 100,000 stored debates: every documented API list, filter, search and
ordering, the list and queue pages, the admin changelists and an unchanged live poll.

Prints, for each, through Django's test client (the whole middleware stack, a signed-in
session): wall-clock p50 / p95 (ms), the median CPU time of the Django process per request and
the median time spent in SQL per request (both ms), and the SQL queries per request; with
--plans, the query plans of the searches. The machine's load average is printed too: wall
times on a shared machine grow with it, CPU times much less.

Usage: .venv/bin/python bench/scale_bench.py [--debates 100000] [--runs 40] [--refill]
[--only TEXT ...] (only the requests whose label has TEXT)
It uses its own database (BENCH_DATABASE_URL, default debates_scale_bench) and Redis database
(BENCH_REDIS_URL, default 14). The rows are made once and kept (`--refill` makes them again).
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
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/debates_scale_bench"
)
os.environ.update(
    DJANGO_SETTINGS_MODULE="config.settings.local",
    DATABASE_URL=DB_URL,
    REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"),
    LITELLM_LOCAL_MODEL_COST_MAP="True",
    DJANGO_LOG_LEVEL="WARNING",
)

TOPICS = [
    "Should we migrate the billing service to PostgreSQL 16",
    "Is Bitcoin a good treasury reserve for a small company",
    "Should the mobile app ship offline mode this quarter",
    "Can we drop support for Python 3.9 in the SDK",
    "Is it safe to raise the API rate limit for partners",
    "Should we hire a second on-call engineer",
    "Is the new pricing page clearer than the old one",
    "Should we open-source the scheduling library",
    "Is a four-day week workable for the support team",
    "Should the data warehouse move to columnar storage",
    "Is Ethereum staking an acceptable use of reserves",
    "Should we sunset the legacy export endpoint",
]


def ensure_database():
    import psycopg

    name = DB_URL.rsplit("/", 1)[1]
    with psycopg.connect(DB_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def fill(n: int, staff, user) -> None:
    """`n` debates over the last 200 days: most completed S4 debates, some of every protocol,
    status and decision; 1 % started by `user`; a fifth with review items (one split vote's
    item in 20 lists low confidence as its second reason)."""
    from decimal import Decimal

    from django.db import connection

    from debates.models import Debate
    from reviews.models import ReviewItem

    ReviewItem.objects.all().delete()
    Debate.objects.all().delete()
    protocols = ["s4"] * 7 + ["round_robin", "moderated", "vote"]
    s4_decisions = ["ACT", "WARN", "REFUSE"]
    batch = 5000
    for start in range(0, n, batch):
        debates = []
        for i in range(start, min(start + batch, n)):
            protocol = protocols[i % len(protocols)]
            status = "failed" if i % 97 == 0 else ("running" if i % 503 == 0 else "completed")
            decision = ""
            if status == "completed":
                decision = s4_decisions[(i // 7) % 3]
                if protocol == "round_robin" and i % 3 == 0:
                    decision = "NO_CONSENSUS"
            pending = status != "running" and i % 10 == 3
            debates.append(
                Debate(
                    query=f"{TOPICS[(i * 7) % len(TOPICS)]}? (case {i})",
                    protocol=protocol,
                    status=status,
                    decision=decision,
                    decision_override="REFUSE" if i % 211 == 0 and decision == "ACT" else "",
                    review_status="pending" if pending else ("resolved" if i % 10 == 7 else ""),
                    consensus_type=(
                        ["unanimous", "majority", "split", "veto"][i % 4] if decision else ""
                    ),
                    created_by=user if i % 100 == 0 else staff,
                    cost_usd=Decimal(i * 7919 % 100_000) / Decimal(1_000_000),
                    tokens_in=1000 + i % 900,
                    tokens_out=400 + i % 300,
                    error="The model did not answer." if status == "failed" else "",
                    metadata={"vote_breakdown": {"ACT": 1, "WARN": 1, "REFUSE": 1}},
                )
            )
        made = Debate.objects.bulk_create(debates)
        items = [
            ReviewItem(
                debate=d,
                reason="split_vote" if d.status == "completed" else "debate_failed",
                # Every item lists its reasons; one split vote in 20 has low confidence too.
                reasons=(
                    ["debate_failed"]
                    if d.status != "completed"
                    else (["split_vote", "low_confidence"] if k % 100 == 3 else ["split_vote"])
                ),
                priority=40 + k % 50,
                summary="Bench item",
                status="resolved" if k % 3 == 0 else "open",
                closed_at=d.created_at if k % 3 == 0 else None,
                verdict="uphold" if k % 3 == 0 else "",
                note="bench" if k % 3 == 0 else "",
            )
            for k, d in enumerate(made)
            if d.review_status
        ]
        ReviewItem.objects.bulk_create(items, batch_size=batch)
    with connection.cursor() as cursor:
        # Spread the creation times over 200 days, newest the highest case number.
        cursor.execute(
            "UPDATE debates_debate SET created_at = now() - make_interval(secs => "
            "(%s - split_part(split_part(query, '(case ', 2), ')', 1)::int) * 172.8), "
            "started_at = created_at, completed_at = created_at",
            [n],
        )
        cursor.execute(
            "UPDATE reviews_reviewitem r SET created_at = d.created_at FROM debates_debate d "
            "WHERE r.debate_id = d.id"
        )
        cursor.execute("VACUUM ANALYZE debates_debate")
        cursor.execute("VACUUM ANALYZE reviews_reviewitem")


def measure(client, path, params, runs, expect=200):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times, cpu, sql, queries = [], [], [], set()
    client.get(path, params)  # warm
    for _ in range(runs):
        with CaptureQueriesContext(connection) as ctx:
            t0, c0 = time.perf_counter(), time.process_time()
            response = client.get(path, params)
            cpu.append((time.process_time() - c0) * 1000)
            times.append((time.perf_counter() - t0) * 1000)
        assert response.status_code == expect, (path, params, response.status_code)
        queries.add(len(ctx.captured_queries))
        sql.append(sum(float(q["time"]) for q in ctx.captured_queries) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return (
        statistics.median(times),
        p95,
        statistics.median(cpu),
        statistics.median(sql),
        "/".join(map(str, sorted(queries))),
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--debates", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--refill", action="store_true")
    parser.add_argument("--plans", action="store_true", help="print the search query plans")
    parser.add_argument(
        "--only", action="append", default=[], help="only the requests whose label has this text"
    )
    args = parser.parse_args()

    ensure_database()
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from debates import selectors
    from debates.models import Debate

    call_command("migrate", verbosity=0)
    User = get_user_model()
    staff, _ = User.objects.get_or_create(
        username="bench-admin", defaults={"is_staff": True, "is_superuser": True}
    )
    user, _ = User.objects.get_or_create(username="bench-user")
    if args.refill or Debate.objects.count() != args.debates:
        t0 = time.perf_counter()
        fill(args.debates, staff, user)
        print(f"made {args.debates} debates in {time.perf_counter() - t0:.1f} s")

    admin = Client(HTTP_HOST="localhost")
    admin.force_login(staff)
    member = Client(HTTP_HOST="localhost")
    member.force_login(user)
    newest = Debate.objects.filter(status="completed").order_by("-created_at").first()
    version = selectors.debate_so_far(debate_id=newest.id, user=staff).version
    cursor_page = admin.get("/api/v1/debates/", {"ordering": "-cost_usd"}).json()["next"]
    oldest = Debate.objects.order_by("created_at").values_list("created_at", flat=True).first()
    week = {
        "created_after": oldest.date().isoformat(),
        "created_before": (oldest.date().fromordinal(oldest.date().toordinal() + 7)).isoformat(),
    }

    api = "/api/v1/debates/"
    cases = [
        ("API", "list (default: newest first)", admin, api, {}),
        ("API", "list page_size=100", admin, api, {"page_size": 100}),
        ("API", "list, next page (cursor)", admin, cursor_page, {}),
        ("API", "list as a user (own debates)", member, api, {}),
        ("API", "ordering=created_at", admin, api, {"ordering": "created_at"}),
        ("API", "ordering=-cost_usd", admin, api, {"ordering": "-cost_usd"}),
        ("API", "ordering=cost_usd", admin, api, {"ordering": "cost_usd"}),
        ("API", "status=failed", admin, api, {"status": "failed"}),
        ("API", "status=running", admin, api, {"status": "running"}),
        ("API", "decision=ACT", admin, api, {"decision": "ACT"}),
        (
            "API",
            "decision=REFUSE&ordering=-cost_usd",
            admin,
            api,
            {"decision": "REFUSE", "ordering": "-cost_usd"},
        ),
        ("API", "machine_decision=NO_CONSENSUS", admin, api, {"machine_decision": "NO_CONSENSUS"}),
        ("API", "protocol=moderated", admin, api, {"protocol": "moderated"}),
        (
            "API",
            "decision=ACT&protocol=round_robin",
            admin,
            api,
            {"decision": "ACT", "protocol": "round_robin"},
        ),
        ("API", "consensus_type=veto", admin, api, {"consensus_type": "veto"}),
        ("API", "review_status=pending", admin, api, {"review_status": "pending"}),
        ("API", "review_status=none", admin, api, {"review_status": "none"}),
        ("API", "created_after/before (oldest week)", admin, api, week),
        ("API", "q=bitcoin", admin, api, {"q": "bitcoin"}),
        (
            "API",
            "q=bitcoin&ordering=-cost_usd",
            admin,
            api,
            {"q": "bitcoin", "ordering": "-cost_usd"},
        ),
        ("API", "q=nosuchword (no match)", admin, api, {"q": "nosuchword"}),
        ("API", "q=case 4242 (one match)", admin, api, {"q": "case 4242)"}),
        ("API", "q=bitcoin&status=failed", admin, api, {"q": "bitcoin", "status": "failed"}),
        ("API", "reviews (active)", admin, "/api/v1/reviews/", {}),
        (
            "API",
            "reviews status=all page_size=100",
            admin,
            "/api/v1/reviews/",
            {"status": "all", "page_size": 100},
        ),
        (
            "API",
            "reviews reason=debate_failed",
            admin,
            "/api/v1/reviews/",
            {"reason": "debate_failed"},
        ),
        (
            "API",
            "reviews reason=low_confidence (2nd reason)",
            admin,
            "/api/v1/reviews/",
            {"reason": "low_confidence"},
        ),
        ("page", "/debates/", admin, "/debates/", {}),
        ("page", "/debates/?page=40", admin, "/debates/", {"page": 40}),
        ("page", "/debates/?q=bitcoin", admin, "/debates/", {"q": "bitcoin"}),
        ("page", "/debates/?status=failed", admin, "/debates/", {"status": "failed"}),
        ("page", "/debates/ as a user", member, "/debates/", {}),
        ("page", "/reviews/ (queue)", admin, "/reviews/", {}),
        ("page", "/reviews/?per_page=200", admin, "/reviews/", {"per_page": 200}),
        (
            "page",
            "/reviews/?reason=low_confidence (2nd reason)",
            admin,
            "/reviews/",
            {"reason": "low_confidence"},
        ),
        ("admin", "debate changelist", admin, "/admin/debates/debate/", {}),
        (
            "admin",
            "debate changelist ?q=bitcoin",
            admin,
            "/admin/debates/debate/",
            {"q": "bitcoin"},
        ),
        (
            "admin",
            "debate changelist ?status__exact=failed",
            admin,
            "/admin/debates/debate/",
            {"status__exact": "failed"},
        ),
        ("admin", "review item changelist", admin, "/admin/reviews/reviewitem/", {}),
        (
            "admin",
            "review item changelist ?q=bitcoin",
            admin,
            "/admin/reviews/reviewitem/",
            {"q": "bitcoin"},
        ),
        (
            "admin",
            "review item changelist ?reason__exact=low_confidence",
            admin,
            "/admin/reviews/reviewitem/",
            {"reason__exact": "low_confidence"},
        ),
        (
            "poll",
            "live poll, unchanged (204)",
            admin,
            f"/debates/{newest.id}/live/",
            {"since": version},
        ),
    ]
    print(f"\n{Debate.objects.count()} debates; {args.runs} requests each (after one warm-up)")
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 cores)")
    print(
        f"{'':6} {'request':<52} {'p50 ms':>7} {'p95 ms':>7} {'CPU ms':>7} {'SQL ms':>7} "
        f"{'queries':>7}"
    )
    if args.only:
        cases = [case for case in cases if any(text in case[1] for text in args.only)]
    for kind, label, client, path, params in cases:
        expect = 204 if kind == "poll" else 200
        p50, p95, cpu, sql, queries = measure(client, path, params, args.runs, expect)
        print(f"{kind:6} {label:<52} {p50:>7.1f} {p95:>7.1f} {cpu:>7.1f} {sql:>7.1f} {queries:>7}")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")

    if args.plans:
        for search in ("bitcoin", "nosuchword"):
            qs = selectors.debate_list(user=staff, search=search).order_by("-created_at")[:21]
            sql, params = qs.query.sql_with_params()
            with connection.cursor() as cursor:
                cursor.execute(f"EXPLAIN ANALYZE {sql}", params)
                print(f"\nplan of q={search}:")
                for (line,) in cursor.fetchall()[:10]:
                    print("  " + line)


if __name__ == "__main__":
    main()
