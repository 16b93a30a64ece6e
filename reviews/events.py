"""What every review action shares: the conflict it raises when someone else got there first,
and the event it records."""

from __future__ import annotations

from django.utils.timesince import timesince

import audit
from reviews.models import ReviewEvent, ReviewItem


class ReviewConflict(Exception):
    """The item is not in the state the action needs (someone else got there first)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def user_name(user) -> str:
    if user is None:
        return "someone"
    return user.get_full_name() or user.get_username()


def conflict_if_taken(item: ReviewItem, user, *, taking: bool = False) -> None:
    """Raise unless the item is open (and not assigned to someone else, unless `taking` it) or
    already claimed by `user`."""
    if item.status == ReviewItem.Status.CLAIMED and item.assignee_id != user.pk:
        since = timesince(item.claimed_at) if item.claimed_at else "a moment"
        raise ReviewConflict(
            f"Review item #{item.pk} was claimed by {user_name(item.assignee)} {since} ago; "
            "it stays theirs until they release it."
        )
    if (
        not taking
        and item.status == ReviewItem.Status.OPEN
        and item.assignee_id is not None
        and item.assignee_id != user.pk
    ):
        raise ReviewConflict(
            f"Review item #{item.pk} is assigned to {user_name(item.assignee)}; take it if you "
            "mean to work on it (it becomes yours)."
        )
    if item.status in ReviewItem.CLOSED:
        raise ReviewConflict(
            f"Review item #{item.pk} was already {item.status} by {user_name(item.assignee)}; "
            "nothing more to do."
        )


def record(
    item: ReviewItem, *, actor, action, from_status: str, note: str = "", data: dict | None = None
) -> ReviewEvent:
    """Store the item's event and, in the same transaction, the staff audit trail's entry
    (who did what to which item, from what status to what, with the verdict and decision)."""
    data = data or {}
    changes = {"status": {"from": from_status, "to": item.status}}
    for key in ("verdict", "decision"):
        if key in data:
            changes[key] = {"from": None, "to": data[key]}
    if action != ReviewEvent.Action.CREATED:  # the system queueing an item is not a staff action
        audit.record(
            actor=actor, action=f"review.{str(action)}", subject=item, changes=changes, note=note
        )
    return ReviewEvent.objects.create(
        item=item,
        actor=actor,
        action=action,
        from_status=from_status,
        to_status=item.status,
        note=note,
        data=data,
    )
