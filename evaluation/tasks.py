"""Celery tasks: thin wrappers that take ids and call `driving`."""

from __future__ import annotations

import time

from celery import shared_task

from evaluation import driving
from evaluation.models import EvaluationRun


@shared_task(name="evaluation.advance_run", acks_late=True)
def advance_run(run_id: str, last_finished: int = -1, last_change: float | None = None) -> str:
    """One step of an evaluation run started from the pages (`driving.run_advance`), then the
    next one `ADVANCE_SECONDS` later while it runs. The step's arguments carry when a debate of
    the run last finished: after `STALL_SECONDS` without one the run is marked interrupted.
    A second chain of steps for the same run (a message delivered twice) asks nothing twice."""
    now = time.time()
    driving.chain_alive(run_id)
    step = driving.run_advance(run_id=run_id)
    if step.status != EvaluationRun.Status.RUNNING:
        return step.status
    if step.finished != last_finished or last_change is None:
        last_finished, last_change = step.finished, now
    elif now - last_change > driving.STALL_SECONDS:
        return driving.run_stop(run_id=run_id)
    advance_run.apply_async((run_id, last_finished, last_change), countdown=driving.ADVANCE_SECONDS)
    return step.status


@shared_task(name="evaluation.sweep_runs", ignore_result=True)
def sweep_runs() -> list[str]:
    """Beat's: start the steps again of running runs whose chain stopped (`driving.runs_sweep`)."""
    return driving.runs_sweep()
