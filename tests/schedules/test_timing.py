"""When schedules fire next: pure functions, with the clock given."""

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from schedules.timing import Timing, describe, next_run

PARIS = ZoneInfo("Europe/Paris")
WEEKDAYS_9AM_PARIS = Timing(
    kind="crontab", minute="0", hour="9", day_of_week="mon-fri", timezone="Europe/Paris"
)


def at(*args, tz=UTC):
    return datetime(*args, tzinfo=tz)


def test_an_interval_fires_one_interval_after_the_last_run():
    every_2h = Timing(kind="interval", every=2, period="hours")
    last = at(2026, 5, 4, 10, 0)
    assert next_run(every_2h, last_run_at=last, now=at(2026, 5, 4, 11, 0)) == at(2026, 5, 4, 12)


def test_an_overdue_schedule_is_due_now():
    every_day = Timing(kind="interval", every=1, period="days")
    now = at(2026, 5, 9, 8, 30)
    assert next_run(every_day, last_run_at=at(2026, 5, 4, 10, 0), now=now) == now


def test_a_crontab_is_read_in_its_time_zone_and_skips_the_weekend():
    friday_9am_paris = at(2026, 5, 8, 9, 0, tz=PARIS)
    upcoming = next_run(WEEKDAYS_9AM_PARIS, last_run_at=friday_9am_paris, now=at(2026, 5, 8, 12, 0))
    assert upcoming == at(2026, 5, 11, 9, 0, tz=PARIS)  # Monday
    assert upcoming == at(2026, 5, 11, 7, 0)  # 07:00 UTC in summer time


@pytest.mark.parametrize(
    ("last_run", "expected"),
    [
        # Summer time starts on Sunday 29 March 2026: 09:30 in Paris moves from 08:30 to 07:30 UTC.
        (at(2026, 3, 28, 8, 30), at(2026, 3, 29, 7, 30)),
        # and ends on Sunday 25 October: back to 08:30 UTC.
        (at(2026, 10, 24, 7, 30), at(2026, 10, 25, 8, 30)),
    ],
    ids=["spring-forward", "fall-back"],
)
def test_a_daily_crontab_keeps_its_local_time_across_daylight_saving_changes(last_run, expected):
    daily_930 = Timing(kind="crontab", minute="30", hour="9", timezone="Europe/Paris")
    assert next_run(daily_930, last_run_at=last_run, now=last_run) == expected
    assert expected.astimezone(PARIS).strftime("%H:%M") == "09:30"


def test_schedules_are_described_in_words():
    assert describe(Timing(kind="interval", every=1, period="days")) == "every day"
    assert describe(Timing(kind="interval", every=15, period="minutes")) == "every 15 minutes"
    assert describe(WEEKDAYS_9AM_PARIS) == "At 09:00 AM, Monday through Friday (Europe/Paris)"
