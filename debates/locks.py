"""PostgreSQL advisory locks: one holder at a time for a piece of work, across every process.

A session-level lock is held by the database connection, so a worker that dies loses it with
its connection and the work can be picked up again; nobody has to clean up after it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection


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
