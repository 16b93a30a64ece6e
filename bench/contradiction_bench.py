"""Wall time of contradiction runs, in LLM latencies: are the arbitrations really concurrent?

The offline model sleeps L seconds per call (DEBATE_OFFLINE_LATENCY). A run with N
contradictions makes N arbitration calls that do not depend on each other, so its critical path
is 1 L whatever N is (up to CONTRADICTION_MAX_CONCURRENT_CALLS); a run without contradictions
makes no call at all. Each scenario: two agents disagree on N metrics (GCC-STAT against the World
Bank, same period), so every case is arbitrated and settled. The run executes in-process (median
of --runs after one warm-up); printed: the whole run's wall time (detection, arbitration,
consensus, storage) and the arbitration step alone, each divided by L.

Usage: .venv/bin/python bench/contradiction_bench.py [--latency 0.5] [--runs 5]
It uses its own database (debates_contradiction_bench), never the app's.
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
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/debates_contradiction_bench"
)
os.environ.update(
    DJANGO_SETTINGS_MODULE="config.settings.local",
    DATABASE_URL=DB_URL,
    REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"),
    LITELLM_LOCAL_MODEL_COST_MAP="True",
    DJANGO_LOG_LEVEL="WARNING",
)


def ensure_database():
    import psycopg

    name = DB_URL.rsplit("/", 1)[1]
    with psycopg.connect(DB_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def reports(n: int) -> list[dict]:
    def finding(i, value, source):
        return {
            "metric": f"indicator {i}",
            "value": value,
            "unit": "%",
            "source": source,
            "period": "2024",
            "citation": f"{source} 2024, table {i}",
        }

    return [
        {
            "agent": "LabourEconomist",
            "confidence": 0.8,
            "findings": [finding(i, 1.0 + i, "GCC-STAT") for i in range(n)],
        },
        {
            "agent": "NationalStrategy",
            "confidence": 0.9,
            "findings": [finding(i, round((1.0 + i) * 1.25, 4), "World Bank") for i in range(n)],
        },
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    L = args.latency

    ensure_database()
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from agents.litellm_loader import load
    from contradictions import running, services
    from contradictions.inputs import parse_payload
    from contradictions.models import ArbitrationCall, ContradictionRun

    call_command("migrate", verbosity=0)
    load()  # import litellm once, outside the timings
    settings.DEBATE_OFFLINE_LATENCY = L

    print(
        f"L = {L:.3f} s per arbitration call; median of {args.runs} runs after a warm-up; "
        f"at most {settings.CONTRADICTION_MAX_CONCURRENT_CALLS} calls at once"
    )
    header = (
        f"{'contradictions':>14} {'calls':>5} {'resolved':>8} {'run wall':>9} "
        f"{'wall/L':>7} {'arbitration/L':>13}"
    )
    print(header)
    print("-" * len(header))
    for n in (0, 3, 10):
        payload = parse_payload(
            reports(n)
            if n
            else [
                {
                    "agent": "A",
                    "confidence": 0.8,
                    "findings": [
                        {
                            "metric": "x",
                            "value": 1.0,
                            "unit": "%",
                            "source": "GCC-STAT",
                            "period": "2024",
                        }
                    ],
                },
                {
                    "agent": "B",
                    "confidence": 0.8,
                    "findings": [
                        {
                            "metric": "x",
                            "value": 1.0,
                            "unit": "%",
                            "source": "GCC-STAT",
                            "period": "2024",
                        }
                    ],
                },
            ]
        )
        walls, arbitrations = [], []
        for i in range(args.runs + 1):
            run = services.contradiction_run_create(reports=payload["reports"], enqueue=False)
            t0 = time.perf_counter()
            running.contradiction_run_execute(run_id=run.id)
            wall = time.perf_counter() - t0
            run = ContradictionRun.objects.get(id=run.id)
            assert run.status == "completed", run.error
            if i:
                walls.append(wall)
                arbitrations.append((run.arbitration_ms or 0) / 1000)
        calls = ArbitrationCall.objects.filter(run=run).count()
        wall = statistics.median(walls)
        arbitration = statistics.median(arbitrations)
        print(
            f"{run.contradictions_found:>14} {calls:>5} {run.resolved_count:>8} "
            f"{wall:>8.3f}s {wall / L:>7.2f} {arbitration / L:>13.2f}"
        )


if __name__ == "__main__":
    main()
