"""Reads for the review queue and the review page."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import F, Prefetch, Q, QuerySet

from reviews import subjects
from reviews.models import ReviewEvent, ReviewItem

STATUS_FILTERS = {
    "active": ReviewItem.ACTIVE,
    "open": (ReviewItem.Status.OPEN,),
    "claimed": (ReviewItem.Status.CLAIMED,),
    "resolved": (ReviewItem.Status.RESOLVED,),
    "dismissed": (ReviewItem.Status.DISMISSED,),
    "expired": (ReviewItem.Status.EXPIRED,),
    "all": None,
}


#: The queue's order over active items: overdue first (the longest overdue first), then the
#: most urgent, then the oldest (index `reviewitem_active_queue_due`).
ACTIVE_ORDER = (F("overdue_at").asc(nulls_last=True), "-priority", "created_at", "id")
#: Over every status (index `reviewitem_queue_order`).
ORDER = ("-priority", "created_at", "id")


def queue_items(
    *, user, status: str = "active", reason: str = "", assignee: str = "", overdue: str = ""
) -> QuerySet[ReviewItem]:
    """The queue: active items overdue first, then most urgent first, then oldest first.

    `status`: a key of STATUS_FILTERS. `assignee`: "" (anyone), "me", "none" (unassigned) or
    a user id. `overdue`: "" (either), "yes" or "no".
    """
    kinds = subjects.all_subjects()
    items = ReviewItem.objects.select_related(
        *(name for kind in kinds for name in kind.queue_related), "assignee"
    ).only(
        "id",
        "reason",
        "reasons",
        "status",
        "stage",
        "priority",
        "summary",
        "details",  # each reason's summary, for the API's `reasons`
        "created_at",
        "claimed_at",
        "closed_at",
        "due_at",
        "overdue_at",
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
    if overdue == "yes":
        items = items.filter(overdue_at__isnull=False)
    elif overdue == "no":
        items = items.filter(overdue_at__isnull=True)
    if statuses is not None and set(statuses) <= set(ReviewItem.ACTIVE):
        return items.order_by(*ACTIVE_ORDER)
    return items.order_by(*ORDER)


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


def assignable_reviewers() -> QuerySet:
    """Active users who may work the queue: whom an item may be assigned to."""
    may = (
        get_user_model()
        .objects.with_perm(
            "reviews.change_reviewitem", backend="django.contrib.auth.backends.ModelBackend"
        )
        .values("pk")
    )
    return (
        get_user_model()
        .objects.filter(pk__in=may, is_active=True)
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


def _urgency(item: ReviewItem, *, after: bool) -> Q:
    """Items after (before) `item` by (-priority, created_at, id)."""
    later, earlier = ("lt", "gt") if after else ("gt", "lt")
    return (
        Q(**{f"priority__{later}": item.priority})
        | Q(priority=item.priority, **{f"created_at__{earlier}": item.created_at})
        | Q(priority=item.priority, created_at=item.created_at, **{f"id__{earlier}": item.pk})
    )


def _after(item: ReviewItem) -> Q:
    """Items that come after `item` in the active queue's order (`ACTIVE_ORDER`: overdue_at,
    nulls last; -priority; created_at; id)."""
    urgency = _urgency(item, after=True)
    if item.overdue_at is None:
        return Q(overdue_at__isnull=True) & urgency
    return (
        Q(overdue_at__isnull=True)
        | Q(overdue_at__gt=item.overdue_at)
        | (Q(overdue_at=item.overdue_at) & urgency)
    )


def _before(item: ReviewItem) -> Q:
    """Items that come before `item` in the active queue's order."""
    urgency = _urgency(item, after=False)
    if item.overdue_at is None:
        return Q(overdue_at__isnull=False) | (Q(overdue_at__isnull=True) & urgency)
    return Q(overdue_at__lt=item.overdue_at) | (Q(overdue_at=item.overdue_at) & urgency)


def queue_neighbours(item: ReviewItem, *, user) -> tuple[int | None, int | None]:
    """The ids of the active items just before and just after `item` in the queue (most urgent
    first, then oldest), skipping items someone else holds or is assigned: where "previous" and
    "next" go."""
    workable = ReviewItem.objects.filter(
        Q(status=ReviewItem.Status.OPEN, assignee__isnull=True)
        | Q(status__in=ReviewItem.ACTIVE, assignee=user)
    ).exclude(pk=item.pk)
    following = workable.filter(_after(item)).order_by(*ACTIVE_ORDER).values_list("id", flat=True)
    preceding = (
        workable.filter(_before(item))
        .order_by(F("overdue_at").desc(nulls_first=True), "priority", "-created_at", "-id")
        .values_list("id", flat=True)
    )
    following, preceding = following[:1], preceding[:1]
    return (next(iter(preceding), None), next(iter(following), None))


def blind_to(item: ReviewItem, events: list[ReviewEvent], user) -> bool:
    """Whether `user` must not see the first review of `item` yet: it waits for its second
    review and they have not given one (`events`: the item's)."""
    if item.stage != ReviewItem.Stage.SECOND or not item.is_active:
        return False
    reviewed = ReviewEvent.Action.REVIEWED
    return not any(e.action == reviewed and e.actor_id == getattr(user, "pk", None) for e in events)


def events_seen_by(item: ReviewItem, user) -> list[ReviewEvent]:
    """The item's history as `user` may see it. Reviews are independent: while an item waits
    for its second review, whoever has not reviewed it does not see the first review's verdict
    or note (its event says a review was given, not what it said). Once the item is
    adjudicated or closed, everything shows."""
    events = list(item.events.all())
    if not blind_to(item, events, user):
        return events
    for event in events:
        if event.action == ReviewEvent.Action.REVIEWED:
            event.note = ""
            event.data = {
                "stage": event.data.get("stage"),
                "awaits": event.data.get("awaits"),
                "withheld": True,
            }
    return events
