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
- `charge_lost_calls`: when a row is taken up after its runner died (claimed again, or found by
  the sweeper), the spending holds its calls left are counted as spent, at the most each could
  cost: they were in flight, and the provider may have answered and billed them.
- `request_stop` / `stop_point`: a worker that is shutting down (SIGTERM) lets each run it holds
  finish the step it is in (the calls in flight return and are stored), then puts the row back
  to queued and sends its task again (`Interrupted`): another worker, or this one restarted,
  resumes it from what is stored. Nothing is lost and no call is paid for twice.
"""

from __future__ import annotations

import logging
import select
import threading
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

from agents.errors import Lost
from agents.spending import debate_worst_case
from budgets import services as budgets
from budgets.models import Charge
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

    #: The spending subject of a row is this prefix and its id ("debate:"; empty: none), and
    #: its calls are rows of `call_model` whose `call_parent` is the row.
    spending_prefix: ClassVar[str] = ""
    call_model: ClassVar[Any] = None
    call_parent: ClassVar[str] = ""

    def spending_subject(self, pk) -> str:
        return f"{self.spending_prefix}{pk}" if self.spending_prefix else ""


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


def admit(new: list[tuple[Charge, list[str]]], *, user, token) -> None:
    """Admit new rows (`new`: each one's charge and the models its calls may reach) against the
    spending limits of `user`, `token` and the installation, all or none: each one's worst case
    (its own limits at the dearest price, `agents.spending.debate_worst_case`) is held there
    until it ends (`fail`, or its completion closes it), or `BudgetExceeded` and the caller's
    transaction keeps nothing. Ones whose own limits leave tokens unbounded are let in while
    each limit has room for one call (`budgets.start_check`), their calls reserved one by one."""
    if not all(budgets.admits(charge) for charge, _ in new):
        budgets.start_check(user=user, token=token)
        return
    worst = [
        (
            charge.subject,
            *debate_worst_case(models, max_tokens=charge.max_tokens, max_cost=charge.max_cost_usd),
        )
        for charge, models in new
    ]
    budgets.admit(worst=worst, user=user, token=token)


def charge_lost_calls(work: Work, pk, *, again: bool = True) -> list[dict[str, Any]]:
    """The calls a dead runner of the row left in flight, counted as spent at the most each
    could cost (`budgets.charge_lost`), and recorded on the call (`lost_*`, which the row's
    totals add); with `again` (the row goes on), an admitted debate's admission is widened by
    as much where the limits have room, so those calls can be made again. Call only when no
    runner of the row is alive (under its lock, or failing it)."""
    subject = work.spending_subject(pk)
    if not subject:
        return []
    charged = budgets.charge_lost(subject)
    total = Lost()
    for entry in charged:
        lost = Lost(entry["cost"], entry["tokens_in"], entry["tokens_out"])
        total += lost
        if work.call_model is not None and entry["call"]:
            work.call_model.objects.filter(**{work.call_parent: pk, "key": entry["call"]}).update(
                **work.call_model.lost_added(lost)
            )
    if charged:
        logger.warning(
            "%s %s: %d call(s) in flight when its runner died counted as spent ($%s)",
            work.noun,
            pk,
            len(charged),
            total.cost_usd,
        )
        if again:
            budgets.top_up(subject, cost=total.cost_usd, tokens=total.tokens_in + total.tokens_out)
    return charged


# --- stopping for a shutdown ---------------------------------------------------------------------

_stopping = threading.Event()


class Interrupted(Exception):
    """Raised by `stop_point` once the process is shutting down: `run` puts the row back to
    queued and sends its task again."""


def request_stop() -> None:
    """The process is shutting down: every run it holds stops at its next `stop_point`
    (called by the Celery worker on SIGTERM, `config.celery`)."""
    _stopping.set()


def stop_point() -> None:
    """Called by runners between steps, when everything of the step before is stored: raise
    `Interrupted` once the process is shutting down."""
    if _stopping.is_set():
        raise Interrupted("the worker is shutting down")


def requeue_interrupted(work: Work, pk) -> bool:
    """A running row whose worker is shutting down goes back to queued, this start not
    counted (it stopped cleanly), and its task is sent again."""
    requeued = work.model.objects.filter(pk=pk, status=RunStatus.RUNNING).update(
        status=RunStatus.QUEUED,
        attempts=Greatest(F("attempts") - 1, 0),
        updated_at=timezone.now(),
    )
    if requeued:
        work.enqueue(str(pk))
        logger.info("%s %s queued again: its worker is shutting down", work.noun, pk)
    return bool(requeued)


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
        if row.attempts > 1:  # an earlier runner may have died with calls in flight
            charge_lost_calls(work, pk)
        try:
            work.execute(row)
        except Interrupted:
            if requeue_interrupted(work, pk):
                row.status = RunStatus.QUEUED
            else:  # something else ended it meanwhile: what it left is read back
                read_back = True
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
    if subject := work.spending_subject(pk):
        # What it left in flight counts; its admission ends, what it spent counted in its place.
        charge_lost_calls(work, pk, again=False)
        budgets.close(subject)
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
