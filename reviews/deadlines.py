"""Review deadlines: finding the items past theirs, and closing those whose reason has a
fallback.

Each item is due its reasons' shortest deadline after it was raised (`REVIEW_DEADLINE_HOURS`,
set when it is opened: `reviews.queueing.due_at`). Beat runs `deadlines_sweep` every
`REVIEW_DEADLINE_SWEEP_INTERVAL` seconds (task `reviews.sweep_deadlines`):

1. Every active item past its deadline and not yet marked is marked overdue (`overdue_at`),
   once: an `overdue` event, its subject told (a debate sends its `review.overdue` webhook),
   its assignee emailed if they asked to be. Overdue items come first in the queue.
2. An active item past its deadline whose first reason has a fallback
   (`REVIEW_DEADLINE_FALLBACKS`: "machine" or "WARN") is closed with it
   (`reviews.services.review_expire`): status `expired`, verdict `fallback`, its subject's
   review status `expired`. That is never a reviewer's verdict: ground truth leaves it out.

Safe to run twice, or in two places at once: rows being marked or closed elsewhere are skipped
(SKIP LOCKED) and found by the next sweep; each step re-checks what it changes.
"""

from __future__ import annotations

import logging
from collections import defaultdict

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from reviews import notifications, subjects
from reviews.models import ReviewEvent, ReviewItem
from reviews.services import review_expire

logger = logging.getLogger(__name__)

#: Items marked or closed per step of one sweep (the next sweep takes the rest).
BATCH = 500


@transaction.atomic
def overdue_mark(now=None) -> list[ReviewItem]:
    """Mark the active items past their deadline that are not marked yet; returns them."""
    now = now or timezone.now()
    items = list(
        ReviewItem.objects.select_for_update(skip_locked=True, of=("self",))
        .filter(status__in=ReviewItem.ACTIVE, due_at__lte=now, overdue_at__isnull=True)
        .select_related("assignee")
        .order_by("due_at", "id")[:BATCH]
    )
    if not items:
        return []
    ReviewItem.objects.filter(pk__in=[i.pk for i in items]).update(overdue_at=now)
    ReviewEvent.objects.bulk_create(
        ReviewEvent(
            item=item,
            action=ReviewEvent.Action.OVERDUE,
            from_status=item.status,
            to_status=item.status,
            data={"due_at": item.due_at.isoformat()},
        )
        for item in items
    )
    groups: dict = defaultdict(list)
    for item in items:
        item.overdue_at = now
        kind = subjects.of(item)
        groups[(kind.name, kind.group_of(item))].append(item)
    for (name, group_id), grouped in groups.items():
        subjects.named(name).overdue(group_id, grouped)
    notifications.overdue(items)
    logger.info("review items past their deadline: %s", [i.pk for i in items])
    return items


def fallbacks_apply(now=None) -> list[ReviewItem]:
    """Close the active items past their deadline whose first reason has a fallback, each in
    its own transaction; returns those closed."""
    now = now or timezone.now()
    fallbacks = settings.REVIEW_DEADLINE_FALLBACKS
    if not fallbacks:
        return []
    due = list(
        ReviewItem.objects.filter(
            Q(status__in=ReviewItem.ACTIVE, due_at__lte=now, reason__in=list(fallbacks))
        )
        .order_by("due_at", "id")
        .values_list("pk", "reason")[:BATCH]
    )
    closed = []
    for item_id, reason in due:
        item = review_expire(item_id=item_id, fallback=fallbacks[reason], now=now)
        if item is not None:
            closed.append(item)
    if closed:
        logger.info("review items closed at their deadline: %s", [i.pk for i in closed])
    return closed


def deadlines_sweep(now=None) -> dict[str, int]:
    """Mark what went overdue, then close what has a fallback. Returns how many of each."""
    now = now or timezone.now()
    marked = overdue_mark(now)
    closed = fallbacks_apply(now)
    return {"overdue": len(marked), "closed": len(closed)}
