"""Celery tasks: thin wrappers that take ids and call services."""

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from debates import recovery, services


@shared_task(name="debates.run_debate", acks_late=True, reject_on_worker_lost=True)
def run_debate(debate_id: str) -> str:
    try:
        debate = services.debate_run(debate_id=debate_id)
    except SoftTimeLimitExceeded:
        services.debate_fail(
            debate_id=debate_id, error="The debate ran past its time limit and was stopped."
        )
        return "timed out"
    return debate.status if debate else "skipped"


@shared_task(name="debates.recover_stuck_debates")
def recover_stuck_debates() -> str:
    """Run by beat every DEBATE_SWEEP_INTERVAL seconds (settings.CELERY_BEAT_SCHEDULE)."""
    return str(recovery.recover_stuck_debates())
