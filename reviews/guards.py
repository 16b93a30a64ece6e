"""What every action on the review queue checks first: the permission to work it, a note where
one is needed, what an item is about (and so which rows its actions lock), the item's own row
lock, and that a later review comes from someone who has not reviewed the item yet. Used by
`reviews.holding` and `reviews.services`."""

from __future__ import annotations

from typing import Any, NamedTuple

from django.core.exceptions import PermissionDenied, ValidationError

from reviews import subjects
from reviews.events import ReviewConflict
from reviews.models import ReviewItem

WORK_QUEUE = "reviews.change_reviewitem"


def require_staff(user) -> None:
    """Working the queue takes the permission `reviews.change_reviewitem` (role Reviewer)."""
    if not (user and user.is_authenticated and user.is_active and user.has_perm(WORK_QUEUE)):
        raise PermissionDenied(
            "Working the review queue needs the Reviewer role "
            "(permission reviews.change_reviewitem)."
        )


def require_note(note: str | None, action: str) -> str:
    note = (note or "").strip()
    if not note:
        raise ValidationError({"note": f"A note is required to {action}: say why."})
    return note


class Subject(NamedTuple):
    """What an item is about, and the id of the group its actions lock."""

    kind: subjects.ReviewSubject
    group_id: Any


def subject_of(item_id) -> Subject:
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


def lock_item(item_id) -> ReviewItem:
    # No join here: after waiting for the lock, PostgreSQL returns the item's latest version
    # but a joined row may still be the one read before the wait.
    return ReviewItem.objects.select_for_update().get(pk=item_id)


def refuse_own_later_review(item: ReviewItem, user) -> None:
    """A second review or an adjudication comes from someone who has not reviewed the item."""
    if item.stage != ReviewItem.Stage.FIRST and item.verdicts.filter(reviewer=user).exists():
        raise ReviewConflict(
            f"You reviewed item #{item.pk} already; its {item.get_stage_display().lower()} "
            "must come from another reviewer."
        )
