"""Exactly one celery beat per database.

Two beats would send every scheduled firing twice. `SingleBeatScheduler` is django-celery-beat's
`DatabaseScheduler` holding a PostgreSQL advisory lock for as long as it runs, on a connection of
its own (Django's connection is closed and reopened by the scheduler between ticks, which would
drop a session lock). A second beat, on this machine or another, finds the lock taken and exits.
If the lock's connection breaks, beat takes the lock again or stops.
"""

from __future__ import annotations

import logging

import psycopg
from django.db import connection
from django_celery_beat.schedulers import DatabaseScheduler

logger = logging.getLogger(__name__)

LOCK_NAME = "debates: celery beat"


class BeatLock:
    """The lock, held by this process (celery may build a second scheduler in the same process,
    e.g. to save state on a signal; it shares the lock)."""

    def __init__(self):
        self.conn: psycopg.Connection | None = None

    def acquire(self) -> bool:
        if self.conn is not None and not self.conn.closed:
            return True
        params = {**connection.get_connection_params(), "application_name": "celery beat lock"}
        conn = psycopg.connect(**params, autocommit=True)
        row = conn.execute(
            "SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", [LOCK_NAME]
        ).fetchone()
        if not row[0]:
            conn.close()
            return False
        self.conn = conn
        return True

    def held(self) -> bool:
        """True while the lock's connection is alive; reacquires it after a broken connection."""
        if self.conn is not None and not self.conn.closed:
            try:
                self.conn.execute("SELECT 1")
                return True
            except psycopg.Error:
                self.conn.close()
        self.conn = None
        try:
            return self.acquire()
        except psycopg.Error:
            return False

    def release(self) -> None:
        if self.conn is not None:
            self.conn.close()  # a session lock ends with its session
            self.conn = None


_PROCESS_LOCK = BeatLock()


def beat_is_running() -> bool:
    """Whether a beat holds the single-beat lock on this database (read from `pg_locks`, without
    taking the lock: a beat starting at that moment is not turned away)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT EXISTS (
                SELECT 1 FROM pg_locks
                WHERE locktype = 'advisory' AND granted AND objsubid = 1
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                  AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(%s, 0)
            )
            """,
            [LOCK_NAME],
        )
        return cursor.fetchone()[0]


NO_BEAT_WARNING = (
    "No celery beat is running on this database. Beat runs the sweeper that brings back debates "
    "and contradiction runs whose worker died or whose queued message the broker lost (and fires "
    "scheduled debates); without it they stay queued or running. Start exactly one: "
    "`celery -A config beat -l info`."
)


class SingleBeatScheduler(DatabaseScheduler):
    """`DatabaseScheduler` that refuses to run alongside another beat on the same database."""

    beat_lock = _PROCESS_LOCK

    def setup_schedule(self):
        if not self.beat_lock.acquire():
            raise SystemExit(
                "Another celery beat is already running against this database; "
                "exactly one may run. Stop it first, or leave scheduling to it."
            )
        super().setup_schedule()
        logger.info("beat: holding the single-beat lock; schedule loaded")

    def tick(self, *args, **kwargs):
        if not self.beat_lock.held():
            logger.critical("beat: lost the single-beat lock to another beat; stopping")
            raise SystemExit(1)
        return super().tick(*args, **kwargs)

    def close(self):
        try:
            super().close()
        finally:
            self.beat_lock.release()
