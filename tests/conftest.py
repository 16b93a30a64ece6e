"""Fixtures shared by the suite. Tests use the real PostgreSQL and Redis; only LLM replies are
scripted, and the end-to-end tests run a real Celery worker process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connections, transaction
from django.test import TransactionTestCase

ROOT = Path(__file__).resolve().parent.parent
# A secret key production accepts (50+ characters, varied), for settings tests in a subprocess.
STRONG_KEY = "k3Y-" + "aB9_cD8-eF7_gH6-iJ5_kL4-mN3_oP2-qR1_sT0-uV9_wX8-yZ7_"

# The tiers (README, "Tests"): a test is marked by the fixtures it asks for, so `bin/test --fast`
# (-m "not e2e and not browser and not recovery") needs neither a Celery worker nor Chromium.
# A test that starts a worker or Chromium some other way carries the mark itself.
WORKER_FIXTURES = {"celery_worker_process", "worker_factory"}
BROWSER_FIXTURES = {"browser", "page"}


@pytest.hookimpl(tryfirst=True)  # before -m deselects by these marks
def pytest_collection_modifyitems(items):
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & WORKER_FIXTURES:
            item.add_marker(pytest.mark.e2e)
        if fixtures & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
        # The crash tests: the worker-process tests of tests/recovery (its sweeper and rerun
        # tests need no worker and stay in the fast tier).
        if "recovery" in item.path.parent.parts and item.get_closest_marker("e2e"):
            item.add_marker(pytest.mark.recovery)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test database commits without waiting for the disk (`synchronous_commit = off`):
    what a commit makes visible is the same, only a crash of PostgreSQL itself could lose it,
    and no test crashes PostgreSQL. It saves several ms a commit, and the workers' and
    transactional tests' runs commit often. Set on the database, so that the connections of
    workers and subprocesses have it too."""
    from django.db import connection

    with django_db_blocker.unblock(), connection.cursor() as cursor:
        name = connection.ops.quote_name(connection.settings_dict["NAME"])
        cursor.execute(f"ALTER DATABASE {name} SET synchronous_commit = off")
        cursor.execute("SET synchronous_commit = off")


#: Tables a transactional test's teardown leaves: rows Django's `post_migrate` would only
#: write back (content types, permissions). The migrations' record is no model's table, and is
#: left as `flush` leaves it.
KEPT_TABLES = {"django_content_type", "auth_permission"}


def _empty_tables(self) -> None:
    """A transactional test's teardown (`TransactionTestCase._fixture_teardown`): every table
    emptied, as Django's `flush` leaves them, by DELETE in one transaction rather than a
    TRUNCATE of all 60 tables and `post_migrate` writing back the content types and
    permissions: 3 ms, not 650 ms, for each transactional test (about 90 in the fast tier, and
    every end-to-end and browser test). The session runs as a replica
    (`session_replication_role`), so neither foreign keys nor triggers fire: the audit table's
    refusal of DELETE, and the roll-up triggers, which a TRUNCATE does not fire either.
    Sequences go on counting, as after `flush` without `reset_sequences`."""
    for alias in self._databases_names(include_mirrors=False):
        connection = connections[alias]
        tables = connection.introspection.django_table_names(
            only_existing=True, include_views=False
        )
        quote = connection.ops.quote_name
        deletes = " ".join(
            f"DELETE FROM {quote(t)};" for t in sorted(tables) if t not in KEPT_TABLES
        )
        with transaction.atomic(using=alias), connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL session_replication_role = replica; {deletes}")


TransactionTestCase._fixture_teardown = _empty_tables


@pytest.fixture(autouse=True)
def _fresh_rate_limits(redis_client):
    """Create limits and failed-login counts live in Redis; each test starts with none (other
    keys are left). A scan reads up to 10,000 keys a round trip (the test database holds a
    few hundred), not Redis's 10: this runs before every test."""
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    for pattern in (f"{prefix}:*throttle:*", f"{prefix}:*axes*"):
        if keys := list(redis_client.scan_iter(pattern, count=10_000)):
            redis_client.delete(*keys)


@contextmanager
def stored_for_module(django_db_blocker):
    """For a module-scoped fixture: what the block stores is shared by the module's tests. It
    is stored in a transaction each test's own nests in (so a test's changes are undone after
    it), and rolled back after the module's last test."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield
        transaction.set_rollback(True)


@pytest.fixture
def default_agents(db):
    call_command("load_default_agents", stdout=open(os.devnull, "w"))
    from agents.models import Agent

    return list(Agent.objects.order_by("position"))


@pytest.fixture(scope="session")
def redis_client():
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL)
    client.ping()
    return client


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker, redis_client, tmp_path_factory):
    """A real Celery worker, on the test database and the tests' own Redis database."""
    redis_client.flushdb()
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        # Each offline reply takes a moment, so a page can show the agents thinking.
        "DEBATE_OFFLINE_LATENCY": "0.3",
    }
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    handle = open(log, "w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
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
            f"test-{os.getpid()}@%h",
            "-Q",
            ",".join(every_queue()),
        ],
        cwd=ROOT,
        env=env,
        stdout=handle,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if "ready" in log.read_text():
            break
        if proc.poll() is not None:
            raise RuntimeError(f"the Celery worker exited:\n{log.read_text()}")
        time.sleep(0.2)
    else:
        proc.kill()
        raise RuntimeError(f"the Celery worker did not start:\n{log.read_text()}")
    yield proc
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    handle.close()


@pytest.fixture
def fake_openai(monkeypatch, settings):
    """An OpenAI-compatible server on 127.0.0.1 (`tests/support/fake_openai.py`) that the real
    gateway reaches through litellm: use model `fake_openai.model` (the operator allows it);
    script its replies."""
    from tests.support.fake_openai import FakeOpenAI

    with FakeOpenAI() as server:
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)  # litellm would prefer it
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        settings.DEBATE_ALLOWED_MODELS = [*settings.DEBATE_ALLOWED_MODELS, server.model]
        yield server


def wait_for(predicate, timeout=30.0, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


@pytest.fixture(scope="session")
def browser():
    """Real headless Chromium (Debian's package) driven by Playwright; nothing is downloaded."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}; bin/test installs it.")
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, tmp_path):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


@pytest.fixture
def artifacts_dir():
    """Where browser tests leave screenshots: test-artifacts/ at the project root."""
    path = ROOT / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path


# --- workers the test can kill, on a queue of the test's own -----------------------------------


def every_queue(prefix: str = "", default: str | None = None) -> list[str]:
    """The queues a worker reads to take every task: the default queue and each kind's
    (settings.TASK_QUEUES), their names under `prefix`."""
    default = default or settings.CELERY_TASK_DEFAULT_QUEUE
    return [
        default,
        *(f"{prefix or settings.TASK_QUEUE_PREFIX}{kind}" for kind in settings.TASK_QUEUES),
    ]


@contextmanager
def tasks_sent_to(name: str, redis_client):
    """Every task the test process sends goes to the queue `name`, whatever its route; the
    queue (and those named after it) is emptied after."""
    from celery.app.routes import prepare

    from config.celery import app

    previous = app.conf.task_default_queue, app.amqp.router.routes
    app.conf.task_default_queue = name
    app.amqp.router.routes = prepare(
        {task: {"queue": name} for task in settings.CELERY_TASK_ROUTES}
    )
    try:
        yield name
    finally:
        app.conf.task_default_queue, app.amqp.router.routes = previous
        redis_client.delete(*every_queue(f"{name}.", default=name))


@pytest.fixture
def private_queue(redis_client):
    """A Celery queue of this test's own: every task the test process sends goes there,
    whatever its route, so no other worker (such as `celery_worker_process`) takes them.
    Workers from `worker_factory` read it, and the queues of the tasks they send themselves
    (named after it)."""
    with tasks_sent_to(f"test-{os.getpid()}-{time.monotonic_ns()}", redis_client) as name:
        yield name


@pytest.fixture(autouse=True)
def _tasks_reach_no_worker_unasked(request, redis_client):
    """A test that asks for no worker sends its tasks to a queue no worker reads: otherwise the
    session's worker (`celery_worker_process`, started by an earlier test of the process)
    would run a debate a transactional test committed, writing to the tables while the test's
    teardown empties them (a deadlock between the two)."""
    if (WORKER_FIXTURES | {"real_task_routes"}) & set(request.fixturenames):
        yield
        return
    with tasks_sent_to(f"unread-{os.getpid()}", redis_client):
        yield


@pytest.fixture
def real_task_routes():
    """The task routes as settings give them, for a test that reads them and sends no task."""


def private_queue_env(queue: str) -> dict[str, str]:
    """Environment for a Celery process (worker, beat) of a test's private queue: tasks it
    sends go to queues named after it."""
    return {"CELERY_TASK_DEFAULT_QUEUE": queue, "TASK_QUEUE_PREFIX": f"{queue}."}


class WorkerProcess:
    """A real Celery worker process (own process group) reading a test's private queue (and
    the queues named after it), with the default pool (settings) unless `pool` names one."""

    def __init__(
        self,
        queue: str,
        log: Path,
        app: str = "config",
        extra_env=None,
        pool: str | None = None,
        kinds: list[str] | None = None,
    ):
        """`kinds`: read only the queues of these kinds of task (settings.TASK_QUEUES), named
        after `queue`; unset: every queue."""
        db = settings.DATABASES["default"]
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "REDIS_URL": settings.REDIS_URL,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            **private_queue_env(queue),
            # (`-P prefork` would not do: Celery reads it as "no pool given", so settings win.)
            **({"CELERY_WORKER_POOL": pool} if pool else {}),
            **(extra_env or {}),
        }
        self.log = log
        self.handle = open(log, "w")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                app,
                "worker",
                "-l",
                "info",
                "-c",
                "2",
                "--without-mingle",
                "--without-gossip",
                "--without-heartbeat",
                "-n",
                f"{log.stem}-{os.getpid()}@%h",
                "-Q",
                ",".join(
                    [f"{queue}.{kind}" for kind in kinds]
                    if kinds
                    else every_queue(f"{queue}.", default=queue)
                ),
            ],
            cwd=ROOT,
            env=env,
            stdout=self.handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while "ready" not in log.read_text():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"the Celery worker did not start:\n{log.read_text()}")
            time.sleep(0.1)

    def kill(self):
        """SIGKILL the whole worker, pool processes included: a machine that died."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # already gone, pool processes too
        self.proc.wait(timeout=10)
        self.handle.close()


@pytest.fixture
def worker_factory(django_db_setup, private_queue, tmp_path):
    """Start workers on the test's private queue; each is stopped at the end of the test."""
    started: list[WorkerProcess] = []

    def start(name: str = "worker", **kwargs) -> WorkerProcess:
        worker = WorkerProcess(private_queue, tmp_path / f"{name}.log", **kwargs)
        started.append(worker)
        return worker

    yield start
    for worker in started:  # idle by now; their queue is dropped with the test
        worker.kill()
