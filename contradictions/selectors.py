"""Reads: contradiction runs with everything they stored, arranged for the page and the API."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db.models import Prefetch, QuerySet

from contradictions.authority import Ranking
from contradictions.detection import RULE_LABELS, format_gap, format_value
from contradictions.models import (
    AgentReport,
    Contradiction,
    ContradictionFinding,
    ContradictionRun,
    Finding,
)
from contradictions.periods import parse_period
from reviews.models import ReviewItem


def runs_visible_to(user, queryset: QuerySet[ContradictionRun] | None = None):
    """Who holds `contradictions.view_contradictionrun` (roles Reviewer, Operator) sees every
    run; anyone else the runs they started."""
    runs = ContradictionRun.objects.select_related("created_by") if queryset is None else queryset
    if user.has_perm("contradictions.view_contradictionrun"):
        return runs
    return runs.filter(created_by=user)


def run_detail_queryset() -> QuerySet[ContradictionRun]:
    return ContradictionRun.objects.select_related("created_by", "debate").prefetch_related(
        Prefetch(
            "reports",
            queryset=AgentReport.objects.order_by("position").prefetch_related(
                Prefetch("findings", queryset=Finding.objects.order_by("position"))
            ),
        ),
        Prefetch(
            "contradictions",
            queryset=Contradiction.objects.order_by("position")
            .select_related("resolution", "call", "reviewed_by", "review_finding")
            .prefetch_related(
                Prefetch(
                    "members",
                    queryset=ContradictionFinding.objects.select_related(
                        "finding__report"
                    ).order_by("slot"),
                ),
                Prefetch(
                    "review_items",
                    queryset=ReviewItem.objects.select_related("assignee").order_by("-id"),
                ),
            ),
        ),
    )


def run_get_visible(*, run_id, user) -> ContradictionRun:
    """Raises `ContradictionRun.DoesNotExist` when `user` may not see it (so someone else's run
    looks the same as one that does not exist)."""
    return runs_visible_to(user, run_detail_queryset()).get(id=run_id)


def run_list(*, user, status: str = "", review_status: str | None = None):
    runs = (
        runs_visible_to(user)
        .select_related("created_by")
        .defer("consensus", "adjusted_reports", "authority", "detection_notes")
    )
    if status:
        runs = runs.filter(status=status)
    if review_status is not None:
        runs = runs.filter(review_status=review_status)
    return runs


# --- the page: each contradiction beside its resolution ----------------------------------------


@dataclass
class ClaimView:
    slot: int
    finding: Finding
    rank: int | None
    period_range: str
    chosen: bool = False
    kept_by_review: bool = False
    status: str = ""

    @property
    def value_text(self) -> str:
        f = self.finding
        return (
            format_value(f.value, f.unit)
            if f.value is not None
            else (f.interpretation or "no value")
        )


@dataclass
class CaseView:
    contradiction: Contradiction
    claims: list[ClaimView]
    pairs: list[dict[str, Any]]
    rules: list[tuple[str, str]]
    resolution: Any
    call: Any
    outcome: dict[str, Any]
    review_item: ReviewItem | None
    recommended_text: str = ""

    @property
    def is_multiway(self) -> bool:
        return len(self.claims) > 2


@dataclass
class RunPage:
    run: ContradictionRun
    reports: list[AgentReport]
    cases: list[CaseView]
    ranking: Ranking
    adjusted: list[dict[str, Any]] = field(default_factory=list)
    claims: int = 0


def arrange(run: ContradictionRun) -> RunPage:
    """A run from `run_detail_queryset()` arranged for reading; makes no queries."""
    ranking = Ranking.from_snapshot(run.authority)
    outcomes = {c["contradiction"]: c for c in (run.consensus or {}).get("cases", [])}
    reports = list(run.reports.all())
    statuses = {
        f["finding"]: f["status"] for r in run.adjusted_reports or [] for f in r.get("findings", [])
    }
    cases = []
    for row in run.contradictions.all():
        resolution = row.resolution if hasattr(row, "resolution") else None
        call = row.call if hasattr(row, "call") else None
        claims = []
        for m in row.members.all():
            period = parse_period(m.finding.period)
            claims.append(
                ClaimView(
                    slot=m.slot,
                    finding=m.finding,
                    rank=ranking.rank_of(m.finding.source),
                    period_range=str(period) if period else "",
                    chosen=bool(
                        resolution
                        and resolution.chosen_finding_id == m.finding_id
                        and resolution.action == f"use_agent{m.slot}"
                    ),
                    kept_by_review=row.review_finding_id == m.finding_id,
                    status=statuses.get(m.finding_id, ""),
                )
            )
        pairs = [
            {
                "slots": p["slots"],
                "rules": p["rules"],
                "severity": p["severity"],
                "gap": format_gap(Decimal(p["gap"])) if p.get("gap") else "",
                "reasons": p.get("reasons", []),
            }
            for p in row.pairs
        ]
        items = list(row.review_items.all())
        recommended = ""
        if resolution and resolution.recommended_value is not None:
            unit = next((c.finding.unit for c in claims if c.chosen), "") or (
                claims[0].finding.unit if claims else ""
            )
            recommended = format_value(resolution.recommended_value, unit)
        cases.append(
            CaseView(
                contradiction=row,
                claims=claims,
                pairs=pairs,
                rules=[(r, RULE_LABELS.get(r, r)) for r in row.rules],
                resolution=resolution,
                call=call,
                outcome=outcomes.get(row.pk, {}),
                review_item=items[0] if items else None,
                recommended_text=recommended,
            )
        )
    return RunPage(
        run=run,
        reports=reports,
        cases=cases,
        ranking=ranking,
        adjusted=list(run.adjusted_reports or []),
        claims=sum(len(r.findings.all()) for r in reports),
    )


def _number(value) -> float | None:
    return None if value is None else float(value)


def run_export(run: ContradictionRun) -> dict[str, Any]:
    """The whole run as JSON-ready data (the command's --json). `run` from
    `run_detail_queryset()`, so this makes no queries."""
    contradictions = []
    for row in run.contradictions.all():
        resolution = row.resolution if hasattr(row, "resolution") else None
        call = row.call if hasattr(row, "call") else None
        contradictions.append(
            {
                "id": row.pk,
                "metric": row.metric,
                "rules": row.rules,
                "severity": row.severity,
                "relative_gap": _number(row.relative_gap),
                "pairs": row.pairs,
                "findings": [
                    {
                        "slot": m.slot,
                        "finding": m.finding_id,
                        "agent": m.finding.report.agent_name,
                        "value": _number(m.finding.value),
                        "unit": m.finding.unit,
                        "source": m.finding.source,
                        "period": m.finding.period,
                        "confidence": m.finding.confidence,
                        "citation": m.finding.citation,
                        "interpretation": m.finding.interpretation,
                    }
                    for m in row.members.all()
                ],
                "resolution": None
                if resolution is None
                else {
                    "resolution": resolution.resolution,
                    "action": resolution.action,
                    "chosen_finding": resolution.chosen_finding_id,
                    "explanation": resolution.explanation,
                    "recommended_value": _number(resolution.recommended_value),
                    "recommended_citation": resolution.recommended_citation,
                    "confidence": resolution.confidence,
                    "parse_failed": resolution.parse_failed,
                    "notes": resolution.notes,
                },
                "call": None
                if call is None
                else {
                    "model": call.model,
                    "status": call.status,
                    "tokens_in": call.tokens_in,
                    "tokens_out": call.tokens_out,
                    "cost_usd": str(call.cost_usd),
                    "latency_ms": call.latency_ms,
                    "attempts": call.attempts,
                    "raw_response": call.raw_response,
                    "error": call.error or None,
                },
                "review": {
                    "action": row.review_action,
                    "finding": row.review_finding_id,
                    "note": row.review_note,
                }
                if row.review_action
                else None,
            }
        )
    return {
        "id": str(run.id),
        "status": run.status,
        "origin": run.origin,
        "contradictions_found": run.contradictions_found,
        "resolved": run.resolved_count,
        "flagged": run.flagged_count,
        "reviewed": run.reviewed_count,
        "review_status": run.review_status or None,
        "arbitration_skipped": run.arbitration_skipped,
        "debate_results": run.debate_results,
        "consensus_narrative": run.consensus_narrative,
        "detection_notes": run.detection_notes,
        "contradictions": contradictions,
        "consensus": (run.consensus or {}).get("cases", []),
        "adjusted_reports": run.adjusted_reports,
        "usage": {
            "tokens_in": run.tokens_in,
            "tokens_out": run.tokens_out,
            "cost_usd": str(run.cost_usd),
            "arbitration_ms": run.arbitration_ms,
            "duration_seconds": run.duration_seconds,
        },
        "model": run.model,
        "authority": run.authority,
        "error": run.error or None,
    }
