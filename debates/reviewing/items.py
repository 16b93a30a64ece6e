"""Opening a debate's review items: for the outcomes that need a human, and for a debate that
failed for good. Both run inside the transaction that completes (fails) the debate."""

from __future__ import annotations

import logging
from typing import Any

from django.db import connection, transaction
from django.db.models import Max

from debates import one_statement
from debates.models import Debate, Statement
from debates.reviewing import triage
from reviews import assignment, queueing
from reviews.models import ReviewEvent, ReviewItem
from reviews.triage import BUDGET_EXCEEDED, DEBATE_FAILED, FAILURE_REASONS, Flag, joined

logger = logging.getLogger(__name__)


def review_items_for_debate(
    *, debate: Debate | Any, completed: Debate | None = None
) -> list[ReviewItem]:
    """Open the review item of a completed debate that needs a human: one item listing every
    reason it raised (a split vote with low confidence is one item). Safe to repeat.

    Called by the debate runner inside the transaction that completes the debate, so a debate
    is never completed without its review item. A reason that already has an item for this
    debate (open or closed) is not raised again; the partial unique constraint (one active
    outcome item per debate) and ON CONFLICT DO NOTHING back that up. Returns the items
    created by this call.

    `completed`: the runner, in the transaction that has just completed the debate (so holds
    its row's lock), passes it with the metadata and findings it stored, and nothing is read
    back; a failure then fails that whole transaction (no savepoint of its own).
    """
    debate_id = getattr(debate, "pk", debate)
    with transaction.atomic(savepoint=completed is None):
        locked = completed or (
            Debate.objects.select_for_update()
            .only("id", "status", "metadata", "injection_findings")
            .filter(id=debate_id)
            .first()
        )
        if locked is None or locked.status != Debate.Status.COMPLETED:
            return []
        enabled = queueing.enabled_reasons()
        flags = [
            f
            for f in triage.flags_for(locked.metadata, locked.injection_findings)
            if f.reason in enabled
        ]
        if not flags:
            return []
        raised_before: set[str] = set()
        for reason, reasons in ReviewItem.objects.filter(debate_id=debate_id).values_list(
            "reason", "reasons"
        ):
            raised_before.update([reason, *(reasons or ())])
        new = [(debate_id, f) for f in flags if f.reason not in raised_before]
        if not new:
            return []
        created = queueing.items_open("debate", new)
        queueing.review_status_sync("debate", debate_id, active=bool(created))
    logger.info(
        "debate %s: review items %s",
        debate_id,
        "; ".join(", ".join(i.reasons or [i.reason]) for i in created),
    )
    return created


def outcome_flags(metadata, injection_findings) -> list[Flag]:
    """The enabled reasons a completed debate with this metadata needs a human for."""
    enabled = queueing.enabled_reasons()
    return [f for f in triage.flags_for(metadata, injection_findings) if f.reason in enabled]


def opens_plainly(raised_before) -> bool:
    """Whether a completing debate's outcome item can be opened by `outcome_item_parts`: no
    outcome item was ever raised for it (`raised_before`: every reason of its items), so there
    is none to join and none that a reason was raised by before."""
    return not set(raised_before or ()) - set(FAILURE_REASONS)


def outcome_item_parts(debate_id, flags: list[Flag], *, at) -> list[one_statement.Part]:
    """The parts that open a completing debate's one outcome item for `flags` (`ri`, which
    returns the item's id when it was created; ON CONFLICT DO NOTHING backs up the one active
    outcome item per debate) with its `created` event, routed to a reviewer on duty (and its
    `assigned` event; `reviews.assignment`), for the statement that completes the debate; as
    `review_items_for_debate` opens it when `opens_plainly` holds."""
    if not flags:
        return []
    item = queueing.outcome_item("debate", debate_id, joined(flags))
    item.created_at = at
    # Routed to a reviewer on duty as it is stored (`reviews.assignment`).
    opened = one_statement.Part("ri", *assignment.routed_insert(item))
    # Its event as `queueing.created_event` makes it, for the item the part above returns.
    event = queueing.created_event(item)
    event.created_at = at
    names = ["action", "from_status", "to_status", "note", "data", "created_at"]
    fields = [ReviewEvent._meta.get_field(name) for name in names]
    params = [f.get_db_prep_save(getattr(event, f.attname), connection) for f in fields]
    columns = ", ".join(
        connection.ops.quote_name(f.column) for f in [ReviewEvent._meta.get_field("item"), *fields]
    )
    created = one_statement.Part(
        "ri_event",
        f"INSERT INTO {connection.ops.quote_name(ReviewEvent._meta.db_table)} ({columns}) "
        f"SELECT ri.id, {', '.join(['%s'] * len(fields))} FROM ri RETURNING id",
        params,
    )
    routed = one_statement.Part("ri_assigned", *assignment.assigned_events_insert("ri", at=at))
    return [opened, created, routed]


def review_item_for_failure(*, debate: Debate, budget: bool = False) -> ReviewItem | None:
    """Open the `debate_failed` item of a debate that has just been failed for good (its row
    locked and saved as failed), with the highest risk its agents stated before it failed;
    `budget_exceeded` instead when it stopped at a spending limit."""
    return queueing.failure_item_open(
        "debate",
        debate,
        reason=BUDGET_EXCEEDED if budget else DEBATE_FAILED,
        max_risk=lambda: Statement.objects.filter(debate=debate).aggregate(m=Max("risk"))["m"],
    )


def failure_items_close_for_rerun(
    *, debate_id, user=None, note: str = "", data: dict | None = None
) -> list[ReviewItem]:
    """Close the open `debate_failed` item of a failed debate being queued again, as re-run by
    `user` (raises `reviews.events.ReviewConflict` when another analyst holds it)."""
    return queueing.failure_items_close_for_rerun(
        "debate", debate_id, user=user, note=note, data=data
    )
