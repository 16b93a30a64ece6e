"""Debate throughput benchmark, with the offline model and a simulated LLM latency L.

Prints, in one run:
  1. one debate's wall time / 3 L (the S4 critical path is 3 sequential LLM rounds);
  2. 50 debates started together through a real Celery worker: wall time / 3 L;
  3. with L = 0: CPU time and SQL queries per debate (in-process).

With --worker-cost (and no other section unless asked), through workers started with the
README's own command (`celery -A config worker`, the pool and concurrency from settings):
  4. CPU per S4 debate over --cost-debates debates at L = --cost-latency: the worker process
     (from /proc) plus the PostgreSQL backends serving it (their /proc CPU; backends are found
     through pg_stat_activity and sampled every 20 ms, so a backend that exits loses at most
     its last 20 ms: with connection reuse none exits), and the statements per debate run;
     With --graph-engine, the same debates through a graph engine (LangGraph) with its
     PostgreSQL checkpointer, in this run (bench/graph_engine_bench.py, in a virtual
     environment of its own), and the ratio of the two;
  5. makespans of N debates submitted together at latency L (--makespan N:L, repeatable),
     wall time / 3 L, with --worker-processes workers: as one batch (POST
     /api/v1/debates/batch/), or with --submit one-by-one as N single starts; with
     --graph-engine, the same bursts through the graph engine too (as many processes and
     threads as the workers), with its PostgreSQL checkpointer and in memory.

The workers run with DJANGO_DEBUG=False, as in production (with debug on, Django also logs
every statement's SQL with its values). Section 4 also prints the LLM calls' share, read in the
worker itself: the CPU of its `llm-calls` threads (the calls' event loop and its executor, where
litellm and the offline model do their work), which the debate's own cost leaves out; and, as a
cross-check, the CPU of one call through the gateway in this process, apart, times 12.

Usage: .venv/bin/python bench/debate_bench.py [--latency 0.2] [--debates 50]
       .venv/bin/python bench/debate_bench.py --worker-cost [--graph-engine] [--makespan 50:0.2 ...]
           [--submit batch|one-by-one] [--broker amqp://guest:guest@127.0.0.1:5672//]
It uses its own database (debates_bench) and Redis database 14, so it never touches the app's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from statistics import median

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


def use_broker(argv: list[str]) -> None:
    """`--broker URL` (before Django starts): the broker the bench and its workers use."""
    if "--broker" in argv:
        os.environ["CELERY_BROKER_URL"] = argv[argv.index("--broker") + 1]


use_broker(sys.argv)


def ensure_database():
    import psycopg

    name = DB_URL.rsplit("/", 1)[1]
    with psycopg.connect(DB_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


CLK_TCK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None


def process_cpu(pid: int, *, reaped_children: bool = False) -> float:
    """CPU seconds (user + system) of one process, from /proc; with `reaped_children`, its
    waited-for children's too."""
    fields = _stat(pid)
    if fields is None:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])
    if reaped_children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / CLK_TCK


def tree_cpu(pid: int) -> float:
    """A worker's CPU: its own, its live pool processes' and its finished ones'."""
    total = process_cpu(pid, reaped_children=True)
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := _stat(int(entry))) and int(fields[1]) == pid:
            total += process_cpu(int(entry), reaped_children=True)
    return total


def calls_threads_cpu(pid: int) -> dict[int, float]:
    """CPU seconds of each of a worker's LLM calls' threads (`agents.calls_loop`: the
    loop's thread and its executor's, named `llm-calls` at the OS level), by thread id: where
    litellm and the offline model do their work, and nothing of the debate's own."""
    found = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if not f.read().startswith("llm-calls"):
                    continue
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        found[int(tid)] = (int(fields[11]) + int(fields[12])) / CLK_TCK
    return found


def rss_mb(pid: int) -> float:
    """Resident memory of a worker and its pool processes, in MB."""

    def one(p):
        try:
            with open(f"/proc/{p}/status") as f:
                return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        except (FileNotFoundError, StopIteration):
            return 0

    total = one(pid)
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := _stat(int(entry))) and int(fields[1]) == pid:
            total += one(int(entry))
    return total / 1024


def backend_pids(conn, dbname: str, exclude: set[int]) -> list[int]:
    """The backends serving `dbname` now (on psycopg connection `conn`), but `exclude`."""
    return [
        pid
        for (pid,) in conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [dbname],
        )
        if pid not in exclude
    ]


class BackendSampler:
    """CPU of the PostgreSQL backends serving the bench database, except `exclude` (the
    bench's own connection). Backends are looked up every `every` seconds; one that exits
    keeps the CPU last read for it."""

    def __init__(self, dbname: str, exclude: set[int], every: float = 0.02):
        import threading

        import psycopg

        self.conn = psycopg.connect(DB_URL, autocommit=True)
        self.dbname, self.exclude, self.every = dbname, exclude, every
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.stop = threading.Event()
        self.sample(initial=True)
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def sample(self, initial=False):
        for pid in backend_pids(self.conn, self.dbname, self.exclude):
            cpu = process_cpu(pid)
            if pid not in self.first:
                self.first[pid] = cpu if initial else 0.0
            if cpu:
                self.last[pid] = cpu

    def loop(self):
        while not self.stop.wait(self.every):
            self.sample()

    def total(self) -> float:
        self.stop.set()
        self.thread.join()
        self.sample()
        self.conn.close()
        return sum(self.last.get(pid, start) - start for pid, start in self.first.items())


def start_workers(count: int, latency: float, *extra: str) -> list:
    """Workers started with the README's command (`celery -A config worker -l info`)."""
    env = {**os.environ, "DEBATE_OFFLINE_LATENCY": str(latency), "DJANGO_DEBUG": "False"}
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "-l",
                "info",
                "--without-mingle",
                "--without-gossip",
                "-n",
                f"bench-{os.getpid()}-{n}@%h",
                *extra,
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for n in range(count)
    ]
    from config.celery import app

    deadline = time.monotonic() + 90
    while len(app.control.ping(timeout=0.5)) < count:
        if time.monotonic() > deadline or any(w.poll() is not None for w in workers):
            stop_workers(workers)
            raise SystemExit("the benchmark workers did not start")
    return workers


def stop_workers(workers):
    for w in workers:
        w.terminate()
    for w in workers:
        w.wait(timeout=60)


QUESTIONS = [
    "What is the capital of France?",
    "Is Bitcoin a good investment?",
    "How do I hack into my ex's email?",
    "Should I learn Python or Go?",
]


def run_together(n: int, *, tag: str = "", batch: bool = True) -> tuple[float, float]:
    """Submit `n` S4 debates together (enqueued on commit): as one batch, as
    `POST /api/v1/debates/batch/` does (`services.debate_create_many`), or with `batch` off one
    by one, as `n` single starts do; wall seconds until all ended: until the latest
    `completed_at` the workers stored (the same clock, this machine), so the poll's own
    interval is not counted; and when the poll (every 50 ms: its queries share the two
    cores) saw the last one finished."""
    from django.db.models import Max

    from debates import services
    from debates.models import Debate

    questions = [f"{QUESTIONS[i % len(QUESTIONS)]}{tag}" for i in range(n)]
    started = time.time()
    t0 = time.perf_counter()
    if batch:
        ids = [d.id for d in services.debate_create_many([{"query": q} for q in questions])]
    else:
        ids = [services.debate_create(query=q, protocol="s4").id for q in questions]
    pending = set(ids)
    while pending:
        pending -= set(
            Debate.objects.filter(id__in=pending, status__in=["completed", "failed"]).values_list(
                "id", flat=True
            )
        )
        if time.perf_counter() - t0 > 600:
            raise SystemExit(f"{len(pending)} debates did not finish in 600 s")
        time.sleep(0.05)
    if failed := Debate.objects.filter(id__in=ids, status="failed").count():
        raise SystemExit(f"{failed} of the {n} debates failed")
    polled = time.perf_counter() - t0
    last = Debate.objects.filter(id__in=ids).aggregate(last=Max("completed_at"))["last"]
    return last.timestamp() - started, polled


def statements_per_run(latency: float, runs: int = 3) -> dict[str, list[int]]:
    """SQL statements of each debate run (in-process, calls on the LLM threads at `latency`)."""
    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from debates import running, services

    settings.DEBATE_OFFLINE_LATENCY = latency
    counts: dict[str, list[int]] = {}
    for question in QUESTIONS:
        for _ in range(runs):
            debate = services.debate_create(query=question, protocol="s4", enqueue=False)
            with CaptureQueriesContext(connection) as ctx:
                running.debate_run(debate_id=debate.id, read_back=False)
            counts.setdefault(question, []).append(len(ctx.captured_queries))
    return counts


def llm_client_cost(calls: int = 100, rounds: int = 7) -> float:
    """CPU (ms) of one call through the gateway to the offline model (no latency, no limits):
    litellm's own work per call, the same in any orchestration that calls models through it.
    The median of `rounds` rounds of `calls` calls (one round alone moves by a fifth)."""
    from django.conf import settings

    from agents import gateway

    settings.DEBATE_OFFLINE_LATENCY = 0
    messages = [
        {"role": "system", "content": "You are the Safety agent."},
        {"role": "user", "content": "STEP: analysis\nQUESTION: Is Bitcoin a good investment?"},
    ]
    for _ in range(20):
        gateway.complete(messages=messages, step="analysis", role="safety")
    per_round = []
    for _ in range(rounds):
        c0 = time.process_time()
        for _ in range(calls):
            gateway.complete(messages=messages, step="analysis", role="safety")
        per_round.append((time.process_time() - c0) / calls * 1000)
    return sorted(per_round)[rounds // 2]


GRAPH_VENV = ROOT / ".venv-graph-engine"


def graph_engine_python() -> Path:
    """The graph engine's own virtual environment (made on first use from
    `bench/graph_engine_requirements.txt`, hash-checked), never the service's."""
    python = GRAPH_VENV / "bin" / "python"
    if not python.exists():
        print("making the graph engine's virtual environment (.venv-graph-engine) ...")
        subprocess.run(
            [getattr(sys, "_base_executable", sys.executable), "-m", "venv", str(GRAPH_VENV)],
            check=True,
        )
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "-q",
                "--require-hashes",
                "-r",
                str(ROOT / "bench" / "graph_engine_requirements.txt"),
            ],
            check=True,
        )
    return python


def graph_engine(*args: str) -> list[dict]:
    """`bench/graph_engine_bench.py` with `args`, in its own virtual environment, on a fresh
    database of its own, with the replies of the latest S4 debate the service ran here: its
    JSON lines."""
    import json
    import tempfile

    import psycopg

    from debates.models import Debate, LLMCall

    debate = Debate.objects.filter(protocol="s4", status="completed").latest("completed_at")
    replies: dict[str, list[str]] = {}
    for step, text in (
        LLMCall.objects.filter(debate=debate).order_by("id").values_list("step", "raw_response")
    ):
        replies.setdefault(step, []).append(text)
    dsn = DB_URL.rsplit("/", 1)[0] + "/graph_engine_bench"
    with psycopg.connect(DB_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS graph_engine_bench")
        conn.execute("CREATE DATABASE graph_engine_bench")
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(replies, f)
        f.flush()
        out = subprocess.run(
            [
                str(graph_engine_python()),
                str(ROOT / "bench" / "graph_engine_bench.py"),
                "--dsn",
                dsn,
                "--replies",
                f.name,
                *args,
            ],
            check=True,
            capture_output=True,
            text=True,
        )
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def graph_engine_cost(debates: int, latency: float, threads: int) -> dict:
    """The same S4 debate shape through the graph engine with its PostgreSQL checkpointer, in
    this run (`bench/graph_engine_bench.py`), with the replies of a debate the service ran."""
    args = ["--debates", str(debates), "--latency", str(latency), "--threads", str(threads)]
    return graph_engine(*args)[-1]


def graph_engine_makespans(specs: list[str], processes: int, threads: int) -> list[dict]:
    """The graph engine's makespans for the same `N:L` bursts, in as many processes of as many
    threads as the service's workers."""
    args = ["--processes", str(processes), "--threads", str(threads)]
    for spec in specs:
        args += ["--makespan", spec]
    return graph_engine(*args)


def worker_cost(args):
    import redis
    from django.conf import settings
    from django.db import connection

    redis.Redis.from_url(REDIS_URL).flushdb()
    from config.celery import app

    print(
        f"worker: celery -A config worker {' '.join(args.worker_args)}".rstrip()
        + f" (settings: pool {app.conf.worker_pool}, concurrency "
        f"{app.conf.worker_concurrency or os.cpu_count()}, CELERY_DB_REUSE_MAX "
        f"{getattr(settings, 'CELERY_DB_REUSE_MAX', None)})"
    )

    counts = statements_per_run(args.cost_latency)
    flat = [c for cs in counts.values() for c in cs]
    print(
        f"SQL statements per S4 debate run: {min(flat)}-{max(flat)}; by question (3 runs "
        "each): " + "; ".join(f"{q!r} {cs}" for q, cs in counts.items())
    )

    L = args.cost_latency
    workers = start_workers(1, L, *args.worker_args)
    try:
        at_rest = rss_mb(workers[0].pid)
        # Twice as many debates as the worker has threads first, so that every thread has
        # opened its connection and run a debate's statements twice (prepared from the second
        # run), as in a worker that has been running: the graph engine's pool opens all its
        # connections before it warms up. With fewer, the threads that had not run a debate
        # yet would connect and plan during the measured run, and it would count that.
        threads = int(app.conf.worker_concurrency or os.cpu_count())
        run_together(int(os.environ.get("BENCH_WARMUP", 2 * threads)), tag=" (warm-up)")
        connection.ensure_connection()
        own = {connection.connection.info.backend_pid}
        import psycopg

        dbname = DB_URL.rsplit("/", 1)[1]
        with psycopg.connect(DB_URL, autocommit=True) as watcher:
            for _ in range(3):  # a thread the broker handed no debate yet: hand out more
                if len(backend_pids(watcher, dbname, own)) >= threads:
                    break
                run_together(threads, tag=" (warm-up)")
        rounds = args.cost_rounds if args.graph_engine else 1
        mine, engines = [], []
        for _ in range(rounds):
            # The service's run and the graph engine's, taken in turns (the worker idles during
            # the graph engine's): a machine that slows down or speeds up during the bench
            # moves both, and the ratio is of their means.
            sampler = BackendSampler(dbname, own)
            warm = len(sampler.first)
            c0, calls0 = tree_cpu(workers[0].pid), calls_threads_cpu(workers[0].pid)
            wall, _ = run_together(args.cost_debates)
            worker_cpu = tree_cpu(workers[0].pid) - c0
            calls_cpu = sum(
                cpu - calls0.get(tid, 0.0) for tid, cpu in calls_threads_cpu(workers[0].pid).items()
            )
            pg_cpu = sampler.total()
            mine.append((wall, worker_cpu, calls_cpu, pg_cpu, warm))
            if args.graph_engine:
                engines.append(graph_engine_cost(args.cost_debates, L, threads))
        loaded = rss_mb(workers[0].pid)
    finally:
        stop_workers(workers)
    n = args.cost_debates
    per = 1000 / n
    # Each run's own cost (ms a debate): the worker without the LLM calls, and PostgreSQL.
    owns = [((w - c) * per, p * per) for _, w, c, p, _ in mine]
    for turn, (wall, worker_cpu, calls_cpu, pg_cpu, warm) in enumerate(mine):
        run = f" (run {turn + 1} of {rounds})" if rounds > 1 else ""
        print(
            f"CPU per S4 debate over {n} debates at L = {L} s{run} (one worker process, "
            f"{wall:.1f} s): worker {worker_cpu * per:.1f} ms + PostgreSQL {pg_cpu * per:.1f} "
            f"ms = {(worker_cpu + pg_cpu) * per:.1f} ms; of which the LLM calls (litellm and "
            f"the offline model, on the worker's llm-calls threads): {calls_cpu * per:.1f} ms; "
            f"the debate's own cost: worker {owns[turn][0]:.1f} ms + PostgreSQL "
            f"{owns[turn][1]:.1f} ms = {sum(owns[turn]):.1f} ms; the worker's connections open "
            f"before the run: {warm} of {threads}"
        )
        if engines:
            g = engines[turn]
            print(
                f"the graph engine{run} (LangGraph, PostgreSQL checkpointer, same S4 shape and "
                f"replies, {g['debates']} debates, same L and threads, no LLM client): process "
                f"{g['process_ms']} ms + PostgreSQL {g['postgres_ms']} ms = "
                f"{g['process_ms'] + g['postgres_ms']:.1f} ms (in memory: "
                f"{g['in_memory_process_ms']} ms)"
            )
    print(f"worker memory {at_rest:.0f} MB at rest, {loaded:.0f} MB after the runs")
    worker_own = sum(w for w, _ in owns) / len(owns)
    pg_own = sum(p for _, p in owns) / len(owns)
    own = worker_own + pg_own
    per_call = llm_client_cost()
    print(
        f"the debate's own cost{' (mean of the runs)' if rounds > 1 else ''}: worker "
        f"{worker_own:.1f} ms + PostgreSQL {pg_own:.1f} ms = {own:.1f} ms (one call through "
        f"the gateway, in-process and apart: {per_call:.2f} ms, x 12 = {12 * per_call:.1f} ms)"
    )
    if engines:
        process = sum(g["process_ms"] for g in engines) / len(engines)
        postgres = sum(g["postgres_ms"] for g in engines) / len(engines)
        print(
            f"the graph engine's cost{' (mean of the runs)' if rounds > 1 else ''}: process "
            f"{process:.1f} ms + PostgreSQL {postgres:.1f} ms = {process + postgres:.1f} ms; "
            f"the service's own cost is {own / (process + postgres):.2f} x the graph engine's "
            f"(each run: "
            + ", ".join(
                f"{sum(own_run) / (g['process_ms'] + g['postgres_ms']):.2f}"
                for own_run, g in zip(owns, engines, strict=True)
            )
            + ")"
        )

    by_latency: dict[float, list[int]] = {}
    for spec in args.makespan:
        count, latency = spec.split(":")
        by_latency.setdefault(float(latency), []).append(int(count))
    threads = int(app.conf.worker_concurrency or os.cpu_count())
    for latency, counts_at in by_latency.items():
        workers = start_workers(args.worker_processes, latency, *args.worker_args)
        try:
            # Twice as many debates as the workers have threads first: every thread has its
            # connection and its statements prepared, as in workers that have been running
            # (the graph engine warms up so).
            run_together(2 * args.worker_processes * threads, tag=" (warm-up)")
            for count in counts_at:
                if count == 1:  # one debate alone is one sample of a few jitters: several
                    walls = [
                        run_together(1, batch=args.submit == "batch")[0]
                        for _ in range(args.single_repeats)
                    ]
                    wall = median(walls)
                    print(
                        f"1 debate submitted alone ({args.submit}) at L = {latency} s "
                        f"({args.worker_processes} worker processes), {len(walls)} times: "
                        f"makespan median {wall:.3f} s = {wall / (3 * latency):.3f} x 3L (each: "
                        + ", ".join(f"{w / (3 * latency):.3f}" for w in walls)
                        + ")"
                    )
                    continue
                wall, polled = run_together(count, batch=args.submit == "batch")
                print(
                    f"{count} debates submitted together ({args.submit}) at L = {latency} s "
                    f"({args.worker_processes} worker processes): makespan {wall:.2f} s = "
                    f"{wall / (3 * latency):.2f} x 3L (seen by the poll at {polled:.2f} s)"
                )
        finally:
            stop_workers(workers)
    if args.graph_engine and args.makespan:
        # One debate alone as many times as the service's.
        specs = [
            spec
            for spec in args.makespan
            for _ in range(args.single_repeats if spec.split(":")[0] == "1" else 1)
        ]
        found: dict[tuple, list[dict]] = {}
        for g in graph_engine_makespans(specs, args.worker_processes, threads):
            found.setdefault((g["debates"], g["latency"]), []).append(g)
        for (debates, latency), runs in found.items():
            if len(runs) > 1:
                durable = [g["postgres_s"] / (3 * latency) for g in runs]
                memory = [g["in_memory_s"] / (3 * latency) for g in runs]
                print(
                    f"the graph engine, 1 debate alone at L = {latency} s, {len(runs)} times "
                    f"({args.worker_processes} processes of {threads} threads): makespan median "
                    f"with its PostgreSQL checkpointer {median(durable):.3f} x 3L (each: "
                    + ", ".join(f"{x:.3f}" for x in durable)
                    + f"); in memory {median(memory):.3f} x 3L (each: "
                    + ", ".join(f"{x:.3f}" for x in memory)
                    + ")"
                )
                continue
            [g] = runs
            print(
                f"the graph engine, {debates} debates started together at L = "
                f"{latency} s ({args.worker_processes} processes of {threads} threads): "
                f"makespan with its PostgreSQL checkpointer {g['postgres_s']:.2f} s = "
                f"{g['postgres_x3L']:.2f} x 3L; in memory {g['in_memory_s']:.2f} s = "
                f"{g['in_memory_x3L']:.2f} x 3L"
            )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--worker-cost",
        action="store_true",
        help="CPU, statements and makespans through workers (sections 4, 5)",
    )
    parser.add_argument(
        "--broker",
        default=None,
        help="the broker URL for the bench and its workers (default: the settings', Redis); "
        "e.g. amqp://guest:guest@127.0.0.1:5672// for RabbitMQ",
    )
    parser.add_argument(
        "--graph-engine",
        action="store_true",
        help="with --worker-cost: also run the same debates through a graph engine with its "
        "PostgreSQL checkpointer (bench/graph_engine_bench.py, in .venv-graph-engine)",
    )
    parser.add_argument("--cost-debates", type=int, default=200)
    parser.add_argument("--cost-latency", type=float, default=0.02)
    parser.add_argument(
        "--cost-rounds",
        type=int,
        default=3,
        help="with --graph-engine: the service's cost run and the graph engine's, taken in "
        "turns this many times (the ratio is of their means)",
    )
    parser.add_argument("--makespan", action="append", default=None, metavar="N:L")
    parser.add_argument(
        "--submit",
        choices=["batch", "one-by-one"],
        default="batch",
        help="how the makespans' debates are submitted: one batch (POST /api/v1/debates/batch/) "
        "or one start each (POST /api/v1/debates/)",
    )
    parser.add_argument(
        "--worker-args",
        nargs="*",
        default=[],
        help="more worker arguments, e.g. -P prefork -c 2 to compare",
    )
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--debates", type=int, default=50)
    parser.add_argument("--cpu-runs", type=int, default=20)
    parser.add_argument("--single-runs", type=int, default=5)
    parser.add_argument("--worker-processes", type=int, default=2)
    parser.add_argument(
        "--single-repeats",
        type=int,
        default=5,
        help="a makespan of one debate (N = 1) is taken this many times, the median printed",
    )
    args = parser.parse_args()
    L = args.latency
    if args.makespan is None:
        args.makespan = ["1:0.2", "50:0.2", "200:0.5", "50:1"]

    ensure_database()
    import django

    django.setup()
    if args.worker_cost:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        call_command("load_default_agents", stdout=open(os.devnull, "w"))
        from agents.litellm_loader import load

        load()
        worker_cost(args)
        return
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from debates import running, services
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
        running.debate_run(debate_id=debate.id)
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
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "-l",
                "warning",
                "-P",
                "threads",
                "-c",
                str(per_process),
                "--without-mingle",
                "--without-gossip",
                "-n",
                f"bench-{os.getpid()}-{n}@%h",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for n in range(args.worker_processes)
    ]
    try:
        from config.celery import app

        deadline = time.monotonic() + 60
        while len(app.control.ping(timeout=0.5)) < len(workers):
            if time.monotonic() > deadline or any(w.poll() is not None for w in workers):
                raise SystemExit("the benchmark workers did not start")
        questions = [
            "What is the capital of France?",
            "Is Bitcoin a good investment?",
            "How do I hack into my ex's email?",
            "Should I learn Python or Go?",
        ]
        t0 = time.perf_counter()
        ids = [
            services.debate_create(query=questions[i % len(questions)]).id
            for i in range(args.debates)
        ]
        pending = set(ids)
        while pending:
            done = set(
                Debate.objects.filter(
                    id__in=pending, status__in=["completed", "failed"]
                ).values_list("id", flat=True)
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
        debate = services.debate_create(query=f"Is Bitcoin a good investment? ({i})", enqueue=False)
        c0 = time.process_time()
        with CaptureQueriesContext(connection) as ctx:
            running.debate_run(debate_id=debate.id)
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
