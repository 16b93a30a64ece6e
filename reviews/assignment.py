"""Routing new review items to the reviewers on duty.

A reviewer marks themselves on duty (the queue page's toggle, `PUT /api/v1/reviews/duty/`).
Each new item is assigned as it is opened, to the reviewer on duty with the fewest active
items assigned to them (open or claimed; ties: on duty the longest, then the lowest id); with
nobody on duty it stays unassigned. Assigning does not claim: the item stays open, routed to
its assignee, who claims it to work on it (anyone else takes it deliberately:
`reviews.services.review_take`). An item waiting for a second review or an adjudication is
routed the same way, to someone who has not reviewed it. A reviewer going off duty hands their
open (unclaimed) items back to be routed again.

The choice is one SQL expression (`pick_sql`), so that a debate's finish, which opens its item
in the one statement that completes it, routes it in that statement too (`routed_insert`).
Elsewhere items are routed by a conditional UPDATE that sets the assignee only where the item
is still open and unassigned (PostgreSQL re-checks it after waiting for a claim's lock), so
routing never overrides a claim. Routing is serialised by a transaction-level advisory lock
where it runs in a transaction; two debates finishing in the same instant may both go to the
same reviewer (each statement counts the loads as they were when it began).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

import audit
from reviews.models import ReviewerProfile, ReviewerVerdict, ReviewEvent, ReviewItem

logger = logging.getLogger(__name__)


def _tables() -> dict[str, str]:
    quote = connection.ops.quote_name
    return {
        "profile": quote(ReviewerProfile._meta.db_table),
        "user": quote(get_user_model()._meta.db_table),
        "item": quote(ReviewItem._meta.db_table),
        "verdict": quote(ReviewerVerdict._meta.db_table),
    }


def pick_sql(item_id: str) -> str:
    """The SQL expression of the reviewer an item (its id: the SQL `item_id`) is routed to: on
    duty and active, has not reviewed it, the fewest active items assigned; NULL when nobody."""
    t = _tables()
    return (
        f"(SELECT p.user_id FROM {t['profile']} p JOIN {t['user']} u ON u.id = p.user_id "
        f"WHERE p.on_duty AND u.is_active AND NOT EXISTS (SELECT 1 FROM {t['verdict']} v "
        f"WHERE v.item_id = {item_id} AND v.reviewer_id = p.user_id) "
        f"ORDER BY (SELECT count(*) FROM {t['item']} i WHERE i.assignee_id = p.user_id "
        "AND i.status IN ('open', 'claimed')), p.on_duty_since, p.user_id LIMIT 1)"
    )


def routed_insert(item: ReviewItem) -> tuple[str, list]:
    """INSERT of a new (unsaved) item routed as it is stored: its assignee is `pick_sql`'s
    (ON CONFLICT DO NOTHING; RETURNING id, assignee_id). For a statement of several parts."""
    fields = [
        f
        for f in ReviewItem._meta.concrete_fields
        if not f.primary_key and f.attname != "assignee_id"
    ]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f in fields)
    values = ", ".join(["%s"] * len(fields))
    params = [f.get_db_prep_save(f.pre_save(item, True), connection) for f in fields]
    table = _tables()["item"]
    return (
        f"INSERT INTO {table} ({columns}, {quote('assignee_id')}) "
        f"VALUES ({values}, {pick_sql('NULL')}) ON CONFLICT DO NOTHING "
        f"RETURNING {quote('id')}, {quote('assignee_id')}",
        params,
    )


def assigned_events_insert(source: str, *, at) -> tuple[str, list]:
    """INSERT of the `assigned` event of each routed row of `source` (a part returning id and
    assignee_id), for the same statement."""
    quote = connection.ops.quote_name
    names = ["item", "action", "from_status", "to_status", "note", "data", "created_at"]
    columns = ", ".join(quote(ReviewEvent._meta.get_field(n).column) for n in names)
    at_field = ReviewEvent._meta.get_field("created_at")
    return (
        f"INSERT INTO {quote(ReviewEvent._meta.db_table)} ({columns}) "
        f"SELECT {source}.id, %s, %s, %s, '', jsonb_build_object('to', u.username, 'by', "
        f"'duty'), %s FROM {source} JOIN {_tables()['user']} u ON u.id = {source}.assignee_id "
        # after the item's `created` event (reading a part runs it first)
        f"WHERE EXISTS (SELECT 1 FROM {source}_event) RETURNING id",
        [
            ReviewEvent.Action.ASSIGNED,
            ReviewItem.Status.OPEN,
            ReviewItem.Status.OPEN,
            at_field.get_db_prep_save(at, connection),
        ],
    )


def items_opened(item_ids: Iterable) -> None:
    """For whoever opens items: route them once the current transaction commits (at once
    outside one). A failure to route is logged; the items stay unassigned."""
    ids = [i for i in item_ids if i is not None]
    if ids:
        transaction.on_commit(lambda: items_assign(ids), robust=True)


ROUTING_LOCK = 0x7265766965770001  # pg_advisory_xact_lock key: "review" + 1


@transaction.atomic
def items_assign(item_ids: Iterable) -> dict:
    """Route each of the items that is still open and unassigned (`pick_sql`), one after the
    other under the routing lock. Returns {item id: assignee id} for those assigned."""
    ids = sorted(set(item_ids))
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [ROUTING_LOCK])
    table = _tables()["item"]
    assigned = {}
    with connection.cursor() as cursor:
        for item_id in ids:
            cursor.execute(
                f"UPDATE {table} SET assignee_id = pick.user_id "
                f"FROM (SELECT {pick_sql('%s')} AS user_id) pick "
                f"WHERE {table}.id = %s AND {table}.status = 'open' "
                f"AND {table}.assignee_id IS NULL AND pick.user_id IS NOT NULL "
                "RETURNING pick.user_id",
                [item_id, item_id],
            )
            row = cursor.fetchone()
            if row is not None:
                assigned[item_id] = row[0]
    if assigned:
        users = get_user_model().objects.in_bulk(list(set(assigned.values())))
        ReviewEvent.objects.bulk_create(
            ReviewEvent(
                item_id=item_id,
                actor=None,
                action=ReviewEvent.Action.ASSIGNED,
                from_status=ReviewItem.Status.OPEN,
                to_status=ReviewItem.Status.OPEN,
                data={"to": users[user_id].get_username(), "by": "duty"},
            )
            for item_id, user_id in assigned.items()
        )
        logger.info("review items assigned: %s", assigned)
    return assigned


@transaction.atomic
def duty_set(*, user, on_duty: bool) -> ReviewerProfile:
    """Put `user` on duty or off. Going off duty hands their open, unclaimed items back to be
    routed to the reviewers still on duty (unassigned when there are none). Recorded in the
    audit trail."""
    if not (user.is_active and user.has_perm("reviews.change_reviewitem")):
        raise PermissionDenied(
            "Going on duty needs the Reviewer role (permission reviews.change_reviewitem)."
        )
    profile, _ = ReviewerProfile.objects.select_for_update().get_or_create(user=user)
    if profile.on_duty == on_duty:
        return profile
    profile.on_duty = on_duty
    profile.on_duty_since = timezone.now() if on_duty else None
    profile.save(update_fields=["on_duty", "on_duty_since", "updated_at"])
    audit.record(
        actor=user,
        action="review.duty",
        subject=profile,
        changes={"on_duty": {"from": not on_duty, "to": on_duty}},
    )
    if not on_duty:
        handed = list(
            ReviewItem.objects.filter(assignee=user, status=ReviewItem.Status.OPEN).values_list(
                "pk", flat=True
            )
        )
        if handed:
            ReviewItem.objects.filter(
                pk__in=handed, assignee=user, status=ReviewItem.Status.OPEN
            ).update(assignee=None)
            ReviewEvent.objects.bulk_create(
                ReviewEvent(
                    item_id=item_id,
                    actor=user,
                    action=ReviewEvent.Action.ASSIGNED,
                    from_status=ReviewItem.Status.OPEN,
                    to_status=ReviewItem.Status.OPEN,
                    data={"from": user.get_username(), "to": None, "by": "off_duty"},
                )
                for item_id in handed
            )
            items_opened(handed)
    return profile


def duty_of(user) -> tuple[bool, object, int]:
    """(on duty, since when, how many open items are assigned to them), in one query."""
    row = (
        get_user_model()
        .objects.filter(pk=user.pk)
        .values_list("reviewer_profile__on_duty", "reviewer_profile__on_duty_since")
        .annotate(
            waiting=Count("review_items", filter=Q(review_items__status=ReviewItem.Status.OPEN))
        )
        .order_by()
    )
    row = next(iter(row), None)
    if row is None:
        return False, None, 0
    on_duty, since, waiting = row
    return bool(on_duty), since, waiting
