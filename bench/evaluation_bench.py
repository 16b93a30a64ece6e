"""Does-debate-help figures over many debates: SQL queries and time of the ground-truth report
and of the rules replay with --debates finished S4 debates (3 agents each, half of them
labelled by a reviewer, a tenth of those overridden) and their final votes.

Usage: .venv/bin/python bench/evaluation_bench.py [--debates 10000] [--runs 3]
It uses its own database (debates_eval_bench) and Redis database 8.
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
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/debates_eval_bench"
)
os.environ.update(
    DJANGO_SETTINGS_MODULE="config.settings.local",
    DATABASE_URL=DB_URL,
    REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/8"),
    DJANGO_LOG_LEVEL="WARNING",
)


def ensure_database():
    import psycopg

    name = DB_URL.rsplit("/", 1)[1]
    with psycopg.connect(DB_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def seed(n: int) -> None:
    import datetime as dt

    from django.utils import timezone

    from debates.models import Debate, Participant, Vote
    from protocols import evaluation

    Debate.objects.all().delete()
    now = timezone.now()
    version = evaluation.rules_version("s4")
    patterns = [("ACT", "ACT", "WARN"), ("REFUSE", "WARN", "REFUSE"), ("ACT", "WARN", "REFUSE")]
    debates, participants, votes = [], [], []
    for i in range(n):
        first = patterns[i % 3]
        final = patterns[(i + 1) % 3]
        decision = evaluation.replay_decision(
            "s4", [evaluation.Answer(s, d, 80, 20) for s, d in zip("abc", final, strict=True)]
        )
        labelled = i % 2 == 0
        override = "REFUSE" if labelled and i % 20 == 0 and decision != "REFUSE" else ""
        debate = Debate(
            query=f"question {i}",
            protocol="s4",
            status=Debate.Status.COMPLETED,
            decision=decision,
            decision_override=override,
            review_status="resolved" if labelled else "",
            rules_version=version,
            majority_decision=evaluation.majority_decision(
                "s4", [evaluation.Answer(s, d, 80, 20) for s, d in zip("abc", first, strict=True)]
            ),
            cost_usd="0.012000",
            started_at=now - dt.timedelta(seconds=6 + i % 5),
            completed_at=now - dt.timedelta(seconds=i),
            quality={
                "logical_consistency": 1.0,
                "argument_diversity": 0.9,
                "consensus_quality": 1.0 if len(set(final)) == 1 else 0.67,
                "decision_confidence": 0.8,
                "overall_quality": 0.9,
                "depth_debate": 90 + i % 7,
                "depth_single": {"a": 8, "b": 9, "c": 7},
                "single_confidence": {"a": 0.8, "b": 0.7, "c": 0.9},
            },
            baselines={
                "agents": [
                    {
                        "agent": s,
                        "independent": a,
                        "final": b,
                        "change": evaluation.change_direction(a, b),
                    }
                    for s, a, b in zip("abc", first, final, strict=True)
                ]
            },
        )
        debates.append(debate)
        for pos, (slug, decision_final) in enumerate(zip("abc", final, strict=True)):
            p = Participant(
                debate=debate,
                position=pos,
                name=slug,
                slug=slug,
                role="r",
                system_prompt="",
                model_name=f"model-{slug}",
                temperature=0.2,
            )
            participants.append(p)
            votes.append(
                Vote(debate=debate, participant=p, decision=decision_final, confidence=80, risk=20)
            )
    Debate.objects.bulk_create(debates, batch_size=2000)
    Participant.objects.bulk_create(participants, batch_size=5000)
    Vote.objects.bulk_create(votes, batch_size=5000)


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
    parser.add_argument("--debates", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    ensure_database()
    import django

    django.setup()
    from django.core.management import call_command

    from evaluation.ground_truth import ground_truth_report
    from evaluation.quality import quality_report
    from evaluation.replay import replay_rules

    call_command("migrate", verbosity=0)
    seed(args.debates)
    seconds, queries, report = measure(ground_truth_report, args.runs)
    overall = report.figures.overall
    print(
        f"ground_truth_report over {report.debates} debates ({overall.labelled} labelled): "
        f"{queries} queries, {seconds * 1000:.0f} ms (median of {args.runs})"
    )
    print(
        f"  debate agreement {overall.debate.rate} (n={overall.debate.n}), majority "
        f"{overall.majority.rate} (n={overall.majority.n}), single agent "
        f"{overall.single_agent.rate} (n={overall.single_agent.n})"
    )
    seconds, queries, quality = measure(quality_report, args.runs)
    accuracy = quality.comparison["accuracy_improvement"]
    print(
        f"quality_report over {quality.debates} debates: {queries} queries, "
        f"{seconds * 1000:.0f} ms; accuracy improvement {accuracy['value']} (n={accuracy['n']})"
    )
    seconds, queries, replay = measure(replay_rules, args.runs)
    print(
        f"replay_rules over {replay.checked} debates: {queries} queries, "
        f"{seconds * 1000:.0f} ms; identical {replay.identical}/{replay.checked}"
    )


if __name__ == "__main__":
    main()
