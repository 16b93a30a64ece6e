"""The sweeper: every registered kind of durable work, rows whose message or worker was lost are
re-enqueued, and given up after `DEBATE_MAX_RECOVERIES` re-enqueues (see `runs.lifecycle`)."""

from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from runs import counters
from runs.lifecycle import Work, charge_lost_calls, fail, registered
from runs.models import UNFINISHED, RunStatus

logger = logging.getLogger(__name__)


@dataclass
class SweepReport:
    requeued: list[str] = field(default_factory=list)
    gave_up: list[str] = field(default_factory=list)
    running_elsewhere: list[str] = field(default_factory=list)

    def __str__(self):
        return (
            f"{len(self.requeued)} re-enqueued, {len(self.gave_up)} given up, "
            f"{len(self.running_elsewhere)} still held by a live runner"
        )


def _stuck(work: Work, *, now: datetime, limit: int, queued_deadline: int) -> list[tuple]:
    """(id, status, updated_at, recoveries) of unfinished rows past their deadline: queued for
    longer than `queued_deadline`, or running with a heartbeat older than
    `DEBATE_HEARTBEAT_TIMEOUT`."""
    queued_before = now - timedelta(seconds=queued_deadline)
    beat_before = now - timedelta(seconds=settings.DEBATE_HEARTBEAT_TIMEOUT)
    return list(
        work.model.objects.filter(
            Q(status=RunStatus.QUEUED, updated_at__lt=queued_before)
            | Q(status=RunStatus.RUNNING, updated_at__lt=beat_before)
            & (Q(heartbeat_at__isnull=True) | Q(heartbeat_at__lt=beat_before))
        )
        .order_by("updated_at")
        .values_list("pk", "status", "updated_at", "recoveries")[:limit]
    )


def give_up_reason(work: Work, status: str, recoveries: int) -> str:
    if status == RunStatus.QUEUED:
        return (
            f"Gave up after {recoveries} re-enqueues: no worker took the {work.noun} within "
            f"{settings.DEBATE_QUEUED_DEADLINE} s of each one (no worker running, or the "
            "broker kept losing its message)."
        )
    return (
        f"Gave up after {recoveries} restarts: the worker running the {work.noun} was lost "
        f"each time (no heartbeat for {settings.DEBATE_HEARTBEAT_TIMEOUT} s and no live runner)."
    )


def _recover(work: Work, pk, *, status: str, seen_at: datetime, recoveries: int) -> str:
    with work.lock(pk) as free:
        if not free:
            return "running_elsewhere"
        if status == RunStatus.RUNNING:  # its runner is gone: what it had in flight counts
            charge_lost_calls(work, pk)
        if recoveries >= settings.DEBATE_MAX_RECOVERIES:
            fail(work, pk, error=give_up_reason(work, status, recoveries))
            return "gave_up"
        # Only if nothing moved since we looked (a runner may have finished it meanwhile). A
        # row re-enqueued is queued: its message waits for a worker, under the queued deadline.
        bumped = work.model.objects.filter(pk=pk, status__in=UNFINISHED, updated_at=seen_at).update(
            status=RunStatus.QUEUED, recoveries=F("recoveries") + 1, updated_at=timezone.now()
        )
    if not bumped:
        return "moved_on"
    # Enqueued after the lock is released, or the new run could find it taken and skip.
    transaction.on_commit(lambda: work.enqueue(str(pk)))
    return "requeued"


def recover_stuck(
    work: Work,
    *,
    now: datetime | None = None,
    limit: int = 200,
    queued_deadline: int | None = None,
) -> SweepReport:
    """Re-enqueue one kind's stuck rows, or give up on those re-enqueued too often. Safe to run
    twice at once: each row is handled under its advisory lock, and only if it did not change.
    `queued_deadline` defaults to `DEBATE_QUEUED_DEADLINE`."""
    now = now or timezone.now()
    if queued_deadline is None:
        queued_deadline = settings.DEBATE_QUEUED_DEADLINE
    report = SweepReport()
    for pk, status, seen_at, recoveries in _stuck(
        work, now=now, limit=limit, queued_deadline=queued_deadline
    ):
        outcome = _recover(work, pk, status=status, seen_at=seen_at, recoveries=recoveries)
        if outcome != "moved_on":
            getattr(report, outcome).append(str(pk))
    if report.requeued or report.gave_up:
        logger.warning("sweeper, %ss: %s", work.noun, report)
        requeued, gave_up = len(report.requeued), len(report.gave_up)
        transaction.on_commit(
            lambda: counters.count_sweeper(work.plural, requeued=requeued, gave_up=gave_up)
        )
    return report


# Redis keeps a queue's messages in a list per priority (the name, then the name with a
# separator and the priority: kombu's layout) and the ones delivered but not acknowledged yet
# (running, or waiting for their countdown in a worker) in one hash.
_PRIORITY_SEPARATOR = "\x06\x16"
_PRIORITY_STEPS = (3, 6, 9)
_UNACKED = "unacked"


def sent_to(task_name: str) -> str:
    """The queue a task of this name is sent to: its route (`CELERY_TASK_ROUTES`), else the
    default queue."""

    return current_app.amqp.router.route({}, task_name)["queue"].name


def task_queues() -> list[str]:
    """Every queue tasks are sent to: each routed task's, then the default queue."""

    names = [sent_to(name) for name in settings.CELERY_TASK_ROUTES]
    return list(dict.fromkeys([*names, current_app.conf.task_default_queue]))


def work_queues() -> list[str]:
    """The queues the tasks of durable work (debates, contradiction runs) are sent to."""
    return list(dict.fromkeys(sent_to(work.task.name) for work in registered()))


def broker_queues(queues: list[str]) -> dict[str, tuple[int, int]] | None:
    """The task messages the broker holds for each of `queues`: (waiting for a worker,
    delivered and not acknowledged yet). None when the broker is not Redis or cannot be
    asked."""

    url = current_app.conf.broker_url or ""
    if not url.startswith(("redis://", "rediss://")):
        return None
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        try:
            pipe = client.pipeline(transaction=False)
            for queue in queues:
                pipe.llen(queue)
                for step in _PRIORITY_STEPS:
                    pipe.llen(f"{queue}{_PRIORITY_SEPARATOR}{step}")
            pipe.hvals(_UNACKED)
            *lengths, delivered = pipe.execute()
        finally:
            client.close()
    except redis.RedisError:
        logger.warning("could not count the broker's messages", exc_info=True)
        return None
    # Each delivered message is kept as [message, exchange, routing key]; Celery's queues are
    # routed to by their own name.
    unacked = Counter(json.loads(raw)[2] for raw in delivered)
    per_queue = len(_PRIORITY_STEPS) + 1
    return {
        queue: (sum(lengths[i * per_queue : (i + 1) * per_queue]), unacked[queue])
        for i, queue in enumerate(queues)
    }


def broker_messages() -> int | None:
    """How many task messages the broker holds for durable work: waiting, or delivered and not
    acknowledged. None when the broker is not Redis or cannot be asked."""
    held = broker_queues(work_queues())
    return None if held is None else sum(sum(counts) for counts in held.values())


def broker_lost_queue(*, now: datetime) -> bool:
    """Whether the broker lost messages: it holds fewer than there are rows queued for longer
    than `DEBATE_LOST_QUEUE_GRACE` (each queued row has one message, waiting or delivered).
    A backlog the workers have not reached yet keeps its messages, so it never looks lost."""
    before = now - timedelta(seconds=settings.DEBATE_LOST_QUEUE_GRACE)
    queued = sum(
        work.model.objects.filter(status=RunStatus.QUEUED, updated_at__lt=before).count()
        for work in registered()
    )
    if not queued:
        return False
    held = broker_messages()
    return held is not None and held < queued


def sweep(*, now: datetime | None = None, limit: int = 200) -> dict[str, SweepReport]:
    """One sweep of every registered kind of work: what beat runs. When the broker lost its
    queue, rows queued for longer than `DEBATE_LOST_QUEUE_GRACE` are re-enqueued at once
    (a message that was not lost after all makes a second run, which finds the row taken)."""
    now = now or timezone.now()
    queued_deadline = None
    if broker_lost_queue(now=now):
        queued_deadline = settings.DEBATE_LOST_QUEUE_GRACE
        logger.warning("sweeper: the broker holds fewer messages than queued work; re-enqueuing")
    return {
        name: recover_stuck(work, now=now, limit=limit, queued_deadline=queued_deadline)
        for name, work in ((w.plural, w) for w in registered())
    }
