"""Reads: schedules with their last firing, and when they fire next."""

from __future__ import annotations

from datetime import datetime

from django.db.models import OuterRef, Prefetch, QuerySet, Subquery

from debates.models import Debate
from schedules.models import DebateSchedule, ScheduleRun
from schedules.services import timing_of
from schedules.timing import next_run


def schedule_list_queryset() -> QuerySet[DebateSchedule]:
    """Schedules annotated with their latest firing: `last_fired_at`, `last_outcome`,
    `last_reason`, and `last_beat_at` (the latest firing beat made, for `schedule_next_run`)."""
    runs = ScheduleRun.objects.filter(schedule=OuterRef("pk")).order_by("-fired_at", "-id")
    beat_runs = runs.filter(trigger=ScheduleRun.Trigger.BEAT)
    return DebateSchedule.objects.select_related("owner", "periodic_task").annotate(
        last_fired_at=Subquery(runs.values("fired_at")[:1]),
        last_outcome=Subquery(runs.values("outcome")[:1]),
        last_reason=Subquery(runs.values("reason")[:1]),
        last_beat_at=Subquery(beat_runs.values("fired_at")[:1]),
    )


def schedule_next_run(schedule: DebateSchedule, *, now: datetime) -> datetime | None:
    """When beat fires the schedule next; None when paused or not known to beat.

    Beat counts from its task's `last_run_at` (or, before the first run, from when the task
    last changed). Beat writes `last_run_at` back only every few minutes, so the latest firing
    recorded here is taken when it is more recent. Overdue (beat not running): `now`.
    `schedule` should come from `schedule_list_queryset()`.
    """
    task = schedule.periodic_task
    if not schedule.enabled or task is None or not task.enabled:
        return None
    reference = task.last_run_at or task.date_changed
    last_beat_at = getattr(schedule, "last_beat_at", None)
    if last_beat_at and last_beat_at > reference:
        reference = last_beat_at
    return next_run(timing_of(schedule), last_run_at=reference, now=now)


def schedule_recent_runs(schedule: DebateSchedule, *, limit: int = 10) -> list[ScheduleRun]:
    return list(
        ScheduleRun.objects.filter(schedule=schedule)
        .prefetch_related(
            Prefetch("debates", queryset=Debate.objects.only("id", "query", "status", "decision"))
        )
        .order_by("-fired_at", "-id")[:limit]
    )
