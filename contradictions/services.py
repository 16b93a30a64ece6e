"""Writes that create contradiction runs: from reports, or from a completed debate's agents.
Running one is `contradictions.running`; an analyst's pick and a retry, `contradictions.acting`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from agents import routing
from budgets import services as budgets
from contradictions import detection
from contradictions.authority import Ranking
from contradictions.from_debate import Position, reports_from_positions
from contradictions.inputs import ReportInput, check_reports
from contradictions.models import (
    AgentReport,
    ContradictionRun,
    Finding,
    SourceAuthority,
)
from contradictions.running import RUNS
from debates.models import Debate
from runs import lifecycle

logger = logging.getLogger(__name__)


def authority_ranking() -> Ranking:
    """The active source ranking, as the admin left it."""
    return Ranking.from_snapshot(
        {"name": s.name, "aliases": s.aliases, "rank": s.rank}
        for s in SourceAuthority.objects.filter(is_active=True)
    )


def _threshold(value, setting: str, low: float, high: float, field: str) -> float:
    value = float(getattr(settings, setting) if value is None else value)
    if not low < value <= high:
        raise ValidationError({field: f"{field} must be above {low:g} and at most {high:g}."})
    return value


@transaction.atomic
def contradiction_run_create(
    *,
    reports: Sequence[ReportInput],
    created_by=None,
    origin: str = ContradictionRun.Origin.API,
    debate: Debate | None = None,
    value_threshold: float | None = None,
    confidence_gap: float | None = None,
    enqueue: bool = True,
    api_token=None,
) -> ContradictionRun:
    """Store a queued run with its reports and claims, and enqueue it (on commit). It is
    charged to `created_by` and `api_token` (their spending limits apply to its arbitrations).

    Raises `ValidationError` (field -> message) and stores nothing on bad input, or when the
    run's worst case does not fit a spending limit (`runs.lifecycle.admit`;
    `budgets.limits.BudgetExceeded`).
    """
    check_reports(reports)
    threshold = _threshold(
        value_threshold, "CONTRADICTION_VALUE_THRESHOLD", 0, 1, "value_threshold"
    )
    gap = _threshold(confidence_gap, "CONTRADICTION_CONFIDENCE_GAP", 0, 1, "confidence_gap")
    run = ContradictionRun.objects.create(
        origin=origin,
        created_by=created_by,
        debate=debate,
        value_threshold=Decimal(str(threshold)).quantize(Decimal("0.0001")),
        confidence_gap=gap,
        min_confidence=settings.CONTRADICTION_MIN_CONFIDENCE,
        model=routing.pinned_model(settings.CONTRADICTION_ARBITRATOR_MODEL)
        or routing.config().route(routing.ARBITRATION_STEP, routing.ARBITRATOR_ROLE),
        authority=authority_ranking().snapshot(),
    )
    stored = AgentReport.objects.bulk_create(
        AgentReport(run=run, position=i, agent_name=r.agent.strip(), confidence=r.confidence)
        for i, r in enumerate(reports, start=1)
    )
    Finding.objects.bulk_create(
        Finding(
            run=run,
            report=row,
            position=j,
            metric=f.metric.strip(),
            metric_key=detection.normalise_metric(f.metric),
            value=f.value,
            unit=f.unit,
            citation=f.citation,
            source=f.source,
            period=f.period,
            confidence=r.confidence if f.confidence is None else f.confidence,
            interpretation=f.interpretation,
            text=f.text,
        )
        for row, r in zip(stored, reports, strict=True)
        for j, f in enumerate(r.findings, start=1)
    )
    charge = budgets.charge_open(
        subject=RUNS.spending_subject(run.pk), user=created_by, token=api_token
    )
    # Admitted as a debate is: its worst case at its arbitrator's prices.
    lifecycle.admit([(charge, [run.model])], user=created_by, token=api_token)
    if enqueue:
        transaction.on_commit(lambda: RUNS.enqueue(str(run.id)))
    return run


def debate_positions(debate: Debate) -> list[Position]:
    """Each agent's final position: its vote, or its last statement when there are no votes."""
    votes = list(debate.votes.select_related("participant").order_by("participant__position"))
    if votes:
        return [
            Position(v.participant.name, v.decision, v.confidence, v.risk, v.reasoning)
            for v in votes
        ]
    last: dict[int, object] = {}
    for s in debate.statements.select_related("participant").order_by("round__number", "id"):
        last[s.participant_id] = s
    return [
        Position(s.participant.name, s.decision, s.confidence, s.risk, s.reasoning)
        for s in sorted(last.values(), key=lambda s: s.participant.position)
    ]


def contradiction_run_from_debate(
    *,
    debate_id,
    created_by=None,
    reports: Sequence[ReportInput] | None = None,
    value_threshold: float | None = None,
    confidence_gap: float | None = None,
    enqueue: bool = True,
    api_token=None,
) -> ContradictionRun:
    """A run on a completed debate: the given `reports` attached to it, or, without any, reports
    derived from its agents' final positions (see `contradictions.from_debate`)."""
    debate = Debate.objects.filter(id=debate_id).first()
    if debate is None:
        raise ValidationError({"debate": "There is no such debate."})
    if not reports:
        if debate.status != Debate.Status.COMPLETED:
            raise ValidationError(
                {
                    "debate": f"The debate is {debate.status}; its agents' positions are known "
                    "once it has completed."
                }
            )
        positions = debate_positions(debate)
        if len(positions) < 2:
            raise ValidationError(
                {"debate": "The debate has fewer than two agent positions to compare."}
            )
        day = (debate.completed_at or debate.created_at).date().isoformat()
        reports = reports_from_positions(
            positions, source=f"{debate.protocol} debate {str(debate.id)[:8]}", period=day
        )
    return contradiction_run_create(
        reports=reports,
        created_by=created_by,
        origin=ContradictionRun.Origin.DEBATE,
        debate=debate,
        value_threshold=value_threshold,
        confidence_gap=confidence_gap,
        enqueue=enqueue,
        api_token=api_token,
    )
