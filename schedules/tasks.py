"""Celery tasks: thin wrappers that take ids and call services."""

from celery import shared_task

from schedules import services
from schedules.models import ScheduleRun


@shared_task(name=services.FIRE_TASK)
def fire_schedule(schedule_id: int) -> str:
    """Sent by beat when a schedule is due."""
    run = services.schedule_fire(schedule_id=schedule_id, trigger=ScheduleRun.Trigger.BEAT)
    return run.outcome if run else "gone"
