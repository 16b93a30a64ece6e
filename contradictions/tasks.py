"""Celery tasks: thin wrappers that take ids and call services."""

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from contradictions import running


@shared_task(name="contradictions.run", acks_late=True, reject_on_worker_lost=True)
def run_contradictions(run_id: str) -> str:
    try:
        run = running.contradiction_run_execute(run_id=run_id)
    except SoftTimeLimitExceeded:
        running.contradiction_run_fail(
            run_id=run_id, error="The run went past its time limit and was stopped."
        )
        return "timed out"
    return run.status if run else "skipped"
