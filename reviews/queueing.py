"""Putting outcomes in front of analysts: opening review items, and closing a failed subject's
items when it is queued again. Called by the subject apps, naming their subject (a
`reviews.subjects` name such as "debate"), inside the transaction that completes or fails it,
with its row locked.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from reviews import assignment, subjects, triage
from reviews.events import conflict_if_taken, record
from reviews.models import ReviewEvent, ReviewItem, ReviewStatus

logger = logging.getLogger(__name__)


def enabled_reasons() -> set[str]:
    return set(settings.REVIEW_ENQUEUE_REASONS) & set(triage.REASONS)


def review_status_sync(
    subject: str | subjects.ReviewSubject, group_id, *, active: bool = False, **changes
) -> None:
    """Keep the group's review status in step with its items: pending while any is active,
    else expired if any was closed at its deadline, else resolved if any was, else dismissed if
    it had any, else none. `changes` are stored
    on the group's row in the same update. `subject`: a registered subject, or its name.
    `active`: the caller has just opened an item, so the status is pending without counting."""
    if isinstance(subject, str):
        subject = subjects.named(subject)
    if active:
        subject.set_review_status(group_id, ReviewStatus.PENDING, **changes)
        return
    counts = ReviewItem.objects.filter(subject.group_items(group_id)).aggregate(
        total=Count("id"),
        active=Count("id", filter=Q(status__in=ReviewItem.ACTIVE)),
        resolved=Count("id", filter=Q(status=ReviewItem.Status.RESOLVED)),
        expired=Count("id", filter=Q(status=ReviewItem.Status.EXPIRED)),
    )
    if counts["active"]:
        status = ReviewStatus.PENDING
    elif counts["expired"]:  # a deadline's fallback: no human verdict to count on
        status = ReviewStatus.EXPIRED
    elif counts["resolved"]:
        status = ReviewStatus.RESOLVED
    elif counts["total"]:
        status = ReviewStatus.DISMISSED
    else:
        status = ReviewStatus.NONE
    subject.set_review_status(group_id, status, **changes)


def _flag_of(item: ReviewItem) -> triage.Flag:
    return triage.Flag(
        item.reason, item.priority, item.summary, item.details or {}, tuple(item.reasons or ())
    )


def _reasons_join(key: str, grouped: dict[Any, list[triage.Flag]]) -> None:
    """Add new reasons to the subjects' active outcome items (priority: the highest)."""
    for item in (
        ReviewItem.objects.select_for_update()
        .filter(**{f"{key}__in": list(grouped)}, status__in=ReviewItem.ACTIVE)
        .exclude(reason__in=triage.FAILURE_REASONS)
    ):
        flag = triage.joined([_flag_of(item), *grouped[getattr(item, key)]])
        if list(flag.all_reasons) != list(item.reasons or [item.reason]):
            item.reason, item.reasons = flag.reason, list(flag.all_reasons)
            item.priority, item.summary, item.details = flag.priority, flag.summary, flag.details
            due = due_at(item.reasons, item.created_at)
            item.due_at = min(d for d in (item.due_at, due) if d) if due or item.due_at else None
            item.save(
                update_fields=["reason", "reasons", "priority", "summary", "details", "due_at"]
            )
            logger.info("review item #%s now also covers %s", item.pk, ", ".join(item.reasons))


def items_open(subject: str, flags: list[tuple[Any, triage.Flag]]) -> list[ReviewItem]:
    """Open one item per subject id for all its flags (`triage.joined`: one item listing every
    reason, not one item per reason), with a `created` event each. A subject that already has
    an active item for its outcome gets the new reasons added to that item instead (its
    priority becomes the highest). Returns the items created by this call. The caller holds
    the subjects' locks and syncs their review status; the partial unique constraint (one
    active outcome item per subject) and ON CONFLICT DO NOTHING back that up."""
    if not flags:
        return []
    key = f"{subject}_id"
    grouped: dict[Any, list[triage.Flag]] = {}
    for subject_id, flag in flags:
        grouped.setdefault(subject_id, []).append(flag)
    joined = {subject_id: triage.joined(group) for subject_id, group in grouped.items()}
    ReviewItem.objects.bulk_create(
        [outcome_item(subject, subject_id, f) for subject_id, f in joined.items()],
        ignore_conflicts=True,
    )
    # An item is created with its event, so the ones without any were created just now.
    created = list(
        ReviewItem.objects.filter(**{f"{key}__in": list(joined)}, status__in=ReviewItem.ACTIVE)
        .exclude(reason__in=triage.FAILURE_REASONS)
        .exclude(events__isnull=False)
    )
    # A subject whose outcome item was open already: the new reasons join it.
    already = set(joined) - {getattr(item, key) for item in created}
    if already:
        _reasons_join(key, {subject_id: grouped[subject_id] for subject_id in already})
    ReviewEvent.objects.bulk_create(created_event(item) for item in created)
    assignment.items_opened(item.pk for item in created)
    return created


def due_at(reasons, raised=None):
    """When an item raised for `reasons` at `raised` (now) is due: the shortest of their
    deadlines (REVIEW_DEADLINE_HOURS); None when none has one."""
    hours = triage.deadline_hours(reasons, settings.REVIEW_DEADLINE_HOURS)
    if hours is None:
        return None
    return (raised or timezone.now()) + timedelta(hours=hours)


def drawn_for_double_review() -> bool:
    """Whether a new outcome item gets two independent reviews: a REVIEW_DOUBLE_REVIEW_SHARE
    chance (failures are reviewed once: re-run, decide or dismiss)."""
    share = settings.REVIEW_DOUBLE_REVIEW_SHARE
    return share > 0 and random.random() < share  # noqa: S311 (sampling, not security)


def outcome_item(subject: str, subject_id, flag: triage.Flag) -> ReviewItem:
    """The (unsaved) outcome item of one subject for its joined flag (`triage.joined`), with
    its deadline."""
    return ReviewItem(
        **{f"{subject}_id": subject_id},
        reason=flag.reason,
        reasons=list(flag.all_reasons),
        priority=flag.priority,
        summary=flag.summary,
        details=flag.details,
        due_at=due_at(flag.all_reasons),
        double_review=drawn_for_double_review(),
    )


def created_event(item: ReviewItem) -> ReviewEvent:
    """The (unsaved) `created` event of a new item; it lists the reasons when there are several."""
    return ReviewEvent(
        item=item,
        action=ReviewEvent.Action.CREATED,
        to_status=item.status,
        note=item.summary,
        data={"reasons": list(item.reasons)} if len(item.reasons) > 1 else {},
    )


def failure_item_open(
    subject: str, failed, *, reason: str, max_risk: Callable[[], Any] | None = None
) -> ReviewItem | None:
    """Open the failure item (`debate_failed`, `run_failed`) of a subject that has just been
    failed for good, with its error, attempts and recoveries (`failed` has those fields).

    One active item per subject and reason: while one is open or claimed nothing more is
    queued; once a re-run closed it, failing again opens a new one. `max_risk` reads the
    highest risk stated before it failed, if the subject has one. Returns the item created.
    """
    if reason not in enabled_reasons():
        return None
    kind = subjects.named(subject)
    key = {subject: failed}
    if ReviewItem.objects.filter(**key, reason=reason, status__in=ReviewItem.ACTIVE).exists():
        return None
    flag = triage.failure_flag(
        reason=reason,
        error=failed.error,
        attempts=failed.attempts,
        recoveries=failed.recoveries,
        max_risk=max_risk() if max_risk else None,
    )
    item = ReviewItem.objects.create(
        **key,
        reason=flag.reason,
        reasons=[flag.reason],
        priority=flag.priority,
        summary=flag.summary,
        details=flag.details,
        due_at=due_at([flag.reason]),
    )
    ReviewEvent.objects.create(
        item=item, action=ReviewEvent.Action.CREATED, to_status=item.status, note=item.summary
    )
    review_status_sync(kind, failed.pk)
    assignment.items_opened([item.pk])
    logger.info("%s %s failed: review item #%s", kind.noun, failed.pk, item.pk)
    return item


def failure_items_close_for_rerun(
    subject: str, subject_id, *, user=None, note: str = "", data: dict | None = None
) -> list[ReviewItem]:
    """Close the open failure items of a failed subject that is being queued again, as resolved
    with the verdict `rerun`, by `user` (None: the system).

    Raises `ReviewConflict` when another analyst holds the item.
    """
    items = list(
        ReviewItem.objects.select_for_update()
        .filter(
            **{f"{subject}_id": subject_id},
            reason__in=triage.FAILURE_REASONS,
            status__in=ReviewItem.ACTIVE,
        )
        .order_by("id")
    )
    now = timezone.now()
    for item in items:
        if user is not None:
            conflict_if_taken(item, user)
        previous = item.status
        item.status = ReviewItem.Status.RESOLVED
        item.verdict = ReviewItem.Verdict.RERUN
        item.note = (note or "").strip()
        item.assignee = user if user is not None else item.assignee
        item.claimed_at = item.claimed_at or now
        item.closed_at = now
        item.save(
            update_fields=["status", "verdict", "note", "assignee", "claimed_at", "closed_at"]
        )
        record(
            item,
            actor=user,
            action=ReviewEvent.Action.RESOLVED,
            from_status=previous,
            note=item.note,
            data={"verdict": ReviewItem.Verdict.RERUN, **(data or {})},
        )
    if items:
        kind = subjects.named(subject)
        review_status_sync(kind, subject_id)
        kind.closed(subject_id, items)
    return items
