"""Who holds a review item: claim, take (from another), assign, release. Each runs in one
transaction on the locked item, checks the state it expects and records a `ReviewEvent`;
`reviews.services` re-exports them with the verdicts."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from reviews.events import ReviewConflict, conflict_if_taken, record, user_name
from reviews.guards import WORK_QUEUE, lock_item, refuse_own_later_review, require_staff
from reviews.models import ReviewEvent, ReviewItem


@transaction.atomic
def review_claim(*, item_id, user) -> ReviewItem:
    """Assign an open item to `user`. Claiming an item you already hold changes nothing."""
    require_staff(user)
    item = lock_item(item_id)
    if item.status == ReviewItem.Status.CLAIMED and item.assignee_id == user.pk:
        return item
    conflict_if_taken(item, user)
    refuse_own_later_review(item, user)
    previous = item.status
    item.status = ReviewItem.Status.CLAIMED
    item.assignee = user
    item.claimed_at = timezone.now()
    item.save(update_fields=["status", "assignee", "claimed_at"])
    record(item, actor=user, action=ReviewEvent.Action.CLAIMED, from_status=previous)
    return item


@transaction.atomic
def review_take(*, item_id, user) -> ReviewItem:
    """Claim an open item whatever it is assigned to (it becomes `user`'s). An item someone
    holds is theirs until they release it."""
    require_staff(user)
    item = lock_item(item_id)
    if item.status == ReviewItem.Status.CLAIMED and item.assignee_id == user.pk:
        return item
    conflict_if_taken(item, user, taking=True)
    refuse_own_later_review(item, user)
    previous, before = item.status, item.assignee
    item.status = ReviewItem.Status.CLAIMED
    item.assignee = user
    item.claimed_at = timezone.now()
    item.save(update_fields=["status", "assignee", "claimed_at"])
    taken = {} if before is None or before.pk == user.pk else {"taken_from": user_name(before)}
    record(item, actor=user, action=ReviewEvent.Action.CLAIMED, from_status=previous, data=taken)
    return item


@transaction.atomic
def review_assign(*, item_id, user, assignee) -> ReviewItem:
    """Assign an open item to `assignee` (a user who may work the queue; None: nobody), without
    claiming it. A claimed item is its holder's until they release it."""
    require_staff(user)
    if assignee is not None and not (assignee.is_active and assignee.has_perm(WORK_QUEUE)):
        raise ValidationError(
            {"assignee": f"{user_name(assignee)} cannot work the review queue (role Reviewer)."}
        )
    item = lock_item(item_id)
    if item.status != ReviewItem.Status.OPEN:
        raise ReviewConflict(
            f"Review item #{item.pk} is {item.status}"
            + (f" by {user_name(item.assignee)}" if item.assignee_id else "")
            + "; only an open item is assigned."
        )
    if assignee is not None and item.verdicts.filter(reviewer=assignee).exists():
        raise ValidationError(
            {
                "assignee": f"{user_name(assignee)} reviewed this item already; its "
                f"{item.get_stage_display().lower()} must come from someone else."
            }
        )
    before = item.assignee
    if (before.pk if before else None) == (assignee.pk if assignee else None):
        return item
    item.assignee = assignee
    item.save(update_fields=["assignee"])
    record(
        item,
        actor=user,
        action=ReviewEvent.Action.ASSIGNED,
        from_status=item.status,
        data={
            "from": before.get_username() if before else None,
            "to": assignee.get_username() if assignee else None,
            "by": "reassign",
        },
    )
    return item


@transaction.atomic
def review_release(*, item_id, user, note: str = "") -> ReviewItem:
    """Hand a claimed item back to the queue. Its holder may; so may a superuser."""
    require_staff(user)
    item = lock_item(item_id)
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
