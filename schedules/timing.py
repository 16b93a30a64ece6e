"""When a schedule fires: pure functions over celery's own schedule classes (no ORM).

Beat decides with the same classes (`celery.schedules.schedule` for intervals, django-celery-beat's
`TzAwareCrontab` for crontabs), so the next run shown to an analyst is the one beat will use.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from celery.schedules import schedule as interval_schedule
from cron_descriptor import get_description
from django_celery_beat.tzcrontab import TzAwareCrontab


@dataclass(frozen=True)
class Timing:
    kind: str  # "interval" or "crontab"
    every: int = 1
    period: str = "days"  # minutes, hours, days
    minute: str = "0"
    hour: str = "9"
    day_of_week: str = "*"
    day_of_month: str = "*"
    month_of_year: str = "*"
    timezone: str = "UTC"

    @property
    def interval(self) -> timedelta:
        return timedelta(**{self.period: self.every})

    @property
    def cron_expression(self) -> str:
        return " ".join(
            [self.minute, self.hour, self.day_of_month, self.month_of_year, self.day_of_week]
        )


def next_run(timing: Timing, *, last_run_at: datetime, now: datetime) -> datetime:
    """The first firing after `last_run_at` (beat's reference point), or `now` when overdue."""
    if timing.kind == "interval":
        remaining = interval_schedule(timing.interval, nowfun=lambda: now).remaining_estimate(
            last_run_at
        )
    else:
        tz = ZoneInfo(timing.timezone)
        cron = TzAwareCrontab(
            minute=timing.minute,
            hour=timing.hour,
            day_of_week=timing.day_of_week,
            day_of_month=timing.day_of_month,
            month_of_year=timing.month_of_year,
            tz=tz,
        )
        start, delta, _ = cron.remaining_delta(last_run_at.astimezone(tz), tz=tz)
        remaining = (start + delta).astimezone(UTC) - now
    return now + max(remaining, timedelta(0))


def describe(timing: Timing) -> str:
    """A sentence for the admin: "every 2 hours", "At 09:00 AM, Monday through Friday (…)"."""
    if timing.kind == "interval":
        if timing.every == 1:
            return f"every {timing.period.removesuffix('s')}"
        return f"every {timing.every} {timing.period}"
    return f"{get_description(timing.cron_expression)} ({timing.timezone})"
