"""The sweeper: debates and contradiction runs that a lost worker or a lost broker message left
unfinished, and re-running a failed debate.

PostgreSQL cannot lose a debate, but Redis (which keeps nothing on disk) can lose its message,
and a worker can die mid-debate: its message then waits in Redis's unacknowledged set until the
visibility timeout (an hour). Every `DEBATE_SWEEP_INTERVAL` seconds beat runs `sweep`, which
finds, among debates and contradiction runs alike,

- those *queued* for longer than `DEBATE_QUEUED_DEADLINE` (their message was lost, or is stuck
  behind a long backlog: a second message is then harmless, the first run wins), and
- those *running* with no change for longer than `DEBATE_RUNNING_DEADLINE` (sized from the
  hard time limit, which bounds both kinds of task: no live run lasts longer),

and re-enqueues them. Work is never taken from a live runner: the runner holds a PostgreSQL
advisory lock (the debate's, or the run's) for the whole run, and the lock ends with the
runner's connection, so the sweeper re-enqueues only what it can take the lock of. The new run
resumes from what is stored (stored LLM calls are not made again). After
`DEBATE_MAX_RECOVERIES` re-enqueues the sweeper gives up: the debate (run) is failed with the
reason, and a `debate_failed` (`run_failed`) review item is queued in the same transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models, transaction
from django.db.models import F, Q
from django.utils import timezone

from contradictions import running as contradiction_running
from contradictions.models import ContradictionRun
from debates import services
from debates.models import Debate
from reviews import queueing

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


@dataclass(frozen=True)
class _Kind:
    """What the sweeper needs to know of one kind of work."""

    noun: str
    model: type[models.Model]
    lock: Callable[[object], AbstractContextManager[bool]]
    fail: Callable[..., bool]
    enqueue: Callable[[str], object]


def _enqueue_debate(debate_id: str):
    from debates.tasks import run_debate

    return run_debate.delay(debate_id)


def _enqueue_run(run_id: str):
    from contradictions.tasks import run_contradictions

    return run_contradictions.delay(run_id)


DEBATES = _Kind(
    noun="debate",
    model=Debate,
    lock=services._debate_lock,
    fail=lambda *, pk, error: services.debate_fail(debate_id=pk, error=error),
    enqueue=_enqueue_debate,
)
CONTRADICTION_RUNS = _Kind(
    noun="contradiction run",
    model=ContradictionRun,
    lock=contradiction_running.run_lock,
    fail=lambda *, pk, error: contradiction_running.contradiction_run_fail(run_id=pk,
                                                                           error=error),
    enqueue=_enqueue_run,
)


def _stuck(kind: _Kind, *, now: datetime, limit: int) -> list[tuple]:
    """(id, status, updated_at, recoveries) of unfinished work past its deadline."""
    queued_before = now - timedelta(seconds=settings.DEBATE_QUEUED_DEADLINE)
    running_before = now - timedelta(seconds=settings.DEBATE_RUNNING_DEADLINE)
    return list(
        kind.model.objects.filter(
            Q(status=Debate.Status.QUEUED, updated_at__lt=queued_before)
            | Q(status=Debate.Status.RUNNING, updated_at__lt=running_before)
        )
        .order_by("updated_at")
        .values_list("id", "status", "updated_at", "recoveries")[:limit]
    )


def _give_up_reason(kind: _Kind, status: str, recoveries: int) -> str:
    if status == Debate.Status.QUEUED:
        return (
            f"Gave up after {recoveries} re-enqueues: no worker took the {kind.noun} within "
            f"{settings.DEBATE_QUEUED_DEADLINE} s of each one (no worker running, or the "
            "broker kept losing its message)."
        )
    return (
        f"Gave up after {recoveries} restarts: the worker running the {kind.noun} was lost "
        f"each time (no progress for {settings.DEBATE_RUNNING_DEADLINE} s and no live runner)."
    )


def _recover(kind: _Kind, pk, *, status: str, seen_at: datetime, recoveries: int) -> str:
    with kind.lock(pk) as free:
        if not free:
            return "running_elsewhere"
        if recoveries >= settings.DEBATE_MAX_RECOVERIES:
            kind.fail(pk=pk, error=_give_up_reason(kind, status, recoveries))
            return "gave_up"
        # Only if nothing moved since we looked (a runner may have finished it meanwhile).
        bumped = kind.model.objects.filter(
            id=pk, status__in=UNFINISHED, updated_at=seen_at
        ).update(recoveries=F("recoveries") + 1, updated_at=timezone.now())
    if not bumped:
        return "moved_on"
    # Enqueued after the lock is released, or the new run could find it taken and skip.
    transaction.on_commit(lambda: kind.enqueue(str(pk)))
    return "requeued"


def _recover_stuck(kind: _Kind, *, now: datetime | None, limit: int) -> SweepReport:
    now = now or timezone.now()
    report = SweepReport()
    for pk, status, seen_at, recoveries in _stuck(kind, now=now, limit=limit):
        outcome = _recover(kind, pk, status=status, seen_at=seen_at, recoveries=recoveries)
        if outcome != "moved_on":
            getattr(report, outcome).append(str(pk))
    if report.requeued or report.gave_up:
        logger.warning("sweeper, %ss: %s", kind.noun, report)
    return report


def recover_stuck_debates(*, now: datetime | None = None, limit: int = 200) -> SweepReport:
    """Re-enqueue stuck debates, or give up on those re-enqueued too often. Safe to run twice
    at once: each debate is handled under its advisory lock, and only if it did not change."""
    return _recover_stuck(DEBATES, now=now, limit=limit)


def recover_stuck_contradiction_runs(*, now: datetime | None = None,
                                     limit: int = 200) -> SweepReport:
    """The same for contradiction runs, under each run's own advisory lock."""
    return _recover_stuck(CONTRADICTION_RUNS, now=now, limit=limit)


def sweep(*, now: datetime | None = None, limit: int = 200) -> dict[str, SweepReport]:
    """One sweep of everything: what beat runs."""
    now = now or timezone.now()
    return {
        "debates": recover_stuck_debates(now=now, limit=limit),
        "contradiction_runs": recover_stuck_contradiction_runs(now=now, limit=limit),
    }


# --- re-running a failed debate ----------------------------------------------------------------


@transaction.atomic
def debate_rerun(*, debate_id, user=None, note: str = "") -> bool:
    """Queue a failed debate again, from what is stored: the new run resumes where the failed
    one stopped, and LLM calls already stored are not made (nor paid for) again.

    The debate goes back to queued with its counters at 0 (`attempts`, `recoveries`: the
    sweeper's bounds hold anew), its error, start and end cleared, and any reviewer's decision
    cleared (the re-run asks the machine again). Its open `debate_failed` review item is closed
    as re-run by `user`, in the same transaction (`reviews.records.ReviewConflict` when another
    analyst holds it). False when the debate is not failed.
    """
    debate = (
        Debate.objects.select_for_update()
        .only("id", "status", "error", "attempts", "recoveries")
        .filter(id=debate_id, status=Debate.Status.FAILED)
        .first()
    )
    if debate is None:
        return False
    before = {"error": debate.error, "attempts": debate.attempts,
              "recoveries": debate.recoveries}
    Debate.objects.filter(id=debate_id).update(
        status=Debate.Status.QUEUED, error="", started_at=None, completed_at=None, attempts=0,
        recoveries=0, decision_override="", updated_at=timezone.now(),
    )
    queueing.failure_items_close_for_rerun("debate", debate_id, user=user, note=note,
                                           data=before)
    transaction.on_commit(lambda: _enqueue_debate(str(debate_id)))
    logger.info("debate %s queued again (re-run)", debate_id)
    return True
