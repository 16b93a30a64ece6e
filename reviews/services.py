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

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

import audit
from reviews import assignment, subjects
from reviews.events import ReviewConflict, conflict_if_taken, record
from reviews.guards import (
    lock_item,
    refuse_own_later_review,
    require_note,
    require_staff,
    subject_of,
)
from reviews.holding import review_assign, review_claim, review_release, review_take
from reviews.models import ReviewerVerdict, ReviewEvent, ReviewItem
from reviews.queueing import review_status_sync

__all__ = [
    "ReviewConflict",
    "review_assign",
    "review_claim",
    "review_dismiss",
    "review_expire",
    "review_keep",
    "review_release",
    "review_rerun",
    "review_resolve",
    "review_take",
]


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


def _confirm(item: ReviewItem, user, guard: subjects.Guard, confirmed: bool, note: str) -> None:
    """A guarded verdict (overriding a safety veto to ACT) needs the item claimed by `user`, a
    note, and an explicit confirmation naming what the vetoing agent saw. Says what is missing."""
    missing = {}
    if not (item.status == ReviewItem.Status.CLAIMED and item.assignee_id == user.pk):
        missing["claim"] = (
            f"Claim review item #{item.pk} first: a safety veto is overridden only by the "
            "reviewer holding the item."
        )
    if not note:
        missing["note"] = "A note is required to override a safety veto: say why."
    if not confirmed:
        missing["confirm_veto_override"] = (
            f"{guard.seen} Overriding it to ACT needs an explicit confirmation that you read "
            'this ("confirm_veto_override": true).'
        )
    if missing:
        raise ValidationError(missing)


def _hold(
    item: ReviewItem, user, *, stage: str, given: ReviewerVerdict, applied: bool
) -> ReviewItem:
    """Keep an item waiting for another review (`stage`) after `user` gave theirs: back in the
    queue, unclaimed and routed again (to someone who has not reviewed it)."""
    previous, reviewed = item.status, item.stage
    item.status = ReviewItem.Status.OPEN
    item.stage = stage
    item.assignee = None
    item.claimed_at = None
    item.save(update_fields=["status", "stage", "assignee", "claimed_at"])
    record(
        item,
        actor=user,
        action=ReviewEvent.Action.REVIEWED,
        from_status=previous,
        note=given.note,
        data={
            "stage": reviewed,
            "verdict": given.verdict,
            "decision": given.decision,
            "awaits": stage,
            "applied": applied,
            **({"veto_override": True} if given.veto_override else {}),
        },
    )
    assignment.items_opened([item.pk])
    return item


def _later_review_allowed(item: ReviewItem, user, stage: str | None) -> None:
    """A second review or an adjudication is given by someone who has not reviewed the item,
    either holding it or naming the review they give (`stage`, as the page does): of two
    reviewers sending the second review at once, the later one is told the first got there
    first, rather than adjudicating unawares."""
    what = item.get_stage_display().lower()
    if stage is not None and stage != item.stage:
        raise ReviewConflict(
            f"Review item #{item.pk} no longer awaits its {ReviewItem.Stage(stage).label.lower()}"
            f": someone else gave it first; it now awaits its {what}."
        )
    if item.stage == ReviewItem.Stage.FIRST:
        return
    refuse_own_later_review(item, user)
    holds = item.status == ReviewItem.Status.CLAIMED and item.assignee_id == user.pk
    if stage is None and not holds:
        raise ReviewConflict(
            f"Review item #{item.pk} awaits its {what}: claim it first, or name the review you "
            f'give ("stage": "{item.stage}").'
        )


def _resolve(
    *,
    item_id,
    user,
    verdict: str,
    value: str,
    note: str,
    confirm_veto_override: bool = False,
    stage: str | None = None,
) -> ReviewItem:
    """Give `user`'s verdict on an item, in the review it waits for (`ReviewItem.Stage`).

    A first review closes the item, unless it needs a second, independent one: an item drawn
    for double review (`double_review`), or a safety veto overridden to ACT. A second review
    that agrees with the first closes it; one that disagrees sends it to adjudication, whose
    verdict closes it. A verdict is applied to its subject when it closes the item; while the
    item waits, it is checked by the subject (whose changes are undone) and not applied, except
    a veto override outside double review with `REVIEW_VETO_OVERRIDE_APPROVAL` off, which takes
    effect at once and is then reviewed again.
    """
    subject = subject_of(item_id)
    refusal = subject.kind.refusal(verdict)
    if refusal:
        raise ValidationError(refusal)
    locked = subject.kind.lock(subject.group_id)
    item = lock_item(item_id)
    conflict_if_taken(item, user)
    _later_review_allowed(item, user, stage)
    stage = item.stage
    guard = subject.kind.guard(locked=locked, item=item, user=user, verdict=verdict, value=value)
    if guard is not None:
        _confirm(item, user, guard, confirm_veto_override, note)
    first = None
    if stage == ReviewItem.Stage.SECOND:
        first = item.verdicts.filter(stage=ReviewItem.Stage.FIRST).first()
    # What the verdict leads to: close the item, or wait for a second review or adjudication.
    awaits = None
    if stage == ReviewItem.Stage.FIRST and (item.double_review or guard is not None):
        awaits = ReviewItem.Stage.SECOND
    applies = awaits is None or (
        guard is not None and not item.double_review and not settings.REVIEW_VETO_OVERRIDE_APPROVAL
    )
    with transaction.atomic():  # a verdict not applied is checked, then its changes undone
        done = subject.kind.resolve(
            locked=locked, item=item, user=user, verdict=verdict, value=value, note=note
        )
        mine = ReviewerVerdict(
            item=item,
            reviewer=user,
            stage=stage,
            verdict=verdict,
            decision=done.decision_override
            or (value if verdict == ReviewItem.Verdict.KEEP else ""),
            outcome=done.outcome,
            note=note,
            veto_override=guard is not None,
        )
        if first is not None and not mine.agrees_with(first):
            awaits, applies = ReviewItem.Stage.ADJUDICATION, False
        if not applies:
            transaction.set_rollback(True)
    mine.save(force_insert=True)
    if guard is not None:
        _audit_veto_override(item, user, guard, note, done, takes_effect=applies)
    if awaits is not None:
        if applies:  # in effect now; the item stays open for its second review
            review_status_sync(subject.kind, subject.group_id, **done.changes)
        return _hold(item, user, stage=awaits, given=mine, applied=applies)
    previous = _close(
        item,
        user=user,
        status=ReviewItem.Status.RESOLVED,
        note=note,
        verdict=verdict,
        decision_override=done.decision_override,
    )
    data = {**done.data, **({"veto_override": True} if guard is not None else {})}
    if stage != ReviewItem.Stage.FIRST:
        data["stage"] = stage
    record(
        item,
        actor=user,
        action=ReviewEvent.Action.RESOLVED,
        from_status=previous,
        note=note,
        data=data,
    )
    review_status_sync(subject.kind, subject.group_id, **done.changes)
    subject.kind.closed(subject.group_id, [item])
    return item


def _audit_veto_override(
    item, user, guard: subjects.Guard, note: str, done: subjects.Resolution, *, takes_effect: bool
) -> None:
    """Every override of a safety veto in the staff audit trail, with what was confirmed and
    whether it took effect (or waits for a second reviewer)."""
    audit.record(
        actor=user,
        action="review.veto_override",
        subject=item,
        changes={
            "decision": {
                "from": done.data.get("machine_decision"),
                "to": done.decision_override,
            },
            "takes_effect": {"from": None, "to": takes_effect},
        },
        note=f"{note}\n\nConfirmed having read: {guard.seen}",
    )


@transaction.atomic
def review_resolve(
    *,
    item_id,
    user,
    verdict: str,
    note: str,
    decision: str = "",
    confirm_veto_override: bool = False,
    stage: str | None = None,
) -> ReviewItem:
    """Close an item with a verdict: uphold the machine's decision, or override it.

    The item may be open (resolving claims it) or claimed by `user`. What the verdict does is
    the subject's (a debate's: an override becomes its effective decision, the machine's is
    kept; see `debates.reviewing`). Items whose subject takes no such verdict are refused with
    what to do instead. Overriding a safety veto to ACT also takes holding the item and
    `confirm_veto_override` (see `_confirm`); a second review or an adjudication takes holding
    the item or naming it (`stage`; see `_later_review_allowed`).
    """
    require_staff(user)
    note = require_note(note, "resolve")
    verdicts = (ReviewItem.Verdict.UPHOLD, ReviewItem.Verdict.OVERRIDE)
    if verdict not in verdicts:
        raise ValidationError({"verdict": "Choose a verdict: uphold or override."})
    return _resolve(
        item_id=item_id,
        user=user,
        verdict=verdict,
        value=decision,
        note=note,
        confirm_veto_override=confirm_veto_override,
        stage=stage,
    )


@transaction.atomic
def review_keep(*, item_id, user, choice: str, note: str, stage: str | None = None) -> ReviewItem:
    """Close an item with the value to keep (`choice`, e.g. ``finding:<id>`` or ``use_both``
    for a contradiction; see `contradictions.reviewing`)."""
    require_staff(user)
    note = require_note(note, "resolve")
    return _resolve(
        item_id=item_id,
        user=user,
        verdict=ReviewItem.Verdict.KEEP,
        value=(choice or "").strip(),
        note=note,
        stage=stage,
    )


@transaction.atomic
def review_dismiss(*, item_id, user, note: str) -> ReviewItem:
    """Close an item that needs no verdict (e.g. a false alarm), saying why."""
    require_staff(user)
    note = require_note(note, "dismiss")
    subject = subject_of(item_id)
    subject.kind.lock(subject.group_id)
    item = lock_item(item_id)
    conflict_if_taken(item, user)
    if item.stage != ReviewItem.Stage.FIRST:
        raise ReviewConflict(
            f"Review item #{item.pk} awaits its {item.get_stage_display().lower()}: give a "
            "verdict (a review was given already, so it is not dismissed)."
        )
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
    require_staff(user)
    subject = subject_of(item_id)
    locked = subject.kind.lock(subject.group_id)
    item = lock_item(item_id)
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


FALLBACK_NOTES = {
    "machine": "Closed at its deadline with no review: the machine's decision stands.",
    "WARN": "Closed at its deadline with no review: the decision became WARN.",
}


@transaction.atomic
def review_expire(*, item_id, fallback: str, now=None) -> ReviewItem | None:
    """Close an active item whose deadline passed with its reason's fallback ("machine": the
    machine's decision stands; "WARN": the decision becomes WARN), by the system: status
    `expired`, verdict `fallback`, its subject's review status `expired` (never a reviewer's
    verdict). Whoever assigned or held it keeps their name on it. None when the item is no
    longer active or not due (someone closed it first)."""
    now = now or timezone.now()
    try:
        subject = subject_of(item_id)
    except ReviewItem.DoesNotExist:
        return None
    locked = subject.kind.lock(subject.group_id)
    item = lock_item(item_id)
    if not item.is_active or item.due_at is None or item.due_at > now:
        return None
    done = subject.kind.fallback(locked=locked, item=item, fallback=fallback)
    previous = item.status
    item.status = ReviewItem.Status.EXPIRED
    item.verdict = ReviewItem.Verdict.FALLBACK
    item.decision_override = done.decision_override
    item.note = FALLBACK_NOTES.get(fallback, f"Closed at its deadline: {fallback}.")
    item.closed_at = now
    item.save(update_fields=["status", "verdict", "decision_override", "note", "closed_at"])
    record(
        item,
        actor=None,
        action=ReviewEvent.Action.EXPIRED,
        from_status=previous,
        note=item.note,
        data={**done.data, "fallback": fallback, "due_at": item.due_at.isoformat()},
    )
    review_status_sync(subject.kind, subject.group_id, **done.changes)
    subject.kind.closed(subject.group_id, [item])
    return item
