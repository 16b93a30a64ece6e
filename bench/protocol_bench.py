"""Wall time of each protocol, in LLM latencies, against its critical path.

The offline model sleeps L seconds per call (DEBATE_OFFLINE_LATENCY). A protocol's critical path
is the number of LLM calls that must happen one after another:
  s4:                 3 L (analysis, challenges, revision; calls inside a round are concurrent)
  moderated:          3 L per round (proponent, opponent, moderator)
  moderated_extended: 3 L per round (four debaters at once, refiner, moderator)
  round_robin:        1 L per turn (strict turn-taking, never two calls at once)
Each scenario runs in-process (median of --runs after one warm-up) and prints the wall time,
the critical path, their ratio, and the calls made (what the debate would cost if every call
waited for the previous one).

Usage: .venv/bin/python bench/protocol_bench.py [--latency 0.2] [--runs 3]
It uses its own database (debates_protocol_bench), never the app's.
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
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/debates_protocol_bench"
)
os.environ.update(
    DJANGO_SETTINGS_MODULE="config.settings.local",
    DATABASE_URL=DB_URL,
    REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"),
    LITELLM_LOCAL_MODEL_COST_MAP="True",
    DJANGO_LOG_LEVEL="WARNING",
)

SCENARIOS = [
    ("s4", "Is Bitcoin a good investment?"),
    ("moderated", "Should every website use HTTPS?"),
    ("moderated", "Should I learn Python or JavaScript first?"),
    ("moderated_extended", "Should I learn Python or JavaScript first?"),
    ("round_robin", "Should I invest in Tesla (TSLA) considering all factors?"),
    ("round_robin", "Should I buy Bitcoin now?"),
]


def ensure_database():
    import psycopg

    name = DB_URL.rsplit("/", 1)[1]
    with psycopg.connect(DB_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def critical_path(debate) -> int:
    """Sequential LLM calls, in latencies, from what the debate stored."""
    md = debate.metadata
    if debate.protocol == "s4":
        return 3
    if debate.protocol in ("moderated", "moderated_extended"):
        return 3 * md["rounds_run"]
    if debate.protocol == "round_robin":
        return md["total_turns"]
    raise ValueError(debate.protocol)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    L = args.latency

    ensure_database()
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from agents.litellm_loader import load
    from debates import running, services
    from debates.models import Debate, LLMCall

    call_command("migrate", verbosity=0)
    call_command("load_default_agents", stdout=open(os.devnull, "w"))
    load()  # import litellm once, outside the timings
    settings.DEBATE_OFFLINE_LATENCY = L

    print(f"L = {L:.3f} s per LLM call; median of {args.runs} runs after a warm-up")
    header = (
        f"{'protocol':<19} {'question':<45} {'decision':<13} {'calls':>5} "
        f"{'path':>6} {'wall':>8} {'wall/L':>7} {'wall/path':>9}"
    )
    print(header)
    print("-" * len(header))
    for protocol, question in SCENARIOS:
        walls = []
        for i in range(args.runs + 1):
            debate = services.debate_create(query=question, protocol=protocol, enqueue=False)
            t0 = time.perf_counter()
            running.debate_run(debate_id=debate.id)
            if i:
                walls.append(time.perf_counter() - t0)
        debate = Debate.objects.get(id=debate.id)
        calls = LLMCall.objects.filter(debate=debate).count()
        path = critical_path(debate)
        wall = statistics.median(walls)
        print(
            f"{protocol:<19} {question[:45]:<45} {debate.decision:<13} {calls:>5} "
            f"{path:>4} L {wall:>7.3f}s {wall / L:>7.2f} {wall / (path * L):>9.3f}"
        )


if __name__ == "__main__":
    main()
