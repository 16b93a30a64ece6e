"""How the service holds up when models and machines fail, on default settings.

Prints:
  1. N debates (default 30) through a real Celery worker against an OpenAI-compatible fake
     server (tests/support/fake_openai.py) failing 30 % of calls at random (429, 500, 503,
     malformed bodies, empty replies, timeouts): debates completed, answered calls requested
     again, faults served, task retries;
  2. seconds from a worker being available until a debate whose worker was killed with
     SIGKILL mid-debate is completed, and until debates whose queued messages Redis lost (a
     flushed Redis) are completed; beat running the sweeper, every recovery setting default.

Usage: .venv/bin/python bench/failure_bench.py [--debates 30] [--rate 0.3]
It uses its own database and Redis database (BENCH_DATABASE_URL, default debates_failure_bench;
BENCH_REDIS_URL, default Redis database 13) and flushes that Redis database.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DB_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/debates_failure_bench"
)
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
os.environ.update(
    DJANGO_SETTINGS_MODULE="config.settings.local",
    DATABASE_URL=DB_URL,
    REDIS_URL=REDIS_URL,
    LITELLM_LOCAL_MODEL_COST_MAP="True",
    DJANGO_LOG_LEVEL="WARNING",
)
QUESTIONS = [
    "Is Bitcoin a good investment?",
    "What is the capital of France?",
    "How do I hack into my ex's email?",
    "Should I learn Python or JavaScript first?",
]


def ensure_database():
    import psycopg

    name = DB_URL.rsplit("/", 1)[1]
    with psycopg.connect(DB_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


class Process:
    """A celery worker or beat in its own process group, logging to a file."""

    def __init__(self, args: list[str], log: Path, env: dict[str, str], ready: str):
        self.log = log
        self.handle = open(log, "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", *args],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=self.handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while ready not in log.read_text():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"celery {args[2]} did not start:\n{log.read_text()}")
            time.sleep(0.1)

    def kill(self, sig=signal.SIGKILL):
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=20)
        self.handle.close()


def worker(log: Path, **env) -> Process:
    return Process(
        [
            "-A",
            "config",
            "worker",
            "-l",
            "info",
            "-c",
            "2",
            "--without-mingle",
            "--without-gossip",
            "-n",
            f"{log.stem}@%h",
        ],
        log,
        env,
        "ready",
    )


def beat(log: Path) -> Process:
    return Process(
        ["-A", "config", "beat", "-l", "info", "-s", str(log.with_suffix(".db"))],
        log,
        {},
        "schedule loaded",
    )


def wait_ended(ids, timeout: float) -> dict:
    """Seconds until each debate ended (from now), or missing ones after `timeout`."""
    from debates.models import Debate

    started, ended = time.monotonic(), {}
    while len(ended) < len(ids) and time.monotonic() - started < timeout:
        for pk, status in Debate.objects.filter(
            id__in=ids, status__in=["completed", "failed"]
        ).values_list("id", "status"):
            ended.setdefault(pk, (status, time.monotonic() - started))
        time.sleep(0.2)
    return ended


def fault_rate(args, tmp: Path, redis_client):
    from debates import services
    from debates.models import Debate, LLMCall
    from tests.support.fake_openai import FAULTS, FakeOpenAI, FaultPlan, Reply

    with FakeOpenAI() as server:
        server.plan = FaultPlan(
            rate=args.rate, seed=1, kinds={**FAULTS, "timeout": lambda: Reply.slow(6)}
        )
        # A call times out after 5 s; the server's slow replies take 6 s.
        w = worker(tmp / "faults.log", **server.env(), DEBATE_LLM_TIMEOUT="5")
        try:
            t0 = time.monotonic()
            ids = [
                services.debate_create(
                    query=f"{QUESTIONS[i % 4]} (case {i})", options={"model": server.model}
                ).id
                for i in range(args.debates)
            ]
            ended = wait_ended(ids, timeout=900)
            wall = time.monotonic() - t0
        finally:
            w.kill(signal.SIGTERM)
        completed = Debate.objects.filter(id__in=ids, status="completed").count()
        faults = sum(server.count(kind=k) for k in (*FAULTS, "slow"))
        log = w.log.read_text()
        retries = log.count("retry: Retry in")
        timeouts = log.count("transient error (litellm.Timeout")
        duplicates = LLMCall.objects.filter(debate_id__in=ids).count() - 12 * len(ids)
        # A stored call asked again: a request with its prompt received after it was stored.
        stored = {}
        for prompt, at in LLMCall.objects.filter(debate_id__in=ids, status="done").values_list(
            "prompt", "completed_at"
        ):
            key = hashlib.sha256(json.dumps(prompt, sort_keys=True).encode()).hexdigest()[:16]
            stored[key] = at.timestamp()
        stored_again = sum(
            1
            for r in server.requests()
            if r.fingerprint in stored and r.received_at > stored[r.fingerprint]
        )
        print(
            f"1. {args.rate:.0%} faults: {completed}/{len(ids)} debates completed "
            f"({len(ended) - completed} failed) in {wall:.0f} s; {server.count()} requests, "
            f"{faults} faults served; answered calls requested again: "
            f"{sum(n - 1 for n in server.repeated().values())} (answers sent after the "
            f"gateway's timeout: {timeouts} client timeouts, {server.count(kind='slow')} "
            f"replies slowed on purpose); stored calls requested again: {stored_again}; "
            f"task retries: {retries}; "
            f"call rows beyond 12 per debate: {duplicates}"
        )


def recovery(tmp: Path, redis_client):
    from debates import services
    from debates.models import Debate, LLMCall

    first = worker(tmp / "first.log", DEBATE_OFFLINE_LATENCY="0.4")
    crashed = services.debate_create(query="Is Bitcoin a good investment?")
    deadline = time.monotonic() + 60
    while not LLMCall.objects.filter(debate=crashed, round_number=2).exists():
        assert time.monotonic() < deadline, "the debate did not reach round 2"
        time.sleep(0.02)
    first.kill()  # SIGKILL, pool and all: a machine that died
    lost = [services.debate_create(query=q).id for q in QUESTIONS[1:]]
    redis_client.flushdb()  # Redis restarted: the queue is gone
    second = worker(tmp / "second.log")
    warned = "No celery beat is running" in second.log.read_text()
    the_beat = beat(tmp / "beat.log")
    try:
        ended = wait_ended([crashed.id, *lost], timeout=300)
    finally:
        the_beat.kill(signal.SIGTERM)
        second.kill(signal.SIGTERM)
    statuses = set(
        Debate.objects.filter(id__in=[crashed.id, *lost]).values_list("status", flat=True)
    )
    after_kill = ended[crashed.id][1]
    after_loss = max(ended[i][1] for i in lost)
    print(
        f"2. recovered (from a worker being available; beat started with it): after kill -9 "
        f"{after_kill:.0f} s, after a lost queue {after_loss:.0f} s (statuses: "
        f"{', '.join(sorted(statuses))}; the worker warned of no beat: {warned})"
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--debates", type=int, default=30)
    parser.add_argument("--rate", type=float, default=0.3)
    parser.add_argument("--skip-recovery", action="store_true")
    args = parser.parse_args()

    ensure_database()
    import django

    django.setup()
    import redis
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_default_agents", stdout=open(os.devnull, "w"))
    redis_client = redis.Redis.from_url(REDIS_URL)
    redis_client.flushdb()
    with tempfile.TemporaryDirectory() as tmp:
        fault_rate(args, Path(tmp), redis_client)
        if not args.skip_recovery:
            recovery(Path(tmp), redis_client)


if __name__ == "__main__":
    main()
