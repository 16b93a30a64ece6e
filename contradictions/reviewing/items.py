"""Opening a contradiction run's review items: one per contradiction the consensus could not
settle, and one for a run that failed for good; and closing the latter when the run is queued
again. Called inside the transaction that completes (fails, re-queues) the run."""

from __future__ import annotations

import logging

from contradictions.models import ContradictionRun
from reviews import queueing
from reviews.models import ReviewItem
from reviews.triage import BUDGET_EXCEEDED, FLAG_FOR_REVIEW, REASONS, RUN_FAILED, Flag

logger = logging.getLogger(__name__)

SEVERITY_POINTS = {"high": 10, "medium": 5, "low": 0}


def contradiction_flag(*, metric: str, severity: str, reason: str, rules=()) -> Flag:
    """The review item of a contradiction the consensus could not settle: `flag_for_review`,
    priority 60 + 10 for a high-severity contradiction, + 5 for a medium one."""
    return Flag(
        FLAG_FOR_REVIEW,
        REASONS[FLAG_FOR_REVIEW][1] + SEVERITY_POINTS.get(severity, 0),
        f"Contradiction on {metric} ({severity}): {reason}"[:300],
        {"metric": metric, "severity": severity, "rules": list(rules), "why": reason},
    )


def review_items_for_contradictions(*, run_id, flagged: list) -> list[ReviewItem]:
    """Open a `flag_for_review` item for each contradiction of a run the consensus could not
    settle. `flagged`: (contradiction, consensus outcome) pairs. Safe to repeat.

    Called by the contradiction runner inside the transaction that completes the run. A
    contradiction that already has an item of this reason (open or closed) is not raised again.
    """
    if FLAG_FOR_REVIEW not in queueing.enabled_reasons() or not flagged:
        return []
    raised_before = set(
        ReviewItem.objects.filter(contradiction__run_id=run_id, reason=FLAG_FOR_REVIEW).values_list(
            "contradiction_id", flat=True
        )
    )
    flags = [
        (
            row.pk,
            contradiction_flag(
                metric=row.metric,
                severity=row.severity,
                reason=outcome.reason,
                rules=list(row.rules),
            ),
        )
        for row, outcome in flagged
        if row.pk not in raised_before
    ]
    if not flags:
        return []
    created = queueing.items_open("contradiction", flags)
    queueing.review_status_sync("contradiction", run_id)
    logger.info("contradiction run %s: %d review item(s)", run_id, len(created))
    return created


def review_item_for_failure(*, run: ContradictionRun, budget: bool = False) -> ReviewItem | None:
    """Open the `run_failed` item of a run that has just been failed for good (its row locked
    and saved as failed); `budget_exceeded` instead when it stopped at a spending limit."""
    return queueing.failure_item_open(
        "contradiction_run", run, reason=BUDGET_EXCEEDED if budget else RUN_FAILED
    )


def failure_items_close_for_rerun(
    *, run_id, user=None, note: str = "", data: dict | None = None
) -> list[ReviewItem]:
    """Close the open `run_failed` item of a failed run being queued again, as re-run by
    `user` (raises `reviews.events.ReviewConflict` when another analyst holds it)."""
    return queueing.failure_items_close_for_rerun(
        "contradiction_run", run_id, user=user, note=note, data=data
    )
