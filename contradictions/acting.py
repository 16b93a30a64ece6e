"""An analyst's actions on contradiction runs: the value to keep for a flagged contradiction
(called by the review queue, see `contradictions.reviewing`), and queueing a failed run again.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils import timezone

from contradictions import arbitration, consensus
from contradictions.authority import Ranking
from contradictions.models import (
    Contradiction,
    ContradictionRun,
)
from contradictions.running import DISMISSED, RUNS, claim_of, consensus_of
from runs import lifecycle


def review_choices(contradiction: Contradiction) -> list[tuple[str, str]]:
    """What an analyst may keep: each conflicting claim, or all of them with their context."""
    members = sorted(contradiction.members.all(), key=lambda m: m.slot)
    choices = [
        (f"finding:{m.finding_id}", f"Keep {consensus.cite(claim_of(m.finding))}") for m in members
    ]
    choices.append((arbitration.USE_BOTH, "Keep every value, each in its own context"))
    return choices


def contradiction_apply_review(*, contradiction_id, user, choice: str, note: str) -> Contradiction:
    """Record an analyst's pick (``finding:<id>``, ``use_both`` or ``dismissed``) on a flagged
    contradiction and rebuild its run's consensus and adjusted reports with it.

    Called by the review service inside the transaction that closes the review item (which
    holds the locks and checks the item's state). Raises `ValidationError` on a bad choice.
    """
    row = (
        Contradiction.objects.select_for_update(of=("self",))
        .select_related("run")
        .get(pk=contradiction_id)
    )
    members = {m.finding_id: m.slot for m in row.members.all()}
    finding_id = None
    if choice.startswith("finding:"):
        try:
            finding_id = int(choice.split(":", 1)[1])
        except ValueError:
            finding_id = None
        if finding_id not in members:
            raise ValidationError(
                {"choice": "Choose one of this contradiction's values, or keep them all."}
            )
        action = f"use_agent{members[finding_id]}"
    elif choice in (arbitration.USE_BOTH, DISMISSED):
        action = choice
    else:
        raise ValidationError({"choice": "Choose the value to keep, or keep them all."})
    row.review_action = action
    row.review_finding_id = finding_id
    row.reviewed_by = user
    row.reviewed_at = timezone.now()
    row.review_note = note
    row.save(
        update_fields=[
            "review_action",
            "review_finding",
            "reviewed_by",
            "reviewed_at",
            "review_note",
        ]
    )
    run = row.run
    built, _ = consensus_of(run.id, Ranking.from_snapshot(run.authority), run.min_confidence)
    ContradictionRun.objects.filter(id=run.id).update(
        reviewed_count=built.reviewed,
        consensus_narrative=built.narrative,
        consensus={"cases": [c.as_dict() for c in built.cases]},
        adjusted_reports=built.adjusted_reports,
        updated_at=timezone.now(),
    )
    return row


def contradiction_run_retry(*, run_id, user=None, note: str = "") -> bool:
    """Queue a failed run again. Its stored detection and arbitrations are kept, so only what
    is missing is done (and paid for). The counters start again (`attempts`, `recoveries`), so
    the sweeper's bounds hold anew, and the run's open `run_failed` review item is closed as
    re-run by `user` (raises `reviews.events.ReviewConflict` when another analyst holds it).
    False when the run is not failed."""
    return lifecycle.requeue_failed(RUNS, run_id, user=user, note=note)
