"""The sweeper: debates that a lost worker or a lost broker message left unfinished.

PostgreSQL cannot lose a debate, but Redis (which keeps nothing on disk) can lose its message,
and a worker can die mid-debate: its message then waits in Redis's unacknowledged set until the
visibility timeout (an hour). Every `DEBATE_SWEEP_INTERVAL` seconds beat runs
`recover_stuck_debates`, which finds

- debates *queued* for longer than `DEBATE_QUEUED_DEADLINE` (their message was lost, or is
  stuck behind a long backlog: a second message is then harmless, the first run wins), and
- debates *running* with no change for longer than `DEBATE_RUNNING_DEADLINE` (sized from the
  hard time limit: no live run lasts longer),

and re-enqueues them. A debate is never taken from a live runner: `debate_run` holds the
debate's PostgreSQL advisory lock for the whole run, and the lock ends with the runner's
connection, so the sweeper re-enqueues only debates whose lock it can take. The new run resumes
from what is stored (stored LLM calls are not made again). After `DEBATE_MAX_RECOVERIES`
re-enqueues the sweeper gives up: the debate is failed with the reason and sent to review.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from debates import services
from debates.models import Debate

logger = logging.getLogger(__name__)

UNFINISHED = [Debate.Status.QUEUED, Debate.Status.RUNNING]


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


def stuck_debates(*, now: datetime, limit: int) -> list[tuple]:
    """(id, status, updated_at, recoveries) of unfinished debates past their deadline."""
    queued_before = now - timedelta(seconds=settings.DEBATE_QUEUED_DEADLINE)
    running_before = now - timedelta(seconds=settings.DEBATE_RUNNING_DEADLINE)
    return list(
        Debate.objects.filter(
            Q(status=Debate.Status.QUEUED, updated_at__lt=queued_before)
            | Q(status=Debate.Status.RUNNING, updated_at__lt=running_before)
        )
        .order_by("updated_at")
        .values_list("id", "status", "updated_at", "recoveries")[:limit]
    )


def _give_up_reason(status: str, recoveries: int) -> str:
    if status == Debate.Status.QUEUED:
        return (
            f"Gave up after {recoveries} re-enqueues: no worker took the debate within "
            f"{settings.DEBATE_QUEUED_DEADLINE} s of each one (no worker running, or the "
            "broker kept losing its message)."
        )
    return (
        f"Gave up after {recoveries} restarts: the worker running the debate was lost each "
        f"time (no progress for {settings.DEBATE_RUNNING_DEADLINE} s and no live runner)."
    )


def _recover(debate_id, *, status: str, seen_at: datetime, recoveries: int) -> str:
    with services._debate_lock(debate_id) as free:
        if not free:
            return "running_elsewhere"
        if recoveries >= settings.DEBATE_MAX_RECOVERIES:
            services.debate_give_up(
                debate_id=debate_id, error=_give_up_reason(status, recoveries)
            )
            return "gave_up"
        # Only if nothing moved since we looked (a runner may have finished it meanwhile).
        bumped = Debate.objects.filter(
            id=debate_id, status__in=UNFINISHED, updated_at=seen_at
        ).update(recoveries=F("recoveries") + 1, updated_at=timezone.now())
    if not bumped:
        return "moved_on"
    # Enqueued after the lock is released, or the new run could find it taken and skip.
    from debates.tasks import run_debate

    transaction.on_commit(lambda: run_debate.delay(str(debate_id)))
    return "requeued"


def recover_stuck_debates(*, now: datetime | None = None, limit: int = 200) -> SweepReport:
    """Re-enqueue stuck debates, or give up on those re-enqueued too often. Safe to run twice
    at once: each debate is handled under its advisory lock, and only if it did not change."""
    now = now or timezone.now()
    report = SweepReport()
    for debate_id, status, seen_at, recoveries in stuck_debates(now=now, limit=limit):
        outcome = _recover(debate_id, status=status, seen_at=seen_at, recoveries=recoveries)
        if outcome != "moved_on":
            getattr(report, outcome).append(str(debate_id))
    if report.requeued or report.gave_up:
        logger.warning("sweeper: %s", report)
    return report
