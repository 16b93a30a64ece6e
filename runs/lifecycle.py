"""The durable-run core: work stored in PostgreSQL that a Celery task runs to its end, written
once for debates and contradiction runs.

A `DurableRun` row (the abstract model) is queued, claimed by one runner, and ends completed or
failed. A `Work` says what one kind of row is: its model, its lock, how to execute and enqueue
it, and what its failure means (a review item, a webhook). The functions here, and the
sweeper in `runs.sweeping`, do the rest:

- `run`: take the row's PostgreSQL advisory lock (one runner at a time, across every process;
  the lock ends with the runner's connection, so a dead worker's row can be taken again), claim
  it (queued -> running, one more attempt; a running row is resumed), execute it, and fail it
  with a readable error if it raises. A row whose workers kept dying is given up after
  `DEBATE_MAX_ATTEMPTS` attempts.
- `fail`: mark an unfinished row failed, with the reason, and tell its `Work` (in the same
  transaction, so a failure is never stored without its review item).
- `heartbeat`: a running row's `heartbeat_at` is set when it is claimed and moved on as its
  results are stored (at most every `DEBATE_HEARTBEAT_INTERVAL` seconds, in the transaction that
  stores them).
- `sweep`: every registered kind, rows queued past `DEBATE_QUEUED_DEADLINE` (their message was
  lost; sooner when the broker holds fewer messages than there are queued rows: it lost its
  queue), or running with a heartbeat older than `DEBATE_HEARTBEAT_TIMEOUT` (their worker may be
  lost), whose lock is free, are re-enqueued; after `DEBATE_MAX_RECOVERIES` re-enqueues the
  sweeper gives up and fails them. The lock decides: a stale heartbeat only makes a row a
  candidate, and a live runner (waiting on a slow call, say) holds its lock and is never swept.
- `TransientFailure`: a run that stopped on a failure worth trying again later (a model that
  stayed unavailable through a call's bounded attempts) goes back to queued, and its task
  retries it with backoff; what was stored is kept, so the retry resumes.
- `requeue_failed`: queue a failed row again with its counters reset, from what is stored.
"""

from __future__ import annotations

import logging
import select
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import psycopg
from django.conf import settings
from django.db import connection, connections, transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from runs.models import UNFINISHED, DurableRun, RunStatus

logger = logging.getLogger(__name__)


@contextmanager
def advisory_lock(key: str, *, generic_plans: bool = False) -> Iterator[bool]:
    """Try to take the session lock named `key`; yields whether it was taken (never waits).

    The lock is released on leaving the block. Keys are namespaced by kind of work (e.g.
    ``"contradiction-run:<id>"``) so different kinds never share a lock.

    With `generic_plans`, the connection plans each prepared statement once while it holds
    the lock (`plan_cache_mode = force_generic_plan`, set by the statement that takes it) and
    goes back to its own setting when it lets go (`set_config` with no value: what `RESET`
    gives, the database's or role's setting if there is one), in the statement that releases
    it: the work's statements find their rows by key, so the plan made without the values is
    the plan made with them, where PostgreSQL left to itself plans some of them anew on every
    run. Other work on the connection (the sweeper, the reports) keeps PostgreSQL's choice, a
    plan for the values given when that is better (a partial index that only some values can
    use).
    """
    take = "SELECT pg_try_advisory_lock(hashtextextended(%s, 0))"
    restore = ", set_config('plan_cache_mode', NULL, false)" if generic_plans else ""
    if generic_plans:  # set only once the lock is taken (NULL: the connection's own)
        take = (
            "SELECT got, set_config('plan_cache_mode', CASE WHEN got THEN "
            f"'force_generic_plan' END, false) FROM ({take} AS got) AS taken"
        )
    with connection.cursor() as cursor:
        cursor.execute(take, [key])
        acquired = cursor.fetchone()[0]
    try:
        yield acquired
    finally:
        if acquired:
            with connection.cursor() as cursor:
                cursor.execute(
                    f"SELECT pg_advisory_unlock(hashtextextended(%s, 0)){restore}", [key]
                )


class Work:
    """One kind of durable work. Subclasses set the attributes and say how to execute it."""

    model: ClassVar[type[DurableRun]]
    #: What messages call one row ("debate", "contradiction run").
    noun: ClassVar[str]
    #: The key of its report in `sweep` ("debates", "contradiction_runs").
    plural: ClassVar[str]
    #: Prefix of its advisory lock's key (the key is the prefix and the row's id).
    lock_prefix: ClassVar[str] = ""

    def lock(self, pk):
        return advisory_lock(f"{self.lock_prefix}{pk}", generic_plans=self.generic_plans())

    def generic_plans(self) -> bool:
        """Whether its statements are planned once per connection while it runs (see
        `advisory_lock`): for work whose statements all find their rows by key."""
        return False

    def claim_returns(self, table: str) -> str:
        """More the claim returns with the row: SQL (`, <expression> AS <name>`, where `table`
        names the row's table), read as attributes of the row it returns."""
        return ""

    def execute(self, row) -> None:
        """Run (or resume) a claimed row to its end, from what is stored."""
        raise NotImplementedError

    #: The Celery task that runs a row by id, handed over by the owning app's
    #: `AppConfig.ready` (its task module imports the module defining the work, so the work
    #: cannot import the task).
    task: Any = None

    def enqueue(self, pk: str) -> Any:
        """Send the row's task (called on commit)."""
        return self.task.delay(pk)

    def readable_error(self, exc: BaseException) -> str:
        return f"{type(exc).__name__}: {exc}"

    def is_transient(self, exc: BaseException) -> bool:
        """Whether the failure may pass if the row is run again later (its task retries it)."""
        return False

    def failed(self, row, cause: BaseException | None = None) -> None:
        """Told inside the transaction that failed `row` (saved as failed, still locked);
        `cause`: the exception it stopped on, when one did."""

    def requeued(self, pk, *, user, note: str, before: dict[str, Any]) -> None:
        """Told inside the transaction that queued a failed row again."""


_WORKS: dict[str, Work] = {}


def register(work: Work) -> Work:
    """Called by each app's `AppConfig.ready`: the sweeper sweeps every registered kind."""
    _WORKS[work.plural] = work
    return work


def registered() -> list[Work]:
    """Every registered kind of work (debates, contradiction runs), in registration order."""
    return list(_WORKS.values())


# --- the worker's database connections -----------------------------------------------------------


def _looks_lost(conn) -> bool:
    """Whether a connection may be gone, without a round trip: a statement failed on it, or
    the server has something to say while it sits idle (a session it ends sends its reason and
    closes the socket; an idle session that is fine has nothing to read)."""
    if conn.errors_occurred:
        return True
    try:
        readable, _, _ = select.select([conn.connection.pgconn.socket], [], [], 0)
    except (OSError, ValueError, AttributeError, psycopg.Error):  # closed already, say
        return True
    return bool(readable)


def drop_lost_connections() -> list[str]:
    """Close this thread's database connections that are gone (the server restarted, or
    ended the session, or a statement found it broken), so their next use connects again;
    returns their aliases. Workers keep their connections from task to task
    (`CELERY_DB_REUSE_MAX`), and Celery then stops checking them between tasks: without this,
    a lost connection would fail every task its thread takes until the worker restarts. Called
    before every task (`config.celery`); a connection that is fine costs no round trip, a
    suspect one `SELECT 1`."""
    lost = []
    for conn in connections.all(initialized_only=True):
        if conn.connection is None or conn.in_atomic_block:
            continue
        if _looks_lost(conn) and not conn.is_usable():
            conn.close()
            lost.append(conn.alias)
        else:
            conn.errors_occurred = False
    return lost


def connection_lost() -> bool:
    """After a database error: whether the connection failed (none could be made, or the one
    held is gone) rather than a statement. A lost connection is closed, so the next use of it
    connects again; the work it was doing can be run again from what is stored."""
    return connection.connection is None or bool(drop_lost_connections())


# --- claiming, running, failing ------------------------------------------------------------------


class TransientFailure(Exception):
    """Raised by `run` when the row stopped on a transient failure and went back to queued:
    the caller (its task) runs it again later. `cause` is the failure, `error` its reading."""

    def __init__(self, cause: BaseException, error: str):
        super().__init__(error)
        self.cause = cause
        self.error = error


def claim(work: Work, pk):
    """queued -> running, or take over a running row (its runner is gone if the caller holds
    the lock); one more attempt is counted. Returns the row as claimed (one statement: the
    UPDATE returns it, with what `work.claim_returns` adds), or None when there is nothing to
    run, or when it was started `DEBATE_MAX_ATTEMPTS` times already."""
    opts = work.model._meta
    table = connection.ops.quote_name(opts.db_table)
    column = {
        name: connection.ops.quote_name(opts.get_field(name).column)
        for name in ("status", "started_at", "attempts", "updated_at", "heartbeat_at")
    }
    now = timezone.now()
    rows = work.model.objects.raw(
        f"UPDATE {table} SET {column['status']} = %s, "
        f"{column['started_at']} = COALESCE({column['started_at']}, %s), "
        f"{column['attempts']} = {column['attempts']} + 1, {column['updated_at']} = %s, "
        f"{column['heartbeat_at']} = %s "
        f"WHERE {connection.ops.quote_name(opts.pk.column)} = %s "
        f"AND {column['status']} = ANY(%s) AND {column['attempts']} < %s "
        f"RETURNING *{work.claim_returns(table)}",
        [
            RunStatus.RUNNING,
            now,
            now,
            now,
            opts.pk.get_db_prep_value(pk, connection),
            [str(s) for s in UNFINISHED],
            settings.DEBATE_MAX_ATTEMPTS,
        ],
    )
    return next(iter(rows), None)


class Heartbeat:
    """A runner's heartbeat: `beat()` is called as results are stored, inside the transaction
    that stores them; it writes only when `DEBATE_HEARTBEAT_INTERVAL` seconds have passed since
    the last write (claiming wrote the first), so a run of quick calls costs no extra query."""

    def __init__(self, model: type[DurableRun], pk):
        self.model = model
        self.pk = pk
        self.last = time.monotonic()

    def beat(self) -> bool:
        now = time.monotonic()
        if now - self.last < settings.DEBATE_HEARTBEAT_INTERVAL:
            return False
        self.last = now
        self.model.objects.filter(pk=self.pk).update(heartbeat_at=timezone.now())
        return True


def requeue_for_retry(work: Work, pk, *, error: str) -> bool:
    """A running row that stopped on a transient failure goes back to queued, its error noted
    and this start not counted (it ended cleanly; `attempts` counts runners that died)."""
    return bool(
        work.model.objects.filter(pk=pk, status=RunStatus.RUNNING).update(
            status=RunStatus.QUEUED,
            error=f"Will retry: {error}"[:5000],
            attempts=Greatest(F("attempts") - 1, 0),
            updated_at=timezone.now(),
        )
    )


def run(work: Work, pk, *, may_retry: bool = False, read_back: bool = True):
    """Run (or resume) one row to its end; safe to call twice, also at once.

    Returns the row as it ended (read back from the database; with `read_back` off, as the run
    left it, of which only `status` is sure: for a caller that wants no more, as a task), or
    None when another runner holds it or it had already ended. With `may_retry`, a failure its
    `Work` calls transient puts the row back to queued and raises `TransientFailure` (the task
    retries it later) instead of failing it for good.
    """
    with work.lock(pk) as acquired:
        if not acquired:
            logger.info("%s %s is being run by another worker", work.noun, pk)
            return None
        row = claim(work, pk)
        if row is None:
            fail(
                work,
                pk,
                only_after_attempts=settings.DEBATE_MAX_ATTEMPTS,
                error=f"Gave up after {settings.DEBATE_MAX_ATTEMPTS} attempts: the worker "
                f"running this {work.noun} stopped each time (killed, out of memory or past "
                "its hard time limit).",
            )
            return None
        try:
            work.execute(row)
        except Exception as exc:
            error = work.readable_error(exc)
            if may_retry and work.is_transient(exc) and requeue_for_retry(work, pk, error=error):
                logger.warning("%s %s stopped on a transient failure: %s", work.noun, pk, error)
                raise TransientFailure(exc, error) from exc
            logger.exception("%s %s failed", work.noun, pk)
            if fail(work, pk, error=error, cause=exc):
                row.status = RunStatus.FAILED
            else:  # something else ended it meanwhile: what it left is read back
                read_back = True
        if read_back:
            row.refresh_from_db()
        return row


@transaction.atomic
def fail(
    work: Work,
    pk,
    *,
    error: str,
    only_after_attempts: int | None = None,
    cause: BaseException | None = None,
) -> bool:
    """Mark an unfinished row failed for good, with the reason, and tell its `Work` in the same
    transaction. Leaves ended rows alone; with `only_after_attempts`, also those started fewer
    times than that. Returns whether it failed the row."""
    unfinished = work.model.objects.select_for_update().filter(pk=pk, status__in=UNFINISHED)
    if only_after_attempts is not None:
        unfinished = unfinished.filter(attempts__gte=only_after_attempts)
    row = unfinished.only("pk", "status", "error", "attempts", "recoveries").first()
    if row is None:
        return False
    row.status = RunStatus.FAILED
    row.error = error[:5000]
    row.completed_at = timezone.now()
    row.save(update_fields=["status", "error", "completed_at", "updated_at"])
    work.failed(row, cause)
    logger.warning("%s %s failed: %s", work.noun, pk, error)
    return True


@transaction.atomic
def requeue_failed(work: Work, pk, *, user=None, note: str = "", **reset) -> bool:
    """Queue a failed row again, from what is stored: the new run resumes where the failed one
    stopped. Its counters start at 0 (`attempts`, `recoveries`: the sweeper's bounds hold
    anew), its error, start and end are cleared, and so is whatever `reset` names; its `Work`
    is told (e.g. to close its failure's review item as re-run by `user`). False when the row
    is not failed."""
    row = (
        work.model.objects.select_for_update()
        .only("pk", "status", "error", "attempts", "recoveries")
        .filter(pk=pk, status=RunStatus.FAILED)
        .first()
    )
    if row is None:
        return False
    before = {"error": row.error, "attempts": row.attempts, "recoveries": row.recoveries}
    work.model.objects.filter(pk=pk).update(
        status=RunStatus.QUEUED,
        error="",
        started_at=None,
        completed_at=None,
        attempts=0,
        recoveries=0,
        updated_at=timezone.now(),
        **reset,
    )
    work.requeued(pk, user=user, note=note, before=before)
    transaction.on_commit(lambda: work.enqueue(str(pk)))
    logger.info("%s %s queued again (re-run)", work.noun, pk)
    return True


# --- the sweeper -------------------------------------------------------------------------------
