"""Celery tasks: thin wrappers that take ids and call services."""

from functools import partial

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from contradictions import running
from runs.retrying import run_retrying


@shared_task(
    name="contradictions.run",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,  # each retry says its own limit; a lost database has none
)
def run_contradictions(self, run_id: str, database_retries: int = 0) -> str:
    """Run a contradiction run, resuming from what is stored; an arbitrator's model that
    stayed unavailable, or a lost database, makes the task retry later, as debates do
    (`debates.tasks.run_retrying`)."""
    try:
        run = run_retrying(
            self,
            database_retries,
            partial(running.contradiction_run_execute, run_id=run_id),
            run_id=run_id,
        )
    except SoftTimeLimitExceeded:
        running.contradiction_run_fail(
            run_id=run_id, error="The run went past its time limit and was stopped."
        )
        return "timed out"
    return run.status if run else "skipped"
