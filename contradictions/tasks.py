"""Celery tasks: thin wrappers that take ids and call services."""

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError

from contradictions import running
from debates import runs
from debates.tasks import retry_after_lost_database, retry_delay


@shared_task(
    name="contradictions.run",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,  # each retry says its own limit; a lost database has none
)
def run_contradictions(self, run_id: str, database_retries: int = 0) -> str:
    """Run a contradiction run; an arbitrator's model that stayed unavailable makes the task
    retry later from what is stored, as debates do (`debates.tasks.run_debate`); so does a
    database that could not be reached, or a connection lost mid-run, counted apart."""
    retries = self.request.retries - database_retries  # the model's
    try:
        run = running.contradiction_run_execute(
            run_id=run_id, may_retry=retries < settings.DEBATE_TASK_MAX_RETRIES
        )
    except runs.TransientFailure:
        raise self.retry(
            countdown=retry_delay(retries + 1),
            max_retries=settings.DEBATE_TASK_MAX_RETRIES + database_retries,
        ) from None
    except (InterfaceError, OperationalError) as exc:
        raise retry_after_lost_database(self, exc, database_retries, run_id=run_id) from None
    except SoftTimeLimitExceeded:
        running.contradiction_run_fail(
            run_id=run_id, error="The run went past its time limit and was stopped."
        )
        return "timed out"
    return run.status if run else "skipped"
