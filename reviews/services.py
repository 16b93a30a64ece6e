"""Analysts' actions on the review queue: claim, release, resolve, keep, dismiss, re-run.

Every action runs in one transaction, locks the rows it changes (the item's group first: its
debate, or its contradiction run; then the item, so two actions never wait on each other in a
circle), checks the state it expects and records a `ReviewEvent`. What a verdict does to the
item's subject is the subject's own (`reviews.subjects`). When two analysts act on the same item
at once, the second one to get the lock sees the first one's change and gets a `ReviewConflict`
saying who got there first. Bad input raises `ValidationError` (field -> message) and changes
nothing. Opening items is `reviews.queueing`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from reviews import subjects
from reviews.events import ReviewConflict, conflict_if_taken, record, user_name
from reviews.models import ReviewEvent, ReviewItem
from reviews.queueing import review_status_sync

__all__ = [
    "ReviewConflict",
    "review_claim",
    "review_dismiss",
    "review_keep",
    "review_release",
    "review_rerun",
    "review_resolve",
]


WORK_QUEUE = "reviews.change_reviewitem"


def _require_staff(user) -> None:
    """Working the queue takes the permission `reviews.change_reviewitem` (role Reviewer)."""
    if not (user and user.is_authenticated and user.is_active and user.has_perm(WORK_QUEUE)):
        raise PermissionDenied(
            "Working the review queue needs the Reviewer role "
            "(permission reviews.change_reviewitem)."
        )


def _require_note(note: str | None, action: str) -> str:
    note = (note or "").strip()
    if not note:
        raise ValidationError({"note": f"A note is required to {action}: say why."})
    return note


class Subject(NamedTuple):
    """What an item is about, and the id of the group its actions lock."""

    kind: subjects.ReviewSubject
    group_id: Any


def _subject_of(item_id) -> Subject:
    kinds = subjects.all_subjects()
    keys = [f"{kind.name}_id" for kind in kinds]
    groups = list(dict.fromkeys(kind.group for kind in kinds))
    row = ReviewItem.objects.filter(pk=item_id).values_list(*keys, *groups).first()
    if row is None:
        raise ReviewItem.DoesNotExist(f"There is no review item #{item_id}.")
    values = dict(zip(keys + groups, row, strict=True))
    for kind, key in zip(kinds, keys, strict=True):
        if values[key] is not None:
            return Subject(kind, values[kind.group])
    raise ReviewItem.DoesNotExist(f"Review item #{item_id} is about nothing this service knows.")


def _lock_item(item_id) -> ReviewItem:
    # No join here: after waiting for the lock, PostgreSQL returns the item's latest version
    # but a joined row may still be the one read before the wait.
    return ReviewItem.objects.select_for_update().get(pk=item_id)


def _close(
    item: ReviewItem,
    *,
    user,
    status: str,
    note: str,
    verdict: str = "",
    decision_override: str = "",
) -> str:
    """Close a locked item as `user`; returns the status it had."""
    now = timezone.now()
    previous = item.status
    item.status = status
    item.verdict = verdict
    item.decision_override = decision_override
    item.note = note
    item.assignee = user
    item.claimed_at = item.claimed_at or now
    item.closed_at = now
    item.save(
        update_fields=[
            "status",
            "verdict",
            "decision_override",
            "note",
            "assignee",
            "claimed_at",
            "closed_at",
        ]
    )
    return previous


@transaction.atomic
def review_claim(*, item_id, user) -> ReviewItem:
    """Assign an open item to `user`. Claiming an item you already hold changes nothing."""
    _require_staff(user)
    item = _lock_item(item_id)
    if item.status == ReviewItem.Status.CLAIMED and item.assignee_id == user.pk:
        return item
    conflict_if_taken(item, user)
    previous = item.status
    item.status = ReviewItem.Status.CLAIMED
    item.assignee = user
    item.claimed_at = timezone.now()
    item.save(update_fields=["status", "assignee", "claimed_at"])
    record(item, actor=user, action=ReviewEvent.Action.CLAIMED, from_status=previous)
    return item


@transaction.atomic
def review_release(*, item_id, user, note: str = "") -> ReviewItem:
    """Hand a claimed item back to the queue. Its holder may; so may a superuser."""
    _require_staff(user)
    item = _lock_item(item_id)
    if item.status != ReviewItem.Status.CLAIMED:
        raise ReviewConflict(
            f"Review item #{item.pk} is {item.status}, not claimed; there is nothing to release."
        )
    if item.assignee_id != user.pk and not user.is_superuser:
        raise ReviewConflict(
            f"Review item #{item.pk} is claimed by {user_name(item.assignee)}; only they (or a "
            "superuser) can release it."
        )
    holder = item.assignee
    item.status = ReviewItem.Status.OPEN
    item.assignee = None
    item.claimed_at = None
    item.save(update_fields=["status", "assignee", "claimed_at"])
    data = {} if holder is None or holder.pk == user.pk else {"released_from": user_name(holder)}
    record(
        item,
        actor=user,
        action=ReviewEvent.Action.RELEASED,
        from_status=ReviewItem.Status.CLAIMED,
        note=(note or "").strip(),
        data=data,
    )
    return item


def _resolve(*, item_id, user, verdict: str, value: str, note: str) -> ReviewItem:
    subject = _subject_of(item_id)
    refusal = subject.kind.refusal(verdict)
    if refusal:
        raise ValidationError(refusal)
    locked = subject.kind.lock(subject.group_id)
    item = _lock_item(item_id)
    conflict_if_taken(item, user)
    done = subject.kind.resolve(
        locked=locked, item=item, user=user, verdict=verdict, value=value, note=note
    )
    previous = _close(
        item,
        user=user,
        status=ReviewItem.Status.RESOLVED,
        note=note,
        verdict=verdict,
        decision_override=done.decision_override,
    )
    record(
        item,
        actor=user,
        action=ReviewEvent.Action.RESOLVED,
        from_status=previous,
        note=note,
        data=done.data,
    )
    review_status_sync(subject.kind, subject.group_id, **done.changes)
    subject.kind.closed(subject.group_id, [item])
    return item


@transaction.atomic
def review_resolve(*, item_id, user, verdict: str, note: str, decision: str = "") -> ReviewItem:
    """Close an item with a verdict: uphold the machine's decision, or override it.

    The item may be open (resolving claims it) or claimed by `user`. What the verdict does is
    the subject's (a debate's: an override becomes its effective decision, the machine's is
    kept; see `debates.reviewing`). Items whose subject takes no such verdict are refused with
    what to do instead.
    """
    _require_staff(user)
    note = _require_note(note, "resolve")
    verdicts = (ReviewItem.Verdict.UPHOLD, ReviewItem.Verdict.OVERRIDE)
    if verdict not in verdicts:
        raise ValidationError({"verdict": "Choose a verdict: uphold or override."})
    return _resolve(item_id=item_id, user=user, verdict=verdict, value=decision, note=note)


@transaction.atomic
def review_keep(*, item_id, user, choice: str, note: str) -> ReviewItem:
    """Close an item with the value to keep (`choice`, e.g. ``finding:<id>`` or ``use_both``
    for a contradiction; see `contradictions.reviewing`)."""
    _require_staff(user)
    note = _require_note(note, "resolve")
    return _resolve(
        item_id=item_id,
        user=user,
        verdict=ReviewItem.Verdict.KEEP,
        value=(choice or "").strip(),
        note=note,
    )


@transaction.atomic
def review_dismiss(*, item_id, user, note: str) -> ReviewItem:
    """Close an item that needs no verdict (e.g. a false alarm), saying why."""
    _require_staff(user)
    note = _require_note(note, "dismiss")
    subject = _subject_of(item_id)
    subject.kind.lock(subject.group_id)
    item = _lock_item(item_id)
    conflict_if_taken(item, user)
    subject.kind.dismissed(item=item, user=user, note=note)
    previous = _close(item, user=user, status=ReviewItem.Status.DISMISSED, note=note)
    record(item, actor=user, action=ReviewEvent.Action.DISMISSED, from_status=previous, note=note)
    review_status_sync(subject.kind, subject.group_id)
    subject.kind.closed(subject.group_id, [item])
    return item


@transaction.atomic
def review_rerun(*, item_id, user, note: str = "", model: str | None = None) -> ReviewItem:
    """Close a failed subject's item by queueing the subject again, from what is stored: LLM
    calls already made are not made again. The note is optional.

    The item may be open or claimed by `user`; it is resolved with the verdict `rerun` by the
    subject's re-run (which also starts its counters again). If the re-run fails too, a new
    item is queued. `model` (None: keep it) changes the model the subject runs with first.
    """
    _require_staff(user)
    subject = _subject_of(item_id)
    locked = subject.kind.lock(subject.group_id)
    item = _lock_item(item_id)
    conflict_if_taken(item, user)
    if not item.is_failure:
        raise ValidationError(
            {
                "non_field_errors": f"Only a failed debate or run can be re-run; this item is "
                f"'{item.get_reason_display()}'. Resolve or dismiss it instead."
            }
        )
    subject.kind.rerun(locked=locked, item=item, user=user, note=note, model=model)
    item.refresh_from_db()
    return item
