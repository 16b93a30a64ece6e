"""Writes for the review queue: putting outcomes in front of analysts, and their actions.

Every action runs in one transaction, locks the rows it changes (always the debate, or for a
contradiction's item or a failed run's item the run, first, then the item, so two actions never
wait on each other in a circle), checks the state it expects and records a `ReviewEvent`.
When two analysts act on the same item at once, the second one to get the lock sees the first
one's change and gets a `ReviewConflict` saying who got there first.
Bad input raises `ValidationError` (field -> message) and changes nothing.
"""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone
from django.utils.timesince import timesince

from contradictions.detection import format_value
from contradictions.models import ContradictionRun
from debates import webhooks
from debates.models import Debate, Statement
from debates.protocols import ProtocolError, get_protocol
from reviews import triage
from reviews.models import ReviewEvent, ReviewItem

logger = logging.getLogger(__name__)


class ReviewConflict(Exception):
    """The item is not in the state the action needs (someone else got there first)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


# --- enqueueing -------------------------------------------------------------------------------


def enabled_reasons() -> set[str]:
    return set(settings.REVIEW_ENQUEUE_REASONS) & set(triage.REASONS)


def review_items_for_debate(*, debate: Debate | Any) -> list[ReviewItem]:
    """Open one review item per reason this completed debate needs a human. Safe to repeat.

    Called by the debate runner inside the transaction that completes the debate, so a debate
    is never completed without its review items. A reason that already has an item for this
    debate (open or closed) is not raised again; the partial unique constraint (one active
    item per debate and reason) and ON CONFLICT DO NOTHING back that up. Returns the items
    created by this call.
    """
    debate_id = getattr(debate, "pk", debate)
    with transaction.atomic():
        locked = (
            Debate.objects.select_for_update()
            .only("id", "status", "metadata", "injection_findings")
            .filter(id=debate_id)
            .first()
        )
        if locked is None or locked.status != Debate.Status.COMPLETED:
            return []
        enabled = enabled_reasons()
        flags = [
            f for f in triage.flags_for(locked.metadata, locked.injection_findings)
            if f.reason in enabled
        ]
        if not flags:
            return []
        raised_before = set(
            ReviewItem.objects.filter(debate_id=debate_id).values_list("reason", flat=True)
        )
        new = [f for f in flags if f.reason not in raised_before]
        if not new:
            return []
        ReviewItem.objects.bulk_create(
            [
                ReviewItem(
                    debate_id=debate_id,
                    reason=f.reason,
                    priority=f.priority,
                    summary=f.summary,
                    details=f.details,
                )
                for f in new
            ],
            ignore_conflicts=True,
        )
        # The debate row is locked, so every item with these reasons was created just now.
        created = list(
            ReviewItem.objects.filter(debate_id=debate_id, reason__in=[f.reason for f in new])
        )
        ReviewEvent.objects.bulk_create(
            ReviewEvent(
                item=item,
                action=ReviewEvent.Action.CREATED,
                to_status=item.status,
                note=item.summary,
            )
            for item in created
        )
        _sync_debate(debate_id)
    logger.info("debate %s: review items %s", debate_id, ", ".join(i.reason for i in created))
    return created


def review_items_for_contradictions(*, run_id, flagged: list) -> list[ReviewItem]:
    """Open a `flag_for_review` item for each contradiction of a run the consensus could not
    settle. `flagged`: (contradiction, consensus outcome) pairs. Safe to repeat.

    Called by the contradiction runner inside the transaction that completes the run. A
    contradiction that already has an item of this reason (open or closed) is not raised again.
    """
    if triage.FLAG_FOR_REVIEW not in enabled_reasons() or not flagged:
        return []
    raised_before = set(
        ReviewItem.objects.filter(
            contradiction__run_id=run_id, reason=triage.FLAG_FOR_REVIEW
        ).values_list("contradiction_id", flat=True)
    )
    flags = {
        row.pk: triage.contradiction_flag(
            metric=row.metric, severity=row.severity, reason=outcome.reason,
            rules=list(row.rules),
        )
        for row, outcome in flagged
        if row.pk not in raised_before
    }
    if not flags:
        return []
    ReviewItem.objects.bulk_create(
        [
            ReviewItem(contradiction_id=pk, reason=f.reason, priority=f.priority,
                       summary=f.summary, details=f.details)
            for pk, f in flags.items()
        ],
        ignore_conflicts=True,
    )
    created = list(
        ReviewItem.objects.filter(contradiction_id__in=list(flags), reason=triage.FLAG_FOR_REVIEW)
        .exclude(events__isnull=False)
    )
    ReviewEvent.objects.bulk_create(
        ReviewEvent(item=item, action=ReviewEvent.Action.CREATED, to_status=item.status,
                    note=item.summary)
        for item in created
    )
    _sync_run(run_id)
    logger.info("contradiction run %s: %d review item(s)", run_id, len(created))
    return created


def review_item_for_failure(*, debate: Debate | None = None,
                            run: ContradictionRun | None = None) -> ReviewItem | None:
    """Open the `debate_failed` (or `run_failed`) item of a debate (or contradiction run) that
    has just been failed for good, with its error, attempts and recoveries.

    Called inside the transaction that fails it, with the debate's (run's) row locked and
    already saved as failed, so a failure is never stored without its item. One active item per
    subject and reason: while one is open or claimed nothing more is queued; once a re-run
    closed it, failing again opens a new one. Returns the item created, if any.
    """
    if (debate is None) == (run is None):
        raise ValueError("pass exactly one of debate and run")
    reason = triage.DEBATE_FAILED if debate is not None else triage.RUN_FAILED
    if reason not in enabled_reasons():
        return None
    subject = {"debate": debate} if debate is not None else {"contradiction_run": run}
    if ReviewItem.objects.filter(**subject, reason=reason, status__in=ReviewItem.ACTIVE).exists():
        return None
    failed = debate or run
    max_risk = None
    if debate is not None:
        max_risk = Statement.objects.filter(debate=debate).aggregate(m=Max("risk"))["m"]
    flag = triage.failure_flag(reason=reason, error=failed.error, attempts=failed.attempts,
                               recoveries=failed.recoveries, max_risk=max_risk)
    item = ReviewItem.objects.create(**subject, reason=flag.reason, priority=flag.priority,
                                     summary=flag.summary, details=flag.details)
    ReviewEvent.objects.create(item=item, action=ReviewEvent.Action.CREATED,
                               to_status=item.status, note=item.summary)
    if debate is not None:
        _sync_debate(debate.pk)
    else:
        _sync_run(run.pk)
    logger.info("%s %s failed: review item #%s", "debate" if debate else "contradiction run",
                failed.pk, item.pk)
    return item


def failure_items_close_for_rerun(*, debate_id=None, run_id=None, user=None, note: str = "",
                                  data: dict | None = None) -> list[ReviewItem]:
    """Close the open failure item of a failed debate (or run) that is being queued again, as
    resolved with the verdict `rerun`, by `user` (None: the system).

    Called by the re-run services (`debates.recovery.debate_rerun`,
    `contradictions.services.contradiction_run_retry`) inside their transaction, with the
    subject's row locked. Raises `ReviewConflict` when another analyst holds the item.
    """
    subject = {"debate_id": debate_id} if debate_id is not None else {
        "contradiction_run_id": run_id}
    items = list(
        ReviewItem.objects.select_for_update()
        .filter(**subject, reason__in=triage.FAILURE_REASONS, status__in=ReviewItem.ACTIVE)
        .order_by("id")
    )
    now = timezone.now()
    for item in items:
        if user is not None:
            _conflict_if_taken(item, user)
        previous = item.status
        item.status = ReviewItem.Status.RESOLVED
        item.verdict = ReviewItem.Verdict.RERUN
        item.note = (note or "").strip()
        item.assignee = user if user is not None else item.assignee
        item.claimed_at = item.claimed_at or now
        item.closed_at = now
        item.save(update_fields=["status", "verdict", "note", "assignee", "claimed_at",
                                 "closed_at"])
        _record(item, actor=user, action=ReviewEvent.Action.RESOLVED, from_status=previous,
                note=item.note, data={"verdict": ReviewItem.Verdict.RERUN, **(data or {})})
    if debate_id is not None:
        _sync_debate(debate_id)
        for item in items:
            webhooks.notify_review_resolved(debate_id=debate_id, item_id=item.pk)
    elif items:
        _sync_run(run_id)
    return items


# --- analysts' actions ------------------------------------------------------------------------


def _require_staff(user) -> None:
    if not (user and user.is_authenticated and user.is_active and user.is_staff):
        raise PermissionDenied("Only staff may work the review queue.")


def _name(user) -> str:
    if user is None:
        return "someone"
    return user.get_full_name() or user.get_username()


def _require_note(note: str | None, action: str) -> str:
    note = (note or "").strip()
    if not note:
        raise ValidationError({"note": f"A note is required to {action}: say why."})
    return note


class Subject(NamedTuple):
    """What an item is about: a debate, or a contradiction run (through one of its
    contradictions, or directly when the run failed)."""

    debate_id: Any
    run_id: Any
    contradiction_id: Any


def _subject_of(item_id) -> Subject:
    row = (
        ReviewItem.objects.filter(pk=item_id)
        .values_list("debate_id", "contradiction__run_id", "contradiction_run_id",
                     "contradiction_id")
        .first()
    )
    if row is None:
        raise ReviewItem.DoesNotExist(f"There is no review item #{item_id}.")
    debate_id, contradiction_run_id, failed_run_id, contradiction_id = row
    return Subject(debate_id, contradiction_run_id or failed_run_id, contradiction_id)


def _lock_run(run_id) -> ContradictionRun:
    return (
        ContradictionRun.objects.select_for_update().only("id", "status", "review_status")
        .get(id=run_id)
    )


def _lock_item(item_id) -> ReviewItem:
    # No join here: after waiting for the lock, PostgreSQL returns the item's latest version
    # but a joined row may still be the one read before the wait.
    return ReviewItem.objects.select_for_update().get(pk=item_id)


def _lock_debate(debate_id) -> Debate:
    return (
        Debate.objects.select_for_update()
        .only("id", "protocol", "status", "decision", "decision_override", "review_status")
        .get(id=debate_id)
    )


def _lock_subject(subject: Subject) -> Debate | ContradictionRun:
    if subject.debate_id is not None:
        return _lock_debate(subject.debate_id)
    return _lock_run(subject.run_id)


def _conflict_if_taken(item: ReviewItem, user) -> None:
    """Raise unless the item is open or already claimed by `user`."""
    if item.status == ReviewItem.Status.CLAIMED and item.assignee_id != user.pk:
        since = timesince(item.claimed_at) if item.claimed_at else "a moment"
        raise ReviewConflict(
            f"Review item #{item.pk} was claimed by {_name(item.assignee)} {since} ago; "
            "it stays theirs until they release it."
        )
    if item.status in ReviewItem.CLOSED:
        raise ReviewConflict(
            f"Review item #{item.pk} was already {item.status} by {_name(item.assignee)}; "
            "nothing more to do."
        )


def _record(item: ReviewItem, *, actor, action, from_status: str, note: str = "",
            data: dict | None = None) -> ReviewEvent:
    return ReviewEvent.objects.create(
        item=item,
        actor=actor,
        action=action,
        from_status=from_status,
        to_status=item.status,
        note=note,
        data=data or {},
    )


def _sync_debate(debate_id, **changes) -> None:
    """Keep `Debate.review_status` in step with its items: pending while any is active."""
    counts = ReviewItem.objects.filter(debate_id=debate_id).aggregate(
        total=Count("id"),
        active=Count("id", filter=Q(status__in=ReviewItem.ACTIVE)),
        resolved=Count("id", filter=Q(status=ReviewItem.Status.RESOLVED)),
    )
    if counts["active"]:
        status = Debate.ReviewStatus.PENDING
    elif counts["resolved"]:
        status = Debate.ReviewStatus.RESOLVED
    elif counts["total"]:
        status = Debate.ReviewStatus.DISMISSED
    else:
        status = Debate.ReviewStatus.NONE
    Debate.objects.filter(id=debate_id).update(
        review_status=status, updated_at=timezone.now(), **changes
    )


def _sync_run(run_id) -> None:
    """Keep `ContradictionRun.review_status` in step with its contradictions' items."""
    counts = ReviewItem.objects.filter(
        Q(contradiction__run_id=run_id) | Q(contradiction_run_id=run_id)
    ).aggregate(
        total=Count("id"),
        active=Count("id", filter=Q(status__in=ReviewItem.ACTIVE)),
        resolved=Count("id", filter=Q(status=ReviewItem.Status.RESOLVED)),
    )
    if counts["active"]:
        status = ContradictionRun.ReviewStatus.PENDING
    elif counts["resolved"]:
        status = ContradictionRun.ReviewStatus.RESOLVED
    elif counts["total"]:
        status = ContradictionRun.ReviewStatus.DISMISSED
    else:
        status = ContradictionRun.ReviewStatus.NONE
    ContradictionRun.objects.filter(id=run_id).update(
        review_status=status, updated_at=timezone.now()
    )


@transaction.atomic
def review_claim(*, item_id, user) -> ReviewItem:
    """Assign an open item to `user`. Claiming an item you already hold changes nothing."""
    _require_staff(user)
    item = _lock_item(item_id)
    if item.status == ReviewItem.Status.CLAIMED and item.assignee_id == user.pk:
        return item
    _conflict_if_taken(item, user)
    previous = item.status
    item.status = ReviewItem.Status.CLAIMED
    item.assignee = user
    item.claimed_at = timezone.now()
    item.save(update_fields=["status", "assignee", "claimed_at"])
    _record(item, actor=user, action=ReviewEvent.Action.CLAIMED, from_status=previous)
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
            f"Review item #{item.pk} is claimed by {_name(item.assignee)}; only they (or a "
            "superuser) can release it."
        )
    holder = item.assignee
    item.status = ReviewItem.Status.OPEN
    item.assignee = None
    item.claimed_at = None
    item.save(update_fields=["status", "assignee", "claimed_at"])
    data = {} if holder is None or holder.pk == user.pk else {"released_from": _name(holder)}
    _record(item, actor=user, action=ReviewEvent.Action.RELEASED,
            from_status=ReviewItem.Status.CLAIMED, note=(note or "").strip(), data=data)
    return item


def allowed_decisions(debate: Debate) -> tuple[str, ...]:
    try:
        return tuple(get_protocol(debate.protocol).decisions)
    except ProtocolError:
        return ()


@transaction.atomic
def review_resolve(*, item_id, user, verdict: str, note: str, decision: str = "") -> ReviewItem:
    """Close an item with a verdict: uphold the machine's decision, or override it.

    The item may be open (resolving claims it) or claimed by `user`. An override becomes the
    debate's `decision_override` (its effective decision); the machine's `decision` is never
    changed. The latest verdict on a debate is the one that stands: upholding clears an
    override an earlier item set. A failed debate has no machine decision: its item is
    resolved only by an override, which sets the decision the service answers with (the
    debate stays failed).
    """
    _require_staff(user)
    note = _require_note(note, "resolve")
    verdicts = (ReviewItem.Verdict.UPHOLD, ReviewItem.Verdict.OVERRIDE)
    if verdict not in verdicts:
        raise ValidationError({"verdict": "Choose a verdict: uphold or override."})
    subject = _subject_of(item_id)
    if subject.contradiction_id is not None:
        raise ValidationError(
            {"verdict": "This item is a contradiction: pick the value to keep instead."}
        )
    if subject.debate_id is None:
        raise ValidationError(
            {"verdict": "A failed contradiction run has no decision to uphold or override: "
             "re-run it, or dismiss the item."}
        )
    debate = _lock_debate(subject.debate_id)
    item = _lock_item(item_id)
    _conflict_if_taken(item, user)
    if verdict == ReviewItem.Verdict.UPHOLD and not debate.decision:
        raise ValidationError(
            {"verdict": f"The debate {debate.get_status_display().lower()} without a decision, "
             "so there is none to uphold: set the decision (override), re-run it, or dismiss "
             "the item."}
        )
    decision = (decision or "").strip().upper()
    if verdict == ReviewItem.Verdict.OVERRIDE:
        choices = allowed_decisions(debate)
        if not choices:
            raise ValidationError(
                {"decision": f"The debate's protocol '{debate.protocol}' no longer exists, so "
                 "no decision can be set: dismiss the item instead."}
            )
        if decision not in choices:
            replaces = f"replaces {debate.decision}" if debate.decision else "the debate gets"
            raise ValidationError(
                {"decision": f"Choose the decision that {replaces}: "
                 f"one of {', '.join(c for c in choices if c != debate.decision)}."}
            )
        if decision == debate.decision:
            raise ValidationError(
                {"decision": f"{decision} is the machine's decision already; to keep it, "
                 "uphold instead of overriding."}
            )
    else:
        decision = ""
    now = timezone.now()
    previous = item.status
    item.status = ReviewItem.Status.RESOLVED
    item.verdict = verdict
    item.decision_override = decision
    item.note = note
    item.assignee = user
    item.claimed_at = item.claimed_at or now
    item.closed_at = now
    item.save(update_fields=["status", "verdict", "decision_override", "note", "assignee",
                             "claimed_at", "closed_at"])
    _record(
        item, actor=user, action=ReviewEvent.Action.RESOLVED, from_status=previous, note=note,
        data={
            "verdict": verdict,
            "decision": decision or debate.decision,
            "machine_decision": debate.decision,
            "effective_before": debate.effective_decision,
        },
    )
    _sync_debate(debate.id, decision_override=decision)
    webhooks.notify_review_resolved(debate_id=debate.id, item_id=item.pk)
    return item


@transaction.atomic
def review_dismiss(*, item_id, user, note: str) -> ReviewItem:
    """Close an item that needs no verdict (e.g. a false alarm), saying why."""
    _require_staff(user)
    note = _require_note(note, "dismiss")
    debate_id, run_id, contradiction_id = subject = _subject_of(item_id)
    _lock_subject(subject)
    item = _lock_item(item_id)
    _conflict_if_taken(item, user)
    if contradiction_id is not None:
        from contradictions.services import contradiction_apply_review

        contradiction_apply_review(
            contradiction_id=item.contradiction_id, user=user, choice="dismissed", note=note
        )
    previous = item.status
    now = timezone.now()
    item.status = ReviewItem.Status.DISMISSED
    item.note = note
    item.assignee = user
    item.claimed_at = item.claimed_at or now
    item.closed_at = now
    item.save(update_fields=["status", "note", "assignee", "claimed_at", "closed_at"])
    _record(item, actor=user, action=ReviewEvent.Action.DISMISSED, from_status=previous,
            note=note)
    if debate_id is not None:
        _sync_debate(debate_id)
        webhooks.notify_review_resolved(debate_id=debate_id, item_id=item.pk)
    else:
        _sync_run(run_id)
    return item


def _describe_finding(finding) -> str:
    what = (format_value(finding.value, finding.unit) if finding.value is not None
            else finding.interpretation)
    return (f"{what} ({finding.source or 'source not stated'}, "
            f"{finding.period or 'period not stated'})")


@transaction.atomic
def review_keep(*, item_id, user, choice: str, note: str) -> ReviewItem:
    """Close a contradiction's item with the value to keep: ``finding:<id>`` (one of the
    conflicting claims) or ``use_both`` (every value, each in its context). The pick is applied
    to the run's adjusted reports and consensus narrative, in the same transaction."""
    _require_staff(user)
    note = _require_note(note, "resolve")
    _, run_id, contradiction_id = _subject_of(item_id)
    if run_id is None:
        raise ValidationError({"choice": "This item is a debate's: uphold or override instead."})
    if contradiction_id is None:
        raise ValidationError(
            {"choice": "This item is a failed run's: re-run it, or dismiss the item."}
        )
    _lock_run(run_id)
    item = _lock_item(item_id)
    _conflict_if_taken(item, user)
    from contradictions.services import contradiction_apply_review

    contradiction = contradiction_apply_review(
        contradiction_id=item.contradiction_id, user=user, choice=(choice or "").strip(),
        note=note,
    )
    now = timezone.now()
    previous = item.status
    item.status = ReviewItem.Status.RESOLVED
    item.verdict = ReviewItem.Verdict.KEEP
    item.note = note
    item.assignee = user
    item.claimed_at = item.claimed_at or now
    item.closed_at = now
    item.save(update_fields=["status", "verdict", "note", "assignee", "claimed_at",
                             "closed_at"])
    kept = contradiction.review_finding
    _record(
        item, actor=user, action=ReviewEvent.Action.RESOLVED, from_status=previous, note=note,
        data={
            "verdict": ReviewItem.Verdict.KEEP,
            "choice": contradiction.review_action,
            "finding": kept.pk if kept else None,
            "kept": _describe_finding(kept) if kept else "every value, each in its own context",
        },
    )
    _sync_run(run_id)
    return item


@transaction.atomic
def review_rerun(*, item_id, user, note: str = "") -> ReviewItem:
    """Close a failed debate's (or run's) item by queueing the debate (run) again, from what
    is stored: LLM calls already made are not made again. The note is optional.

    The item may be open or claimed by `user`; it is resolved with the verdict `rerun`. The
    counters start again (`attempts`, `recoveries`), so the sweeper's bounds hold anew, and a
    reviewer's decision is cleared (the re-run asks the machine). If the re-run fails too, a new
    item is queued.
    """
    _require_staff(user)
    subject = _subject_of(item_id)
    locked = _lock_subject(subject)
    item = _lock_item(item_id)
    _conflict_if_taken(item, user)
    if not item.is_failure:
        raise ValidationError(
            {"non_field_errors": f"Only a failed debate or run can be re-run; this item is "
             f"'{item.get_reason_display()}'. Resolve or dismiss it instead."}
        )
    failed = Debate.Status.FAILED if subject.debate_id else ContradictionRun.Status.FAILED
    if locked.status != failed:
        raise ReviewConflict(
            f"The {'debate' if subject.debate_id else 'run'} is {locked.status}, not failed: "
            "it was queued again already."
        )
    if subject.debate_id is not None:
        from debates.recovery import debate_rerun

        debate_rerun(debate_id=subject.debate_id, user=user, note=note)
    else:
        from contradictions.services import contradiction_run_retry

        contradiction_run_retry(run_id=subject.run_id, user=user, note=note)
    item.refresh_from_db()
    return item
