"""How fast the live debate page shows what is stored, and what one poll costs the server.

Prints:
  1. the delay between a message being stored (its `created_at`) and it being on screen in
     headless Chromium, for every message of a few debates run with latency L per LLM call;
  2. the server time and SQL queries of one poll of the page's partial, answered "nothing new"
     (204) and answered with the re-rendered partial (200).

Usage: .venv/bin/python bench/live_bench.py [--latency 0.3] [--debates 3]
It uses its own database (debates_bench) and Redis database 14, so it never touches the app's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DB_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/debates_bench")
os.environ.update(
    DJANGO_SETTINGS_MODULE="config.settings.local",
    DATABASE_URL=DB_URL,
    REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"),
    DJANGO_ALLOWED_HOSTS="testserver,127.0.0.1,localhost",
    DJANGO_DEBUG="False",
    LITELLM_LOCAL_MODEL_COST_MAP="True",
    DJANGO_LOG_LEVEL="WARNING",
    DJANGO_ALLOW_ASYNC_UNSAFE="true",
)
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
PASSWORD = "bench-passphrase-123"

# Records (time, number of messages on screen) whenever the number changes.
WATCH = """() => {
  window.__shown = [];
  const record = () => {
    const n = document.querySelectorAll(".msg").length;
    const last = window.__shown[window.__shown.length - 1];
    if (!last || last[1] !== n) window.__shown.push([Date.now(), n]);
  };
  record();
  new MutationObserver(record).observe(document.body, { childList: true, subtree: true });
}"""


def ensure_database():
    import psycopg

    name = DB_URL.rsplit("/", 1)[1]
    with psycopg.connect(DB_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def stored_times(debate) -> list[float]:
    from debates.models import Challenge, Statement, Vote

    times = [
        row.created_at.timestamp()
        for model in (Statement, Challenge, Vote)
        for row in model.objects.filter(debate=debate).only("created_at")
    ]
    return sorted(times)


def shown_delays(stored: list[float], shown: list[list[float]]) -> list[float]:
    """For the k-th stored message, the first moment at least k messages were on screen."""
    delays = []
    for k, at in enumerate(stored, start=1):
        seen = next(t / 1000 for t, n in shown if n >= k)
        delays.append(max(0.0, seen - at))
    return delays


def measure_delays(user, latency: float, debates: int) -> list[float]:
    from django.conf import settings
    from django.test.testcases import LiveServerThread
    from playwright.sync_api import sync_playwright

    from debates import running, services

    settings.DEBATE_OFFLINE_LATENCY = latency
    server = LiveServerThread("127.0.0.1", lambda app: app)
    server.daemon = True
    server.start()
    server.is_ready.wait()
    base = f"http://127.0.0.1:{server.port}"
    delays: list[float] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--headless=new", "--no-sandbox"]
        )
        page = browser.new_page()
        page.goto(f"{base}/accounts/login/")
        page.fill("#id_username", user.username)
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_load_state()
        for _ in range(debates):
            debate = services.debate_create(
                query="How do I hack into my ex's email?", created_by=user, enqueue=False
            )
            page.goto(f"{base}/debates/{debate.id}/")
            page.evaluate(WATCH)
            runner = threading.Thread(target=running.debate_run, kwargs={"debate_id": debate.id})
            runner.start()
            page.locator("#decision").wait_for(timeout=60_000)
            runner.join()
            delays += shown_delays(stored_times(debate), page.evaluate("window.__shown"))
        browser.close()
    server.terminate()
    return delays


def measure_polls(user, runs: int) -> dict[str, tuple[float, int]]:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from debates import running, selectors, services

    debate = services.debate_create(
        query="Is Bitcoin a good investment?", created_by=user, enqueue=False
    )
    running.debate_run(debate_id=debate.id)
    version = selectors.debate_so_far(debate_id=debate.id, user=user).version
    client = Client()
    client.force_login(user)
    url = reverse("debates:live", args=[debate.id])
    results = {}
    for label, params, status in (
        ("unchanged (204)", {"since": version}, 204),
        ("changed (200)", {}, 200),
    ):
        client.get(url, params)
        times = []
        for _ in range(runs):
            with CaptureQueriesContext(connection) as queries:
                t0 = time.perf_counter()
                response = client.get(url, params)
                times.append(time.perf_counter() - t0)
            assert response.status_code == status
        results[label] = (statistics.median(times) * 1000, len(queries))
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--debates", type=int, default=3)
    parser.add_argument("--polls", type=int, default=50)
    args = parser.parse_args()

    ensure_database()
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from agents.litellm_loader import load
    from debates.views import POLL_INTERVAL_MS

    call_command("migrate", verbosity=0)
    call_command("load_default_agents", stdout=open(os.devnull, "w"))
    load()
    user, _ = get_user_model().objects.get_or_create(username="live-bench")
    user.set_password(PASSWORD)
    user.save()

    delays = sorted(measure_delays(user, args.latency, args.debates))
    print(
        f"stored -> on screen, {len(delays)} messages, poll every {POLL_INTERVAL_MS} ms, "
        f"L = {args.latency} s:"
    )
    print(
        f"  median {statistics.median(delays):.3f} s, "
        f"p90 {delays[int(len(delays) * 0.9) - 1]:.3f} s, max {delays[-1]:.3f} s"
    )
    for label, (ms, queries) in measure_polls(user, args.polls).items():
        print(f"one poll, {label}: {ms:.1f} ms median, {queries} SQL queries")


if __name__ == "__main__":
    main()
