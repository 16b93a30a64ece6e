"""Schedules, their beat tasks and their firings, against the real PostgreSQL."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django_celery_beat.models import PeriodicTask, PeriodicTasks

from accounts.roles import OPERATOR
from agents.models import Agent
from debates import selectors as debate_selectors
from debates.models import Debate
from schedules import selectors, services
from schedules.models import DebateSchedule, ScheduleRun
from tests.factories import with_roles
from tests.support.threads import at_once

QUESTIONS = ["What is the capital of France?", "Is Bitcoin a good investment?"]
FROZEN = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


@pytest.fixture
def analyst(db):
    return with_roles(get_user_model().objects.create_user("analyst", is_staff=True))


@pytest.fixture
def schedule(default_agents, analyst):
    return services.schedule_create(
        name="Morning checks",
        owner=analyst,
        questions=QUESTIONS,
        kind="interval",
        every=6,
        period="hours",
    )


def _fire(schedule, *, now=FROZEN, trigger=ScheduleRun.Trigger.BEAT) -> ScheduleRun:
    return services.schedule_fire(schedule_id=schedule.pk, trigger=trigger, now=now)


# --- saving: the beat task follows the schedule -----------------------------------------------


def test_a_new_schedule_gets_an_enabled_beat_task_that_fires_it(schedule):
    task = PeriodicTask.objects.select_related("interval").get(debate_schedule=schedule)
    assert task.task == "schedules.fire_schedule"
    assert json.loads(task.kwargs) == {"schedule_id": schedule.pk}
    assert (task.interval.every, task.interval.period, task.crontab) == (6, "hours", None)
    assert task.enabled
    assert task.expire_seconds == 6 * 3600  # a firing nobody ran before the next is dropped


def test_switching_to_a_crontab_in_a_time_zone_updates_the_beat_task_and_tells_beat(schedule):
    before = PeriodicTasks.last_change()
    schedule.kind = DebateSchedule.Kind.CRONTAB
    schedule.minute, schedule.hour, schedule.day_of_week = "30", "8", "mon-fri"
    schedule.timezone = "Europe/Paris"
    services.schedule_save(schedule=schedule)

    task = PeriodicTask.objects.select_related("crontab").get(debate_schedule=schedule)
    assert (task.interval, task.expire_seconds) == (None, None)
    assert (task.crontab.minute, task.crontab.hour, task.crontab.day_of_week) == (
        "30",
        "8",
        "mon-fri",
    )
    assert str(task.crontab.timezone) == "Europe/Paris"
    assert PeriodicTasks.last_change() > before  # how a running beat learns of the change
    assert PeriodicTask.objects.count() == 1


def test_pausing_disables_the_beat_task_and_resuming_enables_it(schedule):
    services.schedule_set_enabled(schedule=schedule, enabled=False)
    assert not PeriodicTask.objects.get(debate_schedule=schedule).enabled
    listed = selectors.schedule_list_queryset().get(pk=schedule.pk)
    assert selectors.schedule_next_run(listed, now=FROZEN) is None
    services.schedule_set_enabled(schedule=schedule, enabled=True)
    assert PeriodicTask.objects.get(debate_schedule=schedule).enabled


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (
            {"questions": "What is the capital of France?\n   \nIgnore\x07 this"},
            "questions",
            "Question 2: ",
        ),
        ({"questions": ""}, "questions", "at least one question"),
        ({"agents": ["utility", "nobody"]}, "agents", "Unknown or inactive agent(s): nobody"),
        ({"protocol": "chess"}, "protocol", "Unknown protocol 'chess'"),
        ({"options": {"rounds": 9}}, "options", "Unknown option(s) for s4: rounds"),
        ({"minute": "75"}, "minute", ""),
        ({"every": 0}, "every", ""),
    ],
    ids=[
        "bad-question",
        "no-question",
        "unknown-agent",
        "unknown-protocol",
        "unknown-option",
        "bad-crontab",
        "zero-interval",
    ],
)
def test_a_schedule_that_could_not_fire_is_rejected_and_nothing_is_stored(
    default_agents, analyst, change, field, message
):
    fields = {"name": "Bad", "owner": analyst, "questions": QUESTIONS, **change}
    with pytest.raises(ValidationError) as info:
        services.schedule_create(**fields)
    assert message in " ".join(info.value.message_dict[field])
    assert not DebateSchedule.objects.exists()
    assert not PeriodicTask.objects.exists()
    assert not Debate.objects.exists()  # the check's trial debates were rolled back


def test_deleting_a_schedule_removes_its_beat_task_and_keeps_its_debates(schedule):
    _fire(schedule)
    services.schedule_delete(schedule=schedule)
    assert not PeriodicTask.objects.exists()
    assert Debate.objects.count() == 2
    assert set(Debate.objects.values_list("schedule", flat=True)) == {None}


# --- firing -----------------------------------------------------------------------------------


def test_a_firing_creates_one_queued_debate_per_question_linked_to_the_schedule(
    schedule, analyst, django_assert_max_num_queries
):
    run = _fire(schedule)
    assert (run.outcome, run.fired_at, run.trigger) == ("created", FROZEN, "beat")
    assert run.reason == "2 debate(s) created."
    debates = list(Debate.objects.filter(schedule=schedule).order_by("created_at"))
    assert [d.query for d in debates] == QUESTIONS
    assert {d.status for d in debates} == {Debate.Status.QUEUED}
    assert {d.created_by for d in debates} == {analyst}
    assert set(run.debates.all()) == set(debates)
    export = debate_selectors.debate_export(debate_selectors.debate_get(debates[0].id))
    assert export["schedule"] == {"id": schedule.pk, "name": "Morning checks"}


def test_a_firing_while_a_debate_from_the_schedule_is_unfinished_is_skipped_and_recorded(
    schedule,
):
    first = _fire(schedule)
    running, queued = first.debates.order_by("created_at")
    Debate.objects.filter(id=running.id).update(status=Debate.Status.RUNNING)

    skipped = _fire(schedule, now=FROZEN + timedelta(hours=6))
    assert skipped.outcome == "skipped"
    assert skipped.reason.startswith("2 debate(s) from an earlier firing still queued or running")
    assert str(running.id) in skipped.reason and str(queued.id) in skipped.reason
    assert Debate.objects.count() == 2

    Debate.objects.filter(id__in=[running.id, queued.id]).update(
        status=Debate.Status.COMPLETED, decision="ACT"
    )
    again = _fire(schedule, now=FROZEN + timedelta(hours=12))
    assert again.outcome == "created"
    assert Debate.objects.filter(schedule=schedule).count() == 4
    listed = selectors.schedule_list_queryset().get(pk=schedule.pk)
    assert (listed.last_fired_at, listed.last_outcome) == (FROZEN + timedelta(hours=12), "created")


def test_a_paused_schedule_skips_beat_firings_but_runs_when_asked(schedule):
    services.schedule_set_enabled(schedule=schedule, enabled=False)
    late = _fire(schedule)  # a message beat sent before the pause
    assert (late.outcome, late.reason) == ("skipped", "The schedule is paused.")
    manual = _fire(schedule, trigger=ScheduleRun.Trigger.MANUAL)
    assert (manual.outcome, manual.trigger) == ("created", "manual")


def test_a_firing_that_cannot_create_its_debates_records_why_and_creates_none(schedule):
    Agent.objects.filter(slug="safety").update(is_active=False)
    DebateSchedule.objects.filter(pk=schedule.pk).update(agents=["utility", "safety"])
    run = _fire(schedule)
    assert run.outcome == "failed"
    assert "Unknown or inactive agent(s): safety" in run.reason
    assert not Debate.objects.exists()


def test_a_firing_of_a_deleted_schedule_does_nothing(schedule):
    schedule_id = schedule.pk
    services.schedule_delete(schedule=schedule)
    assert services.schedule_fire(schedule_id=schedule_id, now=FROZEN) is None
    assert not Debate.objects.exists()


def test_next_run_counts_from_the_latest_firing(schedule):
    PeriodicTask.objects.filter(debate_schedule=schedule).update(last_run_at=FROZEN)
    listed = selectors.schedule_list_queryset().get(pk=schedule.pk)
    assert selectors.schedule_next_run(listed, now=FROZEN) == FROZEN + timedelta(hours=6)
    # Beat writes last_run_at back only every few minutes; the firing log is fresher.
    _fire(schedule, now=FROZEN + timedelta(hours=6, seconds=2))
    listed = selectors.schedule_list_queryset().get(pk=schedule.pk)
    assert selectors.schedule_next_run(listed, now=FROZEN + timedelta(hours=6, seconds=3)) == (
        FROZEN + timedelta(hours=12, seconds=2)
    )


@pytest.mark.django_db(transaction=True)
def test_two_firings_at_once_create_the_debates_once(default_agents, analyst, private_queue):
    schedule = services.schedule_create(
        name="Twice", owner=analyst, questions=QUESTIONS, kind="interval", every=1, period="hours"
    )
    fired = at_once(*[lambda t=t: _fire(schedule, trigger=t) for t in ScheduleRun.Trigger.values])
    outcomes = [f.outcome for f in fired]
    assert sorted(outcomes) == ["created", "skipped"]
    assert Debate.objects.filter(schedule=schedule).count() == 2


# --- whose name a schedule's debates run in ------------------------------------------------


@pytest.mark.parametrize(
    ("setter", "runs_as"),
    [
        ("operator", "operator"),  # may not act for the owner: its own name, its own budget
        ("owner", "owner"),
        ("superuser", "owner"),  # may act for anyone
    ],
)
def test_a_schedule_runs_as_whoever_set_its_owner_unless_they_may_act_for_the_owner(
    default_agents, setter, runs_as
):
    users = get_user_model().objects
    people = {
        "owner": users.create_superuser("root", password="a-long-passphrase"),
        "operator": with_roles(users.create_user("op", is_staff=True), OPERATOR),
        "superuser": users.create_superuser("boss", password="a-long-passphrase"),
    }
    schedule = services.schedule_save(
        schedule=DebateSchedule(
            name="Sneaky", owner=people["owner"], questions=QUESTIONS[0], every=1, period="days"
        ),
        actor=people[setter],
    )
    assert schedule.runs_as == people[runs_as]

    run = _fire(schedule, trigger=ScheduleRun.Trigger.MANUAL)

    assert run.outcome == ScheduleRun.Outcome.CREATED, run.reason
    assert {d.created_by for d in run.debates.all()} == {people[runs_as]}


def test_changing_a_schedules_owner_makes_the_editor_the_one_it_answers_to(
    default_agents, schedule, analyst
):
    users = get_user_model().objects
    root = users.create_superuser("root", password="a-long-passphrase")
    operator = with_roles(users.create_user("op", is_staff=True), OPERATOR)
    schedule.owner = root
    services.schedule_save(schedule=schedule, actor=operator)
    schedule.refresh_from_db()
    assert (schedule.owner, schedule.owner_set_by, schedule.runs_as) == (root, operator, operator)
    # An edit that leaves the owner alone changes nothing of it.
    schedule.name = "Renamed"
    services.schedule_save(schedule=schedule, actor=root)
    schedule.refresh_from_db()
    assert schedule.owner_set_by == operator
