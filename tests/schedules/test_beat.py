"""Beat and schedules end to end: the project's database scheduler sends a firing when (and only
when) a schedule is due, a real worker turns it into debates, and only one beat can run."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
from datetime import timedelta

import psycopg
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from config.celery import app as celery_app
from debates.models import Debate
from schedules import services
from schedules.beat import SingleBeatScheduler
from schedules.models import ScheduleRun
from tests.conftest import ROOT, private_queue_env, wait_for
from tests.factories import with_roles

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

QUESTIONS = ["What is the capital of France?", "How do I hack into my ex's email?"]


def _sent_firings(redis_client, queue) -> list[dict]:
    firings = []
    for raw in redis_client.lrange(queue, 0, -1):
        message = json.loads(raw)
        if message["headers"]["task"] == services.FIRE_TASK:
            _, kwargs, _ = json.loads(base64.b64decode(message["body"]))
            firings.append(kwargs)
    return firings


def _tick(scheduler, times=5):
    for _ in range(times):
        scheduler.tick()


def test_beat_fires_a_due_schedule_and_a_worker_runs_its_debates(
    default_agents, private_queue, redis_client, worker_factory
):
    owner = with_roles(get_user_model().objects.create_user("analyst", is_staff=True))
    schedule = services.schedule_create(
        name="Hourly", owner=owner, questions=QUESTIONS, kind="interval", every=1, period="hours"
    )
    task = PeriodicTask.objects.get(debate_schedule=schedule)
    task.last_run_at = timezone.now() - timedelta(minutes=59)  # the clock, as beat sees it
    task.save()

    scheduler = SingleBeatScheduler(app=celery_app)
    try:
        _tick(scheduler)
        assert _sent_firings(redis_client, private_queue) == []  # due in a minute, not yet

        task.refresh_from_db()
        task.last_run_at = timezone.now() - timedelta(minutes=61)
        task.save()  # an edit, as the admin makes it: beat rereads without a restart
        _tick(scheduler)
        assert _sent_firings(redis_client, private_queue) == [{"schedule_id": schedule.pk}]
    finally:
        scheduler.close()

    worker_factory("beat-worker")
    run = wait_for(lambda: ScheduleRun.objects.filter(schedule=schedule).first(), timeout=60)
    assert (run.trigger, run.outcome) == ("beat", "created")
    debates = [
        wait_for(lambda d=d: Debate.objects.filter(id=d.id, status="completed").first(), timeout=60)
        for d in run.debates.order_by("created_at")
    ]
    assert [(d.query, d.decision) for d in debates] == [
        ("What is the capital of France?", "ACT"),
        ("How do I hack into my ex's email?", "REFUSE"),
    ]
    assert {d.schedule_id for d in debates} == {schedule.pk}


class Beat:
    def __init__(self, log, queue):
        db = settings.DATABASES["default"]
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "REDIS_URL": settings.REDIS_URL,
            **private_queue_env(queue),
        }
        self.log = log
        self.handle = open(log, "w")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "beat",
                "-l",
                "info",
                "-s",
                str(log.with_suffix(".schedule")),
            ],
            cwd=ROOT,
            env=env,
            stdout=self.handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def text(self):
        return self.log.read_text()

    def wait_holding_lock(self):
        wait_for(lambda: "schedule loaded" in self.text() or self.proc.poll(), timeout=60)
        assert self.proc.poll() is None, self.text()

    def end(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
        self.proc.wait(timeout=20)
        self.handle.close()


@pytest.mark.recovery
def test_only_one_beat_runs_and_a_dead_beat_does_not_block_the_next(private_queue, tmp_path):
    first = Beat(tmp_path / "first.log", private_queue)
    beats = [first]
    try:
        first.wait_holding_lock()
        sweeper = PeriodicTask.objects.select_related("interval").get(name="recover-stuck-debates")
        assert (sweeper.task, sweeper.enabled) == ("debates.recover_stuck_debates", True)
        assert (sweeper.interval.every, sweeper.interval.period) == (
            settings.DEBATE_SWEEP_INTERVAL,
            "seconds",
        )

        second = Beat(tmp_path / "second.log", private_queue)
        beats.append(second)
        assert second.proc.wait(timeout=60) != 0
        assert "Another celery beat is already running" in second.text()
        assert first.proc.poll() is None

        first.end(signal.SIGKILL)  # its machine died: the lock goes with its connection
        third = Beat(tmp_path / "third.log", private_queue)
        beats.append(third)
        third.wait_holding_lock()
    finally:
        for beat in beats:
            beat.end()


@pytest.mark.django_db
def test_the_worker_can_tell_whether_a_beat_holds_the_lock():
    from django.db import connection

    from schedules.beat import LOCK_NAME, beat_is_running

    assert beat_is_running() is False
    params = {**connection.get_connection_params(), "autocommit": True}
    with psycopg.connect(**params) as beat:
        beat.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", [LOCK_NAME])
        assert beat_is_running() is True
    wait_for(lambda: not beat_is_running(), timeout=10)  # the session ends a moment later
