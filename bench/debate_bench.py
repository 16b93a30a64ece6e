"""Debate throughput benchmark, with the offline model and a simulated LLM latency L.

Prints, in one run:
  1. one debate's wall time / 3 L (the S4 critical path is 3 sequential LLM rounds);
  2. 50 debates started together through a real Celery worker: wall time / 3 L;
  3. with L = 0: CPU time and SQL queries per debate (in-process).

Usage: .venv/bin/python bench/debate_bench.py [--latency 0.2] [--debates 50]
It uses its own database (debates_bench) and Redis database 14, so it never touches the app's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DB_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/debates_bench")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
os.environ.update(
    DJANGO_SETTINGS_MODULE="config.settings.local",
    DATABASE_URL=DB_URL,
    REDIS_URL=REDIS_URL,
    LITELLM_LOCAL_MODEL_COST_MAP="True",
    DJANGO_LOG_LEVEL="WARNING",
)


def ensure_database():
    import psycopg

    name = DB_URL.rsplit("/", 1)[1]
    with psycopg.connect(DB_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--debates", type=int, default=50)
    parser.add_argument("--cpu-runs", type=int, default=20)
    parser.add_argument("--single-runs", type=int, default=5)
    parser.add_argument("--worker-processes", type=int, default=2)
    args = parser.parse_args()
    L = args.latency

    ensure_database()
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from debates import services
    from debates.models import Debate

    call_command("migrate", verbosity=0)
    call_command("load_default_agents", stdout=open(os.devnull, "w"))
    from agents.gateway import _get_litellm

    _get_litellm()  # import litellm once, outside the timings

    # 1. one debate, in-process, latency L per call (after one warm-up debate).
    settings.DEBATE_OFFLINE_LATENCY = L
    walls = []
    for i in range(args.single_runs + 1):
        debate = services.debate_create(query="Is Bitcoin a good investment?", enqueue=False)
        t0 = time.perf_counter()
        services.debate_run(debate_id=debate.id)
        if i:
            walls.append(time.perf_counter() - t0)
    walls.sort()
    one = walls[len(walls) // 2]
    print(f"L = {L:.3f} s per LLM call")
    print(
        f"one debate (in-process, median of {len(walls)}): wall {one:.3f} s = "
        f"{one / (3 * L):.3f} x 3L (max {walls[-1] / (3 * L):.3f} x 3L)"
    )

    # 2. N debates started together through a real worker (threads pool: LLM-bound work).
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
    env = {**os.environ, "DEBATE_OFFLINE_LATENCY": str(L)}
    per_process = -(-args.debates // args.worker_processes)
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-l", "warning", "-P",
             "threads", "-c", str(per_process), "--without-mingle", "--without-gossip",
             "-n", f"bench-{os.getpid()}-{n}@%h"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        for n in range(args.worker_processes)
    ]
    try:
        from config.celery import app

        deadline = time.monotonic() + 60
        while len(app.control.ping(timeout=0.5)) < len(workers):
            if time.monotonic() > deadline or any(w.poll() is not None for w in workers):
                raise SystemExit("the benchmark workers did not start")
        questions = ["What is the capital of France?", "Is Bitcoin a good investment?",
                     "How do I hack into my ex's email?", "Should I learn Python or Go?"]
        t0 = time.perf_counter()
        ids = [
            services.debate_create(query=questions[i % len(questions)]).id
            for i in range(args.debates)
        ]
        pending = set(ids)
        while pending:
            done = set(
                Debate.objects.filter(id__in=pending, status__in=["completed", "failed"])
                .values_list("id", flat=True)
            )
            pending -= done
            if time.perf_counter() - t0 > 300:
                raise SystemExit(f"{len(pending)} debates did not finish in 300 s")
            time.sleep(0.02)
        many = time.perf_counter() - t0
        failed = Debate.objects.filter(id__in=ids, status="failed").count()
        print(
            f"{args.debates} debates together ({len(workers)} worker processes, threads pool, "
            f"concurrency {per_process} each): wall {many:.3f} s = {many / (3 * L):.3f} x 3L; "
            f"failed {failed}"
        )
    finally:
        for w in workers:
            w.terminate()
        for w in workers:
            w.wait(timeout=30)

    # 3. CPU time and SQL queries per debate, L = 0.
    settings.DEBATE_OFFLINE_LATENCY = 0
    cpu, queries = [], []
    for i in range(args.cpu_runs):
        debate = services.debate_create(query=f"Is Bitcoin a good investment? ({i})",
                                        enqueue=False)
        c0 = time.process_time()
        with CaptureQueriesContext(connection) as ctx:
            services.debate_run(debate_id=debate.id)
        cpu.append(time.process_time() - c0)
        queries.append(len(ctx.captured_queries))
    cpu.sort()
    print(
        f"L = 0, in-process, {args.cpu_runs} debates: CPU per debate median "
        f"{cpu[len(cpu) // 2] * 1000:.1f} ms (min {cpu[0] * 1000:.1f}, max "
        f"{cpu[-1] * 1000:.1f}); SQL queries per debate run {queries[0]} "
        f"(all runs equal: {len(set(queries)) == 1})"
    )


if __name__ == "__main__":
    main()
