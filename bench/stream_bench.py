"""What open event streams cost the ASGI server, and how far behind the stored steps they are.

Starts the web server as bin/serve does (gunicorn with one uvicorn worker), opens N streams of
`GET /api/v1/debates/<id>/events/` (spread over D queued debates), and prints, once every
stream is open and waiting:
  1. the worker process's resident memory before and after (per open stream), its threads,
     and the database connections the server holds;
then runs the D debates in this process (offline model, latency L per call) and prints
  2. each event's delay between being stored (its id: the time Redis added it, after the step
     committed) and reaching the stream's reader, over every event of every stream.

Usage: .venv/bin/python bench/stream_bench.py [--streams 200] [--debates 10] [--latency 0.05]
It uses its own database (debates_bench) and Redis database 14, so it never touches the app's.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import threading
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
    DJANGO_DEBUG="False",
    LITELLM_LOCAL_MODEL_COST_MAP="True",
    DJANGO_LOG_LEVEL="WARNING",
)


def ensure_database():
    import psycopg

    name = DB_URL.rsplit("/", 1)[1]
    with psycopg.connect(DB_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def proc_status(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "Threads"):
            fields[key] = int(value.split()[0])
    return fields


def server_connections() -> int:
    """Connections to the bench database other than this process's own."""
    import psycopg

    with psycopg.connect(DB_URL, autocommit=True) as conn:
        return conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        ).fetchone()[0]


async def open_streams(base, token, debate_ids, n, opened, arrivals):
    import httpx

    async def one(debate_id):
        url = f"{base}/api/v1/debates/{debate_id}/events/"
        async with httpx.AsyncClient(timeout=None) as client:
            async with client.stream(
                "GET", url, headers={"Authorization": f"Bearer {token}"}
            ) as response:
                assert response.status_code == 200, response.status_code
                opened.append(1)
                async for line in response.aiter_lines():
                    if line.startswith("id: "):
                        arrivals.append((line[4:], time.time()))
                    if line in ("event: decision", "event: failed"):
                        return

    await asyncio.gather(*(one(debate_ids[i % len(debate_ids)]) for i in range(n)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--debates", type=int, default=10)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    os.environ["DEBATE_OFFLINE_LATENCY"] = str(args.latency)
    ensure_database()
    import django

    django.setup()
    from django.core.management import call_command

    from accounts.services import token_issue
    from debates import running, services
    from tests.support.serve import free_port

    call_command("migrate", verbosity=0)
    call_command("load_default_agents", stdout=open(os.devnull, "w"))
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username="stream-bench")
    _, token = token_issue(user=user, name="stream bench")
    debates = [
        services.debate_create(
            query=f"Is Bitcoin a good investment? ({n})", created_by=user, enqueue=False
        )
        for n in range(args.debates)
    ]
    from django.db import connections

    connections.close_all()

    port = free_port()
    server = subprocess.Popen(
        [
            str(ROOT / ".venv/bin/gunicorn"),
            "config.asgi:application",
            "--worker-class",
            "uvicorn_worker.UvicornWorker",
            "--workers",
            "1",
            "--bind",
            f"127.0.0.1:{port}",
            "--no-control-socket",
        ],
        cwd=ROOT,
        stdout=open("/tmp/stream_bench_server.log", "w"),
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        import requests

        deadline = time.monotonic() + 60
        while True:
            try:
                requests.get(f"{base}/accounts/login/", timeout=2)
                break
            except requests.RequestException:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        worker = int(
            subprocess.run(
                ["pgrep", "-P", str(server.pid)], capture_output=True, text=True
            ).stdout.split()[0]
        )
        # Warm the worker up: one stream opened and its debate's page answered.
        requests.get(f"{base}/accounts/login/", timeout=5)
        before = proc_status(worker)
        before_connections = server_connections()

        opened: list[int] = []
        arrivals: list[tuple[str, float]] = []
        streams = threading.Thread(
            target=asyncio.run,
            args=(
                open_streams(base, token, [d.id for d in debates], args.streams, opened, arrivals),
            ),
        )
        streams.start()
        while len(opened) < args.streams:
            time.sleep(0.1)
        time.sleep(1.0)
        waiting = proc_status(worker)
        waiting_connections = server_connections()

        started = time.monotonic()
        runners = [
            threading.Thread(target=running.debate_run, kwargs={"debate_id": d.id}) for d in debates
        ]
        for t in runners:
            t.start()
        for t in runners:
            t.join()
        streams.join(timeout=120)
        took = time.monotonic() - started
    finally:
        server.terminate()
        server.wait(timeout=30)

    grown = (waiting["VmRSS"] - before["VmRSS"]) / 1024
    print(f"{args.streams} open streams on one uvicorn worker (gunicorn), {args.debates} debates:")
    print(
        f"  resident memory {before['VmRSS'] / 1024:.1f} MB -> {waiting['VmRSS'] / 1024:.1f} MB "
        f"(+{grown:.1f} MB, {grown * 1024 / args.streams:.0f} KB a stream)"
    )
    print(f"  threads {before['Threads']} -> {waiting['Threads']}")
    print(
        f"  database connections held by the server: {before_connections} before, "
        f"{waiting_connections} with every stream waiting"
    )
    delays = sorted(max(0.0, at - int(event_id.split("-")[0]) / 1000) for event_id, at in arrivals)
    print(
        f"  {len(arrivals)} events delivered while the debates ran ({took:.1f} s, L = "
        f"{args.latency} s): stored -> read, median {statistics.median(delays) * 1000:.1f} ms, "
        f"p90 {delays[int(len(delays) * 0.9) - 1] * 1000:.1f} ms, max {delays[-1] * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
