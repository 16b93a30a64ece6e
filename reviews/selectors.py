"""Reads for the review queue and the review page."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Prefetch, Q, QuerySet

from reviews import subjects
from reviews.models import ReviewEvent, ReviewItem

STATUS_FILTERS = {
    "active": ReviewItem.ACTIVE,
    "open": (ReviewItem.Status.OPEN,),
    "claimed": (ReviewItem.Status.CLAIMED,),
    "resolved": (ReviewItem.Status.RESOLVED,),
    "dismissed": (ReviewItem.Status.DISMISSED,),
    "all": None,
}


def queue_items(
    *, user, status: str = "active", reason: str = "", assignee: str = ""
) -> QuerySet[ReviewItem]:
    """The queue, most urgent first, then oldest first.

    `status`: a key of STATUS_FILTERS. `assignee`: "" (anyone), "me", "none" (unassigned) or
    a user id.
    """
    kinds = subjects.all_subjects()
    items = ReviewItem.objects.select_related(
        *(name for kind in kinds for name in kind.queue_related), "assignee"
    ).only(
        "id",
        "reason",
        "reasons",
        "status",
        "priority",
        "summary",
        "details",  # each reason's summary, for the API's `reasons`
        "created_at",
        "claimed_at",
        "closed_at",
        "verdict",
        "decision_override",
        "assignee__id",
        "assignee__username",
        "assignee__first_name",
        "assignee__last_name",
        *(f for kind in kinds for f in kind.queue_fields),
    )
    statuses = STATUS_FILTERS.get(status, ReviewItem.ACTIVE)
    if statuses is not None:
        items = items.filter(status__in=statuses)
    if reason:
        items = items.filter(Q(reason=reason) | Q(reasons__contains=[reason]))
    if assignee == "me":
        items = items.filter(assignee=user)
    elif assignee == "none":
        items = items.filter(assignee__isnull=True)
    elif assignee:
        items = items.filter(assignee_id=assignee)
    return items.order_by("-priority", "created_at", "id")


def reviewers() -> QuerySet:
    """Everyone who can hold a review item (permission `reviews.change_reviewitem`), and
    anyone who ever held one."""
    holders = ReviewItem.objects.filter(assignee__isnull=False).values("assignee_id")
    may = (
        get_user_model()
        .objects.with_perm(
            "reviews.change_reviewitem", backend="django.contrib.auth.backends.ModelBackend"
        )
        .values("pk")
    )
    return (
        get_user_model()
        .objects.filter(Q(pk__in=may) | Q(pk__in=holders))
        .order_by("username")
        .only("id", "username", "first_name", "last_name")
    )


def subject_related() -> list[str]:
    """What an item loads of its subject, whatever it is about (`select_related` names)."""
    return [name for kind in subjects.all_subjects() for name in kind.detail_related]


def review_item_get(item_id) -> ReviewItem:
    """One item with what its page needs of its subject, its holder and its history."""
    return (
        ReviewItem.objects.select_related("assignee", *subject_related())
        .prefetch_related(
            Prefetch("events", queryset=ReviewEvent.objects.select_related("actor")),
        )
        .get(pk=item_id)
    )


def review_item_detail(item_id) -> ReviewItem:
    """One item with its subject, its holder, its history (with who acted) and what its
    subject prefetches (e.g. every item of the same debate), in a fixed number of queries."""
    return (
        ReviewItem.objects.select_related("assignee", *subject_related())
        .prefetch_related(
            Prefetch("events", queryset=ReviewEvent.objects.select_related("actor")),
            *(p for kind in subjects.all_subjects() for p in kind.detail_prefetch()),
        )
        .get(pk=item_id)
    )


def other_items(item: ReviewItem) -> list[ReviewItem]:
    """The other items of the same group: the same debate, or the same contradiction run (its
    contradictions' and its own failure's)."""
    kind = subjects.of(item)
    siblings = ReviewItem.objects.filter(kind.group_items(kind.group_of(item)))
    return list(
        siblings.exclude(pk=item.pk)
        .select_related("assignee", *kind.sibling_related)
        .order_by("-priority", "created_at")
    )


def _after(item: ReviewItem) -> Q:
    """Items that come after `item` in the queue's order (-priority, created_at, id)."""
    return (
        Q(priority__lt=item.priority)
        | Q(priority=item.priority, created_at__gt=item.created_at)
        | Q(priority=item.priority, created_at=item.created_at, id__gt=item.pk)
    )


def queue_neighbours(item: ReviewItem, *, user) -> tuple[int | None, int | None]:
    """The ids of the active items just before and just after `item` in the queue (most urgent
    first, then oldest), skipping items someone else holds: where "previous" and "next" go."""
    workable = ReviewItem.objects.filter(
        Q(status=ReviewItem.Status.OPEN) | Q(status=ReviewItem.Status.CLAIMED, assignee=user)
    ).exclude(pk=item.pk)
    following = (
        workable.filter(_after(item))
        .order_by("-priority", "created_at", "id")
        .values_list("id", flat=True)[:1]
    )
    preceding = (
        workable.exclude(_after(item))
        .order_by("priority", "-created_at", "-id")
        .values_list("id", flat=True)[:1]
    )
    return (next(iter(preceding), None), next(iter(following), None))
