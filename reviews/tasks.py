"""Celery tasks of the review queue: thin wrappers."""

from celery import shared_task

from reviews import deadlines


@shared_task(name="reviews.sweep_deadlines")
def sweep_deadlines() -> str:
    """Run by beat every REVIEW_DEADLINE_SWEEP_INTERVAL seconds (settings.CELERY_BEAT_SCHEDULE):
    marks the items past their deadline and closes those whose reason has a fallback."""
    done = deadlines.deadlines_sweep()
    return f"overdue: {done['overdue']}; closed at their deadline: {done['closed']}"
