"""Counters of events that leave no row behind, kept in Redis so every process adds to the same
figure: the sweeper's re-enqueues and give-ups (a row's own `recoveries` is reset when an
analyst re-runs it, so it cannot serve as a counter).

Redis may lose them (a flush, a restart without persistence): Prometheus reads a counter that
went back to 0 as a reset, which is what it is."""

from __future__ import annotations

import logging

import redis
from django.conf import settings

logger = logging.getLogger(__name__)

SWEEPER_KEY = "debates:metrics:sweeper"
#: What the sweeper did with a stuck row (`runs.lifecycle.SweepReport`'s lists).
SWEEPER_OUTCOMES = ("requeued", "gave_up")


def _client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)


def count_sweeper(kind: str, **outcomes: int) -> None:
    """Add the sweeper's `outcomes` (requeued=, gave_up=) for one `kind` of work ("debates",
    "contradiction_runs"). Never raises: a metric must not stop the sweeper."""
    wanted = {o: n for o, n in outcomes.items() if n}
    if not wanted:
        return
    try:
        client = _client()
        try:
            pipe = client.pipeline(transaction=False)
            for outcome, n in wanted.items():
                pipe.hincrby(SWEEPER_KEY, f"{kind}:{outcome}", n)
            pipe.execute()
        finally:
            client.close()
    except redis.RedisError:
        logger.warning("metrics: could not count the sweeper's work", exc_info=True)


def sweeper_counts() -> dict[tuple[str, str], int]:
    """{(kind, outcome): count} of everything counted so far."""
    client = _client()
    try:
        raw = client.hgetall(SWEEPER_KEY)
    finally:
        client.close()
    counts = {}
    for field, value in raw.items():
        kind, _, outcome = field.decode().rpartition(":")
        counts[(kind, outcome)] = int(value)
    return counts
