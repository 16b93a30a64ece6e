"""Celery tasks: thin wrappers that take ids and call `running`, `webhooks` and `recovery`."""

from functools import partial

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from budgets.services import release_stale_holds
from debates import recovery, running, webhooks
from runs.retrying import run_retrying


@shared_task(
    name="debates.run_debate",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,  # each retry says its own limit; a lost database has none
)
def run_debate(self, debate_id: str, database_retries: int = 0) -> str:
    """Run a debate, resuming from what is stored; a model that stayed unavailable, or a lost
    database, makes the task retry later (`run_retrying`). Past the model's retries, or on a
    permanent error, the debate fails into the review queue."""
    try:
        debate = run_retrying(
            self,
            database_retries,
            partial(running.debate_run, debate_id=debate_id, read_back=False),
            debate_id=debate_id,
        )
    except SoftTimeLimitExceeded:
        running.debate_fail(
            debate_id=debate_id, error="The debate ran past its time limit and was stopped."
        )
        return "timed out"
    return debate.status if debate else "skipped"


@shared_task(name="debates.deliver_webhook", bind=True, acks_late=True, max_retries=None)
def deliver_webhook(
    self, *, event_id: str, debate_id: str, event: str, url: str, payload: dict
) -> str:
    """One attempt per run; a failed attempt is retried later, with exponential backoff."""
    attempt = self.request.retries + 1
    result = webhooks.deliver(
        event_id=event_id,
        debate_id=debate_id,
        event=event,
        url=url,
        payload=payload,
        attempt=attempt,
    )
    if result.retry:
        raise self.retry(
            countdown=webhooks.retry_delay(attempt),
            max_retries=settings.WEBHOOK_MAX_ATTEMPTS - 1,
        )
    return result.status


@shared_task(name="debates.recover_stuck_debates")
def recover_stuck_debates() -> str:
    """Run by beat every DEBATE_SWEEP_INTERVAL seconds (settings.CELERY_BEAT_SCHEDULE): sweeps
    stuck debates and contradiction runs, and gives back the budget reservations of calls whose
    worker died (older than BUDGET_HOLD_TIMEOUT)."""
    swept = "; ".join(f"{kind}: {report}" for kind, report in recovery.sweep().items())
    return f"{swept}; budget reservations released: {release_stale_holds()}"
