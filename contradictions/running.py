"""Running a contradiction run: detect, arbitrate concurrently, build the consensus; failing it.

Running follows the debates' guarantees: one runner per run (a PostgreSQL advisory lock), a
conditional claim (queued -> running), every arbitration stored as soon as it returns, and a
re-run that skips what is stored, so a task delivered twice, or re-run after its worker died,
never pays for an arbitration twice. Flagged contradictions become review items in the
transaction that completes the run.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import Prefetch, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from agents import gateway
from agents.errors import BudgetStop, LLMError, failure_text
from budgets import services as budgets
from contradictions import arbitration, consensus, detection
from contradictions.authority import Ranking
from contradictions.inputs import MAX_VALUE, VALUE_CONTEXT, VALUE_PLACES
from contradictions.models import (
    AgentReport,
    ArbitrationCall,
    Contradiction,
    ContradictionFinding,
    ContradictionRun,
    Finding,
    Resolution,
)
from contradictions.reviewing.items import (
    failure_items_close_for_rerun,
    review_item_for_failure,
    review_items_for_contradictions,
)
from runs import lifecycle, sweeping

logger = logging.getLogger(__name__)


class RunWork(lifecycle.Work):
    """Contradiction runs as durable work (`runs.lifecycle`): one runner per run, under its own
    advisory lock; a run failed for good gets a `run_failed` review item in the transaction that
    fails it."""

    model = ContradictionRun
    noun = "contradiction run"
    plural = "contradiction_runs"
    lock_prefix = "contradiction-run:"
    spending_prefix = "contradiction-run:"
    call_parent = "run"

    def execute(self, row: ContradictionRun) -> None:
        _Runner(row).execute()

    def readable_error(self, exc: BaseException) -> str:
        if isinstance(exc, BudgetStop):
            return f"Stopped at a spending limit, keeping every arbitration paid for. {exc}"
        if isinstance(exc, LLMError):
            kind = "permanent" if exc.permanent else "after retries"
            return failure_text(f"The arbitrator's model failed ({kind}): ", exc)
        return super().readable_error(exc)

    def is_transient(self, exc: BaseException) -> bool:
        return isinstance(exc, LLMError) and not exc.permanent

    def failed(self, row: ContradictionRun, cause: BaseException | None = None) -> None:
        review_item_for_failure(run=row, budget=isinstance(cause, BudgetStop))

    def requeued(self, pk, *, user, note: str, before: dict) -> None:
        failure_items_close_for_rerun(run_id=pk, user=user, note=note, data=before)


RunWork.call_model = ArbitrationCall
RUNS = RunWork()


def contradiction_run_execute(*, run_id, may_retry: bool = False) -> ContradictionRun | None:
    """Run (or resume) a contradiction run to its end. Safe to call twice, also at once.

    Returns the run, or None when another runner holds it or it has already ended. With
    `may_retry`, an arbitrator's model that stayed unavailable puts the run back to queued and
    raises `lifecycle.TransientFailure` (its task retries it later) instead of failing it.
    """
    return lifecycle.run(RUNS, run_id, may_retry=may_retry)


def contradiction_run_fail(*, run_id, error: str, only_after_attempts: int | None = None) -> bool:
    """Mark a run that cannot finish failed, with the reason, and queue it for review (a
    `run_failed` item, in the same transaction), whatever the cause: the sweeper giving up, a
    worker that died too often, the arbitrator's model failing, a time limit.

    Leaves ended runs alone; with `only_after_attempts`, also those started fewer times than
    that. Returns whether it failed the run.
    """
    return lifecycle.fail(RUNS, run_id, error=error, only_after_attempts=only_after_attempts)


def recover_stuck_contradiction_runs(
    *, now: datetime | None = None, limit: int = 200
) -> sweeping.SweepReport:
    """Re-enqueue stuck runs, or give up on those re-enqueued too often (see `runs.lifecycle`),
    each under the run's own advisory lock."""
    return sweeping.recover_stuck(RUNS, now=now, limit=limit)


def claim_of(finding: Finding) -> detection.Claim:
    return detection.Claim(
        ref=finding.pk,
        report=finding.report_id,
        agent=finding.report.agent_name,
        metric=finding.metric,
        value=finding.value,
        unit=finding.unit,
        source=finding.source,
        period=finding.period,
        citation=finding.citation,
        confidence=finding.confidence,
        interpretation=finding.interpretation,
    )


def _stored_case(row: Contradiction) -> detection.Contradiction:
    """A stored contradiction as the pure modules know it (members and resolution prefetched)."""
    members = sorted(row.members.all(), key=lambda m: m.slot)
    claims = tuple(claim_of(m.finding) for m in members)
    by_slot = {m.slot: m.finding_id for m in members}
    pairs = tuple(
        detection.ConflictPair(
            first=by_slot[p["slots"][0]],
            second=by_slot[p["slots"][1]],
            rules=tuple(p["rules"]),
            severity=p["severity"],
            relative_gap=None if p.get("gap") is None else Decimal(p["gap"]),
            reasons=tuple(p.get("reasons", ())),
        )
        for p in row.pairs
    )
    return detection.Contradiction(
        metric_key=row.metric_key,
        metric=row.metric,
        claims=claims,
        pairs=pairs,
        rules=tuple(row.rules),
        severity=row.severity,
        relative_gap=row.relative_gap,
    )


def _contradiction_rows(run_id):
    return (
        Contradiction.objects.filter(run_id=run_id)
        .select_related("resolution", "call", "reviewed_by")
        .prefetch_related(
            Prefetch(
                "members",
                queryset=ContradictionFinding.objects.select_related("finding__report"),
            )
        )
        .order_by("position")
    )


class _Runner:
    """Detection, then the arbitrations of every contradiction at once, then the consensus."""

    def __init__(self, run: ContradictionRun):
        self.run = run
        self.ranking = Ranking.from_snapshot(run.authority)
        self.heartbeat = lifecycle.Heartbeat(ContradictionRun, run.pk)
        self.subject = RUNS.spending_subject(run.pk)
        self.spender = budgets.spender_for(subject=self.subject, user_id=run.created_by_id)

    def run_thresholds(self) -> detection.Thresholds:
        return detection.Thresholds(self.run.value_threshold, self.run.confidence_gap)

    def execute(self) -> None:
        if self.run.detected_at is None:
            self._detect()
        rows = list(_contradiction_rows(self.run.id))
        todo = [r for r in rows if not hasattr(r, "resolution")]
        if todo:
            self._arbitrate(todo)
        elif not rows:
            ContradictionRun.objects.filter(id=self.run.id).update(arbitration_ms=0)
        self._finish()

    # detection

    @transaction.atomic
    def _detect(self) -> None:
        findings = list(
            Finding.objects.filter(run=self.run)
            .select_related("report")
            .order_by("report__position", "position")
        )
        found = detection.detect([claim_of(f) for f in findings], self.run_thresholds())
        rows = Contradiction.objects.bulk_create(
            Contradiction(
                run=self.run,
                position=i,
                metric=c.metric[:200],
                metric_key=c.metric_key[:200],
                rules=list(c.rules),
                severity=c.severity,
                severity_reason=c.severity_reason,
                relative_gap=c.relative_gap,
                pairs=[
                    {
                        "slots": list(slots),
                        "rules": list(p.rules),
                        "severity": p.severity,
                        "gap": None if p.relative_gap is None else str(p.relative_gap),
                        "reasons": list(p.reasons),
                    }
                    for slots, p in zip(detection.slot_pairs(c), c.pairs, strict=True)
                ],
            )
            for i, c in enumerate(found.contradictions, start=1)
        )
        ContradictionFinding.objects.bulk_create(
            ContradictionFinding(contradiction=row, finding_id=claim.ref, slot=slot)
            for row, c in zip(rows, found.contradictions, strict=True)
            for slot, claim in enumerate(c.claims, start=1)
        )
        updated = ContradictionRun.objects.filter(id=self.run.id, detected_at__isnull=True).update(
            detected_at=timezone.now(),
            contradictions_found=len(rows),
            detection_notes=list(found.notes),
        )
        if not updated:
            raise RuntimeError("the run's detection was stored by another runner")

    # arbitration

    def _arbitrate(self, rows: list[Contradiction]) -> None:
        cases = {row.pk: _stored_case(row) for row in rows}
        requests = {row.pk: arbitration.build_messages(cases[row.pk], self.ranking) for row in rows}
        calls = ArbitrationCall.objects.bulk_create(
            [
                ArbitrationCall(
                    run=self.run,
                    contradiction=row,
                    key=f"arbitrate:{row.position}",
                    model=self.run.model,
                    prompt=requests[row.pk],
                    status=ArbitrationCall.Status.PENDING,
                )
                for row in rows
            ],
            update_conflicts=True,
            unique_fields=["run", "key"],
            update_fields=["status", "prompt", "model"],
        )
        call_ids = {row.pk: call.pk for row, call in zip(rows, calls, strict=True)}
        by_pk = {row.pk: row for row in rows}
        started = time.monotonic()
        errors = gateway.complete_concurrently(
            {
                row.pk: {
                    "model": self.run.model,
                    "messages": requests[row.pk],
                    "temperature": 0.0,
                    "spender": self.spender,
                }
                for row in rows
            },
            max_workers=settings.CONTRADICTION_MAX_CONCURRENT_CALLS,
            on_returned=lambda answered: self._store(
                [(by_pk[pk], cases[pk], call_ids[pk], response) for pk, response in answered]
            ),
            on_failed=lambda pk, exc: ArbitrationCall.objects.filter(pk=call_ids[pk]).update(
                status=ArbitrationCall.Status.FAILED,
                error=failure_text("", exc)[:5000],
                attempts=exc.attempts,
            ),
        )
        ContradictionRun.objects.filter(id=self.run.id).update(
            arbitration_ms=int((time.monotonic() - started) * 1000)
        )
        if errors:
            stops = [e for e in errors if isinstance(e, BudgetStop)]
            raise (stops or errors)[0]

    @transaction.atomic
    def _store(
        self,
        answered: list[tuple[Contradiction, detection.Contradiction, int, gateway.LLMResponse]],
    ) -> None:
        """Store the arbitrations that returned together: each call's record and resolution."""
        calls, resolutions = [], []
        for row, case, call_id, response in answered:
            verdict = arbitration.parse_verdict(response.content, agents=len(case.claims))
            notes = list(verdict.notes)
            value = verdict.recommended_value
            if value is not None and abs(value) >= MAX_VALUE:
                notes.append("recommended_value too large to store; ignored")
                value = None
            elif value is not None:
                value = value.quantize(VALUE_PLACES, context=VALUE_CONTEXT)
            calls.append(
                ArbitrationCall(
                    pk=call_id,
                    **ArbitrationCall.done_fields(
                        response,
                        parsed=verdict.as_dict(),
                        parse_failed=verdict.parse_failed,
                        error=verdict.error,
                    ),
                )
            )
            resolutions.append(
                Resolution(
                    contradiction=row,
                    call_id=call_id,
                    resolution=verdict.resolution,
                    action=verdict.action,
                    chosen_finding_id=case.claims[verdict.chosen - 1].ref
                    if verdict.chosen
                    else None,
                    explanation=verdict.explanation,
                    recommended_value=value,
                    recommended_citation=verdict.recommended_citation,
                    confidence=verdict.confidence,
                    parse_failed=verdict.parse_failed,
                    error=verdict.error,
                    notes=notes,
                )
            )
        ArbitrationCall.objects.bulk_update(calls, ArbitrationCall.DONE_FIELDS)
        for _, _, call_id, response in answered:  # attempts cut off at the timeout
            if response.lost:
                ArbitrationCall.objects.filter(pk=call_id).update(
                    **ArbitrationCall.lost_added(response.lost)
                )
        Resolution.objects.bulk_create(resolutions)
        self.heartbeat.beat()

    # consensus

    def _finish(self) -> None:
        run = self.run
        with transaction.atomic():
            built, flagged = consensus_of(
                run.id, Ranking.from_snapshot(run.authority), run.min_confidence
            )
            totals = ArbitrationCall.objects.filter(run_id=run.id).aggregate(
                tokens_in=Coalesce(Sum("tokens_in"), 0),
                tokens_out=Coalesce(Sum("tokens_out"), 0),
                cost=Coalesce(Sum("cost_usd"), Decimal(0)),
            )
            finished = ContradictionRun.objects.filter(
                id=run.id, status=ContradictionRun.Status.RUNNING
            ).update(
                status=ContradictionRun.Status.COMPLETED,
                resolved_count=built.resolved,
                flagged_count=built.flagged,
                reviewed_count=built.reviewed,
                consensus_narrative=built.narrative,
                consensus={"cases": [c.as_dict() for c in built.cases]},
                adjusted_reports=built.adjusted_reports,
                tokens_in=totals["tokens_in"],
                tokens_out=totals["tokens_out"],
                cost_usd=totals["cost"],
                completed_at=timezone.now(),
                error="",
            )
            if not finished:
                raise RuntimeError("the run stopped running while it was being completed")
            # Its admission ends with it: what it held is given back, what it spent counted.
            budgets.close(self.subject)
            # Flagged contradictions are queued in the transaction that completes the run.
            review_items_for_contradictions(run_id=run.id, flagged=flagged)


def consensus_of(run_id, ranking: Ranking, min_confidence: float):
    """The consensus of a run from what is stored, and the flagged contradictions with their
    outcome (for the review queue)."""
    reports = list(
        AgentReport.objects.filter(run_id=run_id).prefetch_related(
            Prefetch("findings", queryset=Finding.objects.select_related("report"))
        )
    )
    rows = list(_contradiction_rows(run_id))
    cases = []
    for row in rows:
        stored = _stored_case(row)
        resolution = getattr(row, "resolution", None)
        verdict = None
        if resolution is not None:
            verdict = arbitration.Verdict(
                resolution=resolution.resolution,
                action=resolution.action,
                confidence=resolution.confidence,
                explanation=resolution.explanation,
                recommended_value=resolution.recommended_value,
                recommended_citation=resolution.recommended_citation,
                chosen=next(
                    (
                        i
                        for i, c in enumerate(stored.claims, start=1)
                        if c.ref == resolution.chosen_finding_id
                    ),
                    None,
                ),
                parse_failed=resolution.parse_failed,
                error=resolution.error,
                notes=tuple(resolution.notes),
            )
        cases.append(consensus.Case(row.pk, stored, verdict, _review_choice(row, stored)))
    built = consensus.build_consensus(
        reports=[
            consensus.Report(
                r.pk, r.agent_name, r.confidence, tuple(claim_of(f) for f in r.findings.all())
            )
            for r in reports
        ],
        cases=cases,
        ranking=ranking,
        min_confidence=min_confidence,
    )
    rows_by_id = {row.pk: row for row in rows}
    flagged = [(rows_by_id[o.ref], o) for o in built.cases if o.flagged_by_machine]
    return built, flagged


DISMISSED = "dismissed"


def _review_choice(row: Contradiction, case: detection.Contradiction):
    if not row.review_action:
        return None
    reviewer = ""
    if row.reviewed_by is not None:
        reviewer = row.reviewed_by.get_full_name() or row.reviewed_by.get_username()
    if row.review_action == DISMISSED:
        return consensus.ReviewChoice(reviewer=reviewer, note=row.review_note, dismissed=True)
    chosen = next(
        (i for i, c in enumerate(case.claims, start=1) if c.ref == row.review_finding_id), None
    )
    return consensus.ReviewChoice(
        action=row.review_action, chosen=chosen, reviewer=reviewer, note=row.review_note
    )
