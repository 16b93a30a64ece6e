"""What a Prometheus scrape of /metrics costs with many stored debates: SQL queries and time of
the two tiers of figures read afresh (what one process pays once per cache period), and of a
scrape served from the cache (what every other scrape pays).

--debates S4-shaped debates are written with SQL (3 agents, 12 LLM calls, 3 independent
answers each; 95 % completed, 3 % failed with their review item, 2 % queued; a review item on
every 4th, half of them resolved).

Usage: .venv/bin/python bench/metrics_bench.py [--debates 100000] [--runs 3]
It uses its own database (BENCH_DATABASE_URL, default debates_metrics_bench) and Redis database
(BENCH_REDIS_URL, default 12).
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
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/debates_metrics_bench"
)
os.environ.update(
    DJANGO_SETTINGS_MODULE="config.settings.local",
    DATABASE_URL=DB_URL,
    REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/12"),
    DJANGO_LOG_LEVEL="WARNING",
    LITELLM_LOCAL_MODEL_COST_MAP="True",
)


def ensure_database():
    import psycopg

    name = DB_URL.rsplit("/", 1)[1]
    with psycopg.connect(DB_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


SEED = """
TRUNCATE debates_debate, reviews_reviewitem CASCADE;

INSERT INTO debates_debate (
    id, query, protocol, options, status, decision, reasoning, metadata, consensus_type,
    injection_findings, is_complex_query, tokens_in, tokens_out, cost_usd, attempts, error,
    created_at, started_at, completed_at, updated_at, decision_override, review_status,
    callback_url, recoveries, baselines, majority_decision, outcome_change, rules_version)
SELECT md5('bench-' || i)::uuid, 'question ' || i, 's4', '{}',
    CASE WHEN i % 100 < 95 THEN 'completed' WHEN i % 100 < 98 THEN 'failed' ELSE 'queued' END,
    CASE WHEN i % 100 < 95 THEN (ARRAY['ACT','WARN','REFUSE'])[1 + i % 3] ELSE '' END,
    '', '{}',
    CASE WHEN i % 100 < 95 THEN (ARRAY['unanimous','majority','split','veto'])[1 + i % 4]
         ELSE '' END,
    '[]', false, 6000, 1500, 0.012, 1, '',
    now() - i * interval '1 second', now() - i * interval '1 second',
    CASE WHEN i % 100 < 98 THEN now() - i * interval '1 second' + interval '6 seconds' END,
    now() - i * interval '1 second', '',
    CASE WHEN i % 4 = 0 AND i % 8 = 0 AND i % 100 < 95 THEN 'resolved'
         WHEN i % 4 = 0 THEN 'pending' ELSE '' END,
    '', 0,
    jsonb_build_object('agents', jsonb_build_array(
        jsonb_build_object('agent', 'utility', 'independent', 'ACT', 'final', 'ACT'),
        jsonb_build_object('agent', 'accuracy', 'independent', 'WARN', 'final', 'ACT'),
        jsonb_build_object('agent', 'safety', 'independent', 'REFUSE', 'final', 'WARN'))),
    'ACT', 'same', 'bench'
FROM generate_series(1, %(n)s) AS i;

INSERT INTO debates_participant (id, position, name, slug, role, system_prompt, model_name,
    temperature, can_veto, veto_risk_threshold, debate_id)
SELECT i * 3 + p, p, s, s, s, '', (ARRAY['openai/a','openai/b','anthropic/c'])[1 + p], 0.2,
    p = 2, 50, md5('bench-' || i)::uuid
FROM generate_series(1, %(n)s) AS i,
     LATERAL (VALUES (0, 'utility'), (1, 'accuracy'), (2, 'safety')) AS a(p, s);

INSERT INTO debates_round (id, number, name, status, started_at, completed_at, debate_id)
SELECT i, 1, 'Independent Analysis', 'completed', now(), now(), md5('bench-' || i)::uuid
FROM generate_series(1, %(n)s) AS i;

INSERT INTO debates_llmcall (id, key, round_number, step, status, model, prompt, raw_response,
    parsed, parse_failed, tokens_in, tokens_out, cost_usd, latency_ms, attempts, error,
    created_at, completed_at, debate_id, participant_id, raw_escaped, reasoning_content,
    deployment, injection_findings)
SELECT i * 12 + k, 'k' || k,
    CASE WHEN k < 3 THEN 1 WHEN k < 9 THEN 2 ELSE 3 END, 'step',
    CASE WHEN i % 100 >= 95 AND k >= 9 THEN 'failed' ELSE 'done' END,
    (ARRAY['openai/a','openai/b','anthropic/c'])[1 + k % 3], '[]', '', '{}', false,
    500, 125, 0.001, 200 + (i * 7919 + k * 104729) % 3000,
    CASE WHEN (i + k) % 10 = 0 THEN 2 ELSE 1 END, '', now(), now(),
    md5('bench-' || i)::uuid, i * 3 + k % 3, false, '', '', '[]'
FROM generate_series(1, %(n)s) AS i, generate_series(0, 11) AS k;

INSERT INTO debates_statement (id, kind, decision, confidence, risk, reasoning,
    previous_decision, parse_failed, notes, created_at, call_id, debate_id, participant_id,
    round_id, details)
SELECT i * 3 + p, 'analysis', 'ACT', 80, 20, '', '', false, '[]', now(), i * 12 + p,
    md5('bench-' || i)::uuid, i * 3 + p, i, '{}'
FROM generate_series(1, %(n)s) AS i, generate_series(0, 2) AS p;

INSERT INTO reviews_reviewitem (reason, status, priority, summary, details, verdict,
    decision_override, note, created_at, closed_at, debate_id)
SELECT CASE WHEN i % 100 BETWEEN 95 AND 97 THEN 'debate_failed' ELSE 'low_confidence' END,
    CASE WHEN i % 8 = 0 AND i % 100 < 95 THEN 'resolved' ELSE 'open' END,
    30, '', '{}',
    CASE WHEN i % 8 = 0 AND i % 100 < 95 THEN 'uphold' ELSE '' END, '', '',
    now() - i * interval '1 second',
    CASE WHEN i % 8 = 0 AND i % 100 < 95 THEN now() END,
    md5('bench-' || i)::uuid
FROM generate_series(1, %(n)s) AS i
WHERE i % 4 = 0 OR i % 100 BETWEEN 95 AND 97;

ANALYZE;
"""


def seed(n: int) -> float:
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        for statement in SEED.split(";\n"):
            if statement.strip():
                cursor.execute(statement.replace("%(n)s", str(n)))
    return time.perf_counter() - started


def measure(fn, runs):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times, queries, result = [], 0, None
    for _ in range(runs):
        with CaptureQueriesContext(connection) as ctx:
            start = time.perf_counter()
            result = fn()
            times.append(time.perf_counter() - start)
        queries = len(ctx.captured_queries)
    return statistics.median(times), queries, result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--debates", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-seed", action="store_true", help="reuse the rows already stored")
    args = parser.parse_args()
    ensure_database()
    import django

    django.setup()
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client
    from prometheus_client.parser import text_string_to_metric_families

    from analytics.metrics import figures
    from debates.models import Debate, LLMCall

    call_command("migrate", verbosity=0)
    if not args.no_seed:
        print(f"seeded {args.debates} debates in {seed(args.debates):.1f} s")
    print(
        f"{Debate.objects.count()} debates, {LLMCall.objects.count()} LLM calls stored "
        f"(on a 2-core machine shared with other work)"
    )
    for name, read in (
        ("operations", figures.read_operations),
        ("evaluation", figures.read_evaluation),
    ):
        seconds, queries, result = measure(read, args.runs)
        source, state = max(result["sources"].items(), key=lambda kv: kv[1]["seconds"])
        print(
            f"{name} tier read afresh: {queries} queries, {seconds * 1000:.0f} ms "
            f"(median of {args.runs}; slowest source {source} {state['seconds'] * 1000:.0f} ms)"
        )

    from django.conf import settings

    settings.METRICS_TOKEN = "bench-token-0123456789abcdef0123456789"
    settings.ALLOWED_HOSTS = ["testserver"]
    client = Client()
    auth = {"HTTP_AUTHORIZATION": f"Bearer {settings.METRICS_TOKEN}"}
    for tier in ("operations", "evaluation"):
        cache.delete(figures.CACHE_KEY.format(tier=tier))
    seconds, queries, response = measure(lambda: client.get("/metrics", **auth), 1)
    print(f"first scrape (both tiers read): {queries} queries, {seconds * 1000:.0f} ms")
    seconds, queries, response = measure(lambda: client.get("/metrics", **auth), max(5, args.runs))
    body = response.content.decode()
    samples = sum(len(f.samples) for f in text_string_to_metric_families(body))
    print(
        f"scrape from the cache: {queries} queries, {seconds * 1000:.1f} ms (median), "
        f"{len(body)} bytes, {samples} samples"
    )


if __name__ == "__main__":
    main()
