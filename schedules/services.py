"""Writes: saving a schedule together with the beat task that fires it, and firing it."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django_celery_beat.models import CrontabSchedule, IntervalSchedule, PeriodicTask

import audit
from debates.models import Debate
from debates.services import debate_create
from protocols import defense
from schedules.models import MAX_QUESTIONS, DebateSchedule, ScheduleRun
from schedules.timing import Timing

logger = logging.getLogger(__name__)

FIRE_TASK = "schedules.fire_schedule"
# debate_create's error keys, as the schedule's fields.
_FIELD_OF = {"query": "questions", "protocol": "protocol", "agents": "agents", "options": "options"}


def timing_of(schedule: DebateSchedule) -> Timing:
    return Timing(
        kind=schedule.kind,
        every=schedule.every,
        period=schedule.period,
        minute=schedule.minute,
        hour=schedule.hour,
        day_of_week=schedule.day_of_week,
        day_of_month=schedule.day_of_month,
        month_of_year=schedule.month_of_year,
        timezone=str(schedule.timezone),
    )


class _DryRun(Exception):
    pass


def schedule_check_debates(
    *, questions: list[str], protocol: str, agents: list[str], options: dict[str, Any]
) -> None:
    """Raise `ValidationError` (keyed by the schedule's fields, every problem at once) unless
    a firing could create these debates. The valid questions are created exactly as a firing
    would create them, then rolled back, so the rules stay those of `debate_create`."""
    errors: dict[str, list[str]] = {}
    if not questions:
        errors["questions"] = ["Enter at least one question, one per line."]
    elif len(questions) > MAX_QUESTIONS:
        errors["questions"] = [
            f"At most {MAX_QUESTIONS} questions per schedule; this has {len(questions)}."
        ]
    if not isinstance(options, dict):
        errors["options"] = ["Options must be a JSON object, e.g. {}."]
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        errors["agents"] = ["Agents must be a list of agent slugs."]
    if errors:
        raise ValidationError(errors)
    valid = []
    for number, question in enumerate(questions, start=1):
        try:
            valid.append(defense.validate_query(question))
        except defense.QueryRejected as exc:
            errors.setdefault("questions", []).append(f"Question {number}: {exc.message}")
    try:
        with transaction.atomic():
            for question in valid:
                debate_create(
                    query=question,
                    protocol=protocol,
                    agents=agents or None,
                    options=options,
                    enqueue=False,
                    budget_check=False,  # a schedule is checked against budgets as it fires
                )
            raise _DryRun
    except _DryRun:
        pass
    except ValidationError as exc:
        for key, messages in exc.message_dict.items():
            errors.setdefault(_FIELD_OF.get(key, "questions"), []).extend(messages)
    if errors:
        raise ValidationError(errors)


def schedule_validate(schedule: DebateSchedule) -> None:
    """The model's own checks (timing fields) and `schedule_check_debates`, all reported."""
    errors: dict[str, list[str]] = {}
    try:
        schedule.full_clean(exclude=["periodic_task", "questions"])
    except ValidationError as exc:
        errors.update(exc.message_dict)
    try:
        schedule_check_debates(
            questions=schedule.question_list,
            protocol=schedule.protocol,
            agents=schedule.agents,
            options=schedule.options,
        )
    except ValidationError as exc:
        for field, messages in exc.message_dict.items():
            errors.setdefault(field, []).extend(messages)
    if errors:
        raise ValidationError(errors)


def _beat_schedule_for(schedule: DebateSchedule) -> dict[str, Any]:
    if schedule.kind == DebateSchedule.Kind.INTERVAL:
        interval = IntervalSchedule.objects.filter(
            every=schedule.every, period=schedule.period
        ).first() or IntervalSchedule.objects.create(every=schedule.every, period=schedule.period)
        return {"interval": interval, "crontab": None}
    fields = {
        "minute": schedule.minute,
        "hour": schedule.hour,
        "day_of_week": schedule.day_of_week,
        "day_of_month": schedule.day_of_month,
        "month_of_year": schedule.month_of_year,
        "timezone": schedule.timezone,
    }
    crontab = CrontabSchedule.objects.filter(**fields).first() or CrontabSchedule.objects.create(
        **fields
    )
    return {"interval": None, "crontab": crontab}


def _sync_periodic_task(schedule: DebateSchedule) -> None:
    """Mirror the schedule into its beat task. Saving a PeriodicTask marks beat's schedule as
    changed, so a running beat picks the change up within seconds, without a restart."""
    task = schedule.periodic_task or PeriodicTask(name=f"debate schedule #{schedule.pk}")
    for field, value in _beat_schedule_for(schedule).items():
        setattr(task, field, value)
    task.task = FIRE_TASK
    task.kwargs = json.dumps({"schedule_id": schedule.pk})
    task.enabled = schedule.enabled
    # An interval firing no worker took before the next one is due is dropped, not run late:
    # workers back after an outage start one round of debates, not a backlog of firings.
    task.expire_seconds = (
        int(timing_of(schedule).interval.total_seconds())
        if schedule.kind == DebateSchedule.Kind.INTERVAL
        else None
    )
    task.description = f"Fires the scheduled debate '{schedule.name}'. Edit the schedule, not this."
    task.save()
    if schedule.periodic_task_id != task.pk:
        schedule.periodic_task = task
        schedule.save(update_fields=["periodic_task"])


# What the audit trail compares when a schedule is edited.
AUDITED_FIELDS = (
    "name",
    "owner",
    "enabled",
    "questions",
    "protocol",
    "agents",
    "options",
    "kind",
    "every",
    "period",
    "minute",
    "hour",
    "day_of_week",
    "day_of_month",
    "month_of_year",
    "timezone",
)


def _audited(schedule: DebateSchedule) -> dict[str, Any]:
    return audit.snapshot(schedule, AUDITED_FIELDS)


@transaction.atomic
def schedule_save(*, schedule: DebateSchedule, actor=None) -> DebateSchedule:
    """Validate and store a new or edited schedule, and put beat in step with it. An edit by a
    user (`actor`) is recorded in the audit trail, from what to what."""
    schedule_validate(schedule)
    before = None
    current = None
    if schedule.pk is not None:
        current = DebateSchedule.objects.select_for_update().filter(pk=schedule.pk).first()
        before = _audited(current) if current is not None else None
    if actor is not None and (current is None or current.owner_id != schedule.owner_id):
        schedule.owner_set_by = actor  # whose say-so it runs in the owner's name (`runs_as`)
    schedule.save()
    _sync_periodic_task(schedule)
    if actor is not None:
        after = _audited(schedule)
        if before is None:
            audit.record(
                actor=actor,
                action="schedule.create",
                subject=schedule,
                changes={k: {"from": None, "to": v} for k, v in after.items()},
            )
        elif changes := audit.diff(before, after):
            audit.record(actor=actor, action="schedule.change", subject=schedule, changes=changes)
    return schedule


def schedule_create(*, name: str, owner, questions: list[str] | str, **fields) -> DebateSchedule:
    if isinstance(questions, list):
        questions = "\n".join(questions)
    return schedule_save(
        schedule=DebateSchedule(name=name, owner=owner, questions=questions, **fields)
    )


@transaction.atomic
def schedule_set_enabled(*, schedule: DebateSchedule, enabled: bool, actor=None) -> DebateSchedule:
    """Pause or resume. A paused schedule's beat task is disabled; its history is kept."""
    schedule = DebateSchedule.objects.select_for_update().get(pk=schedule.pk)
    if schedule.enabled != enabled:
        schedule.enabled = enabled
        schedule.save(update_fields=["enabled", "updated_at"])
        if actor is not None:
            audit.record(
                actor=actor,
                action="schedule.resume" if enabled else "schedule.pause",
                subject=schedule,
                changes={"enabled": {"from": not enabled, "to": enabled}},
            )
    _sync_periodic_task(schedule)
    return schedule


@transaction.atomic
def schedule_delete(*, schedule: DebateSchedule, actor=None) -> None:
    """Delete the schedule and its beat task. Its debates stay, unlinked."""
    if actor is not None:
        audit.record(
            actor=actor,
            action="schedule.delete",
            subject=schedule,
            changes={k: {"from": v, "to": None} for k, v in _audited(schedule).items()},
        )
    task_id = schedule.periodic_task_id
    schedule.delete()
    if task_id:
        for task in PeriodicTask.objects.filter(pk=task_id):
            task.delete()  # through the model, so beat hears of it


def _record(schedule, *, now, trigger, outcome, reason, debates=()) -> ScheduleRun:
    run = ScheduleRun.objects.create(
        schedule=schedule, fired_at=now, trigger=trigger, outcome=outcome, reason=reason
    )
    if debates:
        run.debates.set(debates)
    logger.info("schedule %s fired (%s): %s. %s", schedule.pk, trigger, outcome, reason)
    return run


@transaction.atomic
def schedule_fire(
    *, schedule_id: int, trigger: str = ScheduleRun.Trigger.BEAT, now: datetime | None = None
) -> ScheduleRun | None:
    """Create one debate per question of the schedule, linked to it, and record the firing.

    The debates are created in the name of `schedule.runs_as` (the owner, unless whoever set
    the owner may not act for them). A firing while a debate from an earlier one is still
    queued or running is skipped (and recorded): slow debates do not pile up. Firings of one
    schedule are serialised by a row lock, so beat and "Run now" at the same moment cannot both
    create debates. Returns None when the schedule no longer exists.
    """
    now = now or timezone.now()
    schedule = (
        DebateSchedule.objects.select_for_update(of=("self",))
        .select_related("owner", "owner_set_by")
        .filter(pk=schedule_id)
        .first()
    )
    if schedule is None:
        logger.info("schedule %s no longer exists; firing ignored", schedule_id)
        return None
    record = {"schedule": schedule, "now": now, "trigger": trigger}
    if trigger == ScheduleRun.Trigger.BEAT and not schedule.enabled:
        return _record(
            **record, outcome=ScheduleRun.Outcome.SKIPPED, reason="The schedule is paused."
        )
    unfinished = list(
        Debate.objects.filter(
            schedule=schedule, status__in=[Debate.Status.QUEUED, Debate.Status.RUNNING]
        )
        .order_by("created_at")
        .values_list("id", flat=True)
    )
    if unfinished:
        ids = ", ".join(str(i) for i in unfinished)
        return _record(
            **record,
            outcome=ScheduleRun.Outcome.SKIPPED,
            reason=f"{len(unfinished)} debate(s) from an earlier firing still queued or "
            f"running: {ids}.",
        )
    try:
        with transaction.atomic():
            debates = [
                debate_create(
                    query=question,
                    protocol=schedule.protocol,
                    agents=schedule.agents or None,
                    options=schedule.options,
                    created_by=schedule.runs_as,
                )
                for question in schedule.question_list
            ]
            Debate.objects.filter(id__in=[d.id for d in debates]).update(schedule=schedule)
    except ValidationError as exc:
        problems = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
        return _record(
            **record,
            outcome=ScheduleRun.Outcome.FAILED,
            reason=f"The debates could not be created ({problems}). Edit the schedule.",
        )
    if not debates:
        return _record(
            **record,
            outcome=ScheduleRun.Outcome.FAILED,
            reason="The schedule has no questions. Edit the schedule.",
        )
    return _record(
        **record,
        outcome=ScheduleRun.Outcome.CREATED,
        reason=f"{len(debates)} debate(s) created.",
        debates=debates,
    )
