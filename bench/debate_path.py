"""The project files one S4 debate runs through, from `POST /api/v1/debates/` to its stored
decision.

A first debate warms the process up (imports, caches); the second is traced with
`sys.monitoring`: every project function that starts running is recorded, with its file. Module
bodies run at import time are not counted, nor is anything outside the project (Django, DRF,
Celery, litellm). The debate runs in this process (Celery's eager mode), with the built-in
offline model, so the path is the request, the task, the protocol, the gateway and storage.

Prints each file with the functions run in it (and the lines of those functions), grouped by
app, then the spine: the files on the call stack at each SQL statement the debate's run makes
(in the request's and the task's thread), the totals, and a lower bound on the files of at
most 500 lines that each app's path files could be packed into. The offline model stands where
a provider's HTTP API would be with a real model: its files are marked, and counted apart.

Usage: .venv/bin/python bench/debate_path.py
It uses its own database (debates_bench) and Redis database 14, so it never touches the app's.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.update(
    DJANGO_SETTINGS_MODULE="config.settings.local",
    DATABASE_URL=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/debates_bench"
    ),
    REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"),
    LITELLM_LOCAL_MODEL_COST_MAP="True",
    DJANGO_LOG_LEVEL="WARNING",
    DJANGO_DEBUG="False",
)


def is_model(filename: str) -> bool:
    """The built-in offline model's files: what a provider's API is with a real model."""
    return filename.startswith(("agents/offline", "agents/responders.py")) or (
        filename.startswith("protocols/") and filename.endswith("/offline.py")
    )


QUESTION = "Is it safe to share my public profile photo on a professional networking site?"


def ensure_database() -> None:
    import psycopg

    url = os.environ["DATABASE_URL"]
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()

    ensure_database()
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from rest_framework.test import APIClient

    from config.celery import app as celery_app
    from debates.models import Debate

    call_command("migrate", verbosity=0)
    call_command("load_default_agents", verbosity=0, stdout=open(os.devnull, "w"))
    settings.BUDGET_USER_DAILY_TOKENS = 10**9
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True

    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(
        username="path-bench", defaults={"is_superuser": True, "is_staff": True}
    )
    client = APIClient(SERVER_NAME="localhost")
    client.force_authenticate(user)

    def one_debate() -> Debate:
        response = client.post(
            "/api/v1/debates/", {"question": QUESTION, "protocol": "s4"}, format="json"
        )
        assert response.status_code in (201, 202), response.content
        debate = Debate.objects.get(pk=response.json()["id"])
        assert debate.decision, f"no stored decision: {debate.status} {debate.error}"
        return debate

    one_debate()  # warm-up: imports and caches

    seen: dict[str, set[str]] = defaultdict(set)
    run_codes: set = set()  # the code objects run; their lines are read after the debate
    root = str(ROOT) + os.sep
    venv = str(ROOT / ".venv")
    tool = sys.monitoring.PROFILER_ID
    sys.monitoring.use_tool_id(tool, "debate-path")

    def started(code, offset):
        filename = code.co_filename
        if filename.startswith(root) and not filename.startswith(venv):
            if code.co_name != "<module>":
                seen[filename[len(root) :]].add(code.co_qualname)
                run_codes.add(code)
        return sys.monitoring.DISABLE if not filename.startswith(root) else None

    # The spine: the files on the call stack at each SQL statement the debate makes (its rows,
    # its calls, its spending), from the request's first frame down.
    spine: dict[str, int] = defaultdict(int)
    statements = 0

    def on_statement(execute, sql, params, many, context):
        nonlocal statements
        statements += 1
        for name in {frame.filename for frame in traceback.extract_stack()}:
            if name.startswith(root) and not name.startswith(venv):
                spine[name[len(root) :]] += 1
        return execute(sql, params, many, context)

    sys.monitoring.register_callback(tool, sys.monitoring.events.PY_START, started)
    sys.monitoring.set_events(tool, sys.monitoring.events.PY_START)
    try:
        with connection.execute_wrapper(on_statement):
            debate = one_debate()
    finally:
        sys.monitoring.set_events(tool, 0)
        sys.monitoring.free_tool_id(tool)
    spine.pop("bench/debate_path.py", None)
    seen.pop("bench/debate_path.py", None)

    run_lines: dict[str, set[int]] = defaultdict(set)  # the lines of the functions run, by file
    for code in run_codes:
        last = max((line for _, _, line in code.co_lines() if line), default=0)
        run_lines[code.co_filename[len(root) :]].update(range(code.co_firstlineno, last + 1))
    model = {f for f in seen if is_model(f)}
    counted = sorted(seen)
    by_app: dict[str, list[str]] = defaultdict(list)
    for filename in counted:
        by_app[filename.split("/", 1)[0]].append(filename)
    lines = 0
    sizes: dict[str, int] = {}
    for app in sorted(by_app):
        print(f"{app}/")
        for filename in by_app[app]:
            size = sizes[filename] = sum(1 for _ in open(ROOT / filename, encoding="utf-8"))
            lines += size
            mark = "  (model)" if filename in model else ""
            print(
                f"  {filename:<48} {size:>5} lines, {len(seen[filename]):>3} functions "
                f"({len(run_lines[filename]):>4} lines){mark}"
            )
    print(f"\nThe spine: the files on the call stack at the debate's {statements} SQL statements")
    for filename in sorted(spine):
        print(f"  {filename:<48} at {spine[filename]:>3} of them")
    print(f"{len(spine)} files on the spine.")
    model_lines = sum(1 for f in model for _ in open(ROOT / f, encoding="utf-8"))
    # Each app's path files packed into files of at most 500 lines (none over, none mixing
    # apps): a lower bound on the files the path could run through without large files.
    packed = {
        app: -(-sum(sizes[f] for f in files if f not in model) // 500)
        for app, files in by_app.items()
    }
    function_lines = sum(len(run_lines[f]) for f in counted if f not in model)
    print(
        "\nWithout the offline model, packed per app into files of at most 500 lines: at least "
        f"{sum(packed.values())} files ("
        + ", ".join(f"{app} {n}" for app, n in sorted(packed.items()) if n)
        + f"). The functions run span {function_lines:,} of those lines."
    )
    print(
        f"\nDebate {debate.pk}: {debate.decision}. From the POST to the stored decision: "
        f"{len(counted)} project files ({lines:,} lines) ran; without the offline model's "
        f"{len(model)}, {len(counted) - len(model)} files ({lines - model_lines:,} lines)."
    )


if __name__ == "__main__":
    main()
