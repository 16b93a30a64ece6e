"""PostgreSQL advisory locks: one holder at a time for a piece of work, across every process.

A session-level lock is held by the database connection, so a worker that dies loses it with
its connection and the work can be picked up again; nobody has to clean up after it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import F
from django.db.models.functions import Coalesce
from django.utils import timezone

logger = logging.getLogger(__name__)


@contextmanager
def advisory_lock(key: str) -> Iterator[bool]:
    """Try to take the session lock named `key`; yields whether it was taken (never waits).

    The lock is released on leaving the block. Callers namespace their keys
    (e.g. ``"contradiction-run:<id>"``) so different kinds of work never share a lock.
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", [key])
        acquired = cursor.fetchone()[0]
    try:
        yield acquired
    finally:
        if acquired:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", [key])


def claim_to_run(model, pk) -> bool:
    """queued -> running, or take over a running one (its runner is gone if the caller holds
    the lock); one more attempt is counted. False when there is nothing to run, or when it was
    started `DEBATE_MAX_ATTEMPTS` times already. `model` is a Debate or a ContradictionRun:
    anything with `status`, `started_at`, `attempts` and `updated_at`."""
    now = timezone.now()
    return bool(
        model.objects.filter(
            pk=pk,
            status__in=[model.Status.QUEUED, model.Status.RUNNING],
            attempts__lt=settings.DEBATE_MAX_ATTEMPTS,
        ).update(
            status=model.Status.RUNNING,
            started_at=Coalesce(F("started_at"), now),
            attempts=F("attempts") + 1,
            updated_at=now,
        )
    )


def run_exclusively(
    model,
    pk,
    *,
    lock: Callable[[Any], AbstractContextManager[bool]],
    what: str,
    execute: Callable[[Any], None],
    fail: Callable[..., bool],
    readable_error: Callable[[BaseException], str],
):
    """Run (or resume) one piece of durable work to its end; safe to call twice, also at once.

    Takes the work's lock (`lock(pk)`, e.g. an `advisory_lock`), claims it, and hands the row to
    `execute`. Work whose workers kept dying is failed once it has had `DEBATE_MAX_ATTEMPTS`; an
    exception from `execute` fails it with `readable_error(exc)`;
    `fail(pk, error=..., only_after_attempts=...)` does the failing.
    Returns the row as it ended, or None when another runner holds it or it had already ended.
    """
    with lock(pk) as acquired:
        if not acquired:
            logger.info("%s %s is being run by another worker", what, pk)
            return None
        if not claim_to_run(model, pk):
            fail(
                pk,
                only_after_attempts=settings.DEBATE_MAX_ATTEMPTS,
                error=f"Gave up after {settings.DEBATE_MAX_ATTEMPTS} attempts: the worker "
                f"running this {what} stopped each time (killed, out of memory or past its "
                "hard time limit).",
            )
            return None
        row = model.objects.get(pk=pk)
        try:
            execute(row)
        except Exception as exc:
            logger.exception("%s %s failed", what, pk)
            fail(pk, error=readable_error(exc))
        row.refresh_from_db()
        return row
