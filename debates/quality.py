"""Seed 003's quality scores of finished debates (`Debate.quality`) and the figures over many:
reads the stored rows, hands them to the pure `protocols.quality`, writes back.

Called when a debate finishes (`services`), by `manage.py backfill_baselines` for debates
finished before, and by the staff API (`quality_report`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from debates.ground_truth import finished_in_range
from debates.models import Challenge, Debate, Statement, Vote
from protocols import quality as pure

MAX_DEBATES = 10_000

LABELS = {
    "logical_consistency": "Logical consistency",
    "evidence_quality": "Evidence quality",
    "argument_diversity": "Argument diversity",
    "consensus_quality": "Consensus quality",
    "decision_confidence": "Decision confidence",
    "overall_quality": "Overall",
}


def _floats(details: dict, key: str) -> float | None:
    value = details.get(key)
    return float(value) if isinstance(value, int | float) else None


def _position(s: Statement) -> pure.Position:
    details = s.details or {}
    evidence = details.get("supporting_evidence")
    return pure.Position(
        agent=s.participant.slug,
        round_number=s.round.number,
        kind=s.kind,
        decision=s.decision,
        confidence=s.confidence,
        risk=s.risk,
        reasoning=s.reasoning,
        parse_failed=s.parse_failed,
        evidence=(
            tuple(str(e) for e in evidence if isinstance(e, str))
            if isinstance(evidence, list)
            else None
        ),
        pro_quality=_floats(details, "pro_quality"),
        con_quality=_floats(details, "con_quality"),
        cost_usd=float(s.call.cost_usd) if s.call else 0.0,
        tokens=(s.call.tokens_in + s.call.tokens_out) if s.call else 0,
    )


def record_for(
    *,
    decision: str,
    statements: Iterable[Statement],
    votes: Iterable[Vote],
    challenges: Iterable[str],
) -> pure.DebateRecord:
    """The pure record of one debate from its rows (statements with participant and round)."""
    positions = tuple(_position(s) for s in statements)
    final: dict[str, pure.Position] = {}
    for p in sorted(positions, key=lambda p: p.round_number):
        if p.kind in pure.POSITION_KINDS:
            final[p.agent] = p
    for v in votes:
        final[v.participant.slug] = pure.Position(
            agent=v.participant.slug,
            round_number=10_000,
            kind="vote",
            decision=v.decision,
            confidence=v.confidence,
            risk=v.risk,
            reasoning=v.reasoning,
        )
    return pure.DebateRecord(
        decision=decision,
        statements=positions,
        final=tuple(final.values()),
        challenges=tuple(challenges),
    )


def stored_rows(debate_id) -> tuple[list[Statement], list[Vote], list[str]]:
    """What a finished debate's scores are computed from, as stored (3 queries): its statements
    with their participant, round and call, in round and position order; its final votes with
    their participant; its challenges' arguments."""
    statements = list(
        Statement.objects.filter(debate_id=debate_id)
        .select_related("participant", "round", "call")
        .order_by("round__number", "participant__position")
    )
    votes = list(Vote.objects.filter(debate_id=debate_id).select_related("participant"))
    challenges = list(
        Challenge.objects.filter(debate_id=debate_id).values_list("argument", flat=True)
    )
    return statements, votes, challenges


def record_quality(*, debate_id, decision: str | None = None) -> dict[str, Any] | None:
    """Compute and store the quality of one finished debate (4 queries). None when it has no
    decision or no statement."""
    if decision is None:
        decision = Debate.objects.values_list("decision", flat=True).get(id=debate_id)
    if not decision:
        return None
    statements, votes, challenges = stored_rows(debate_id)
    if not statements:
        return None
    scores = pure.evaluate(
        record_for(decision=decision, statements=statements, votes=votes, challenges=challenges)
    )
    Debate.objects.filter(id=debate_id).update(quality=scores)
    return scores


def backfill(*, only_missing: bool = True, batch_size: int = 500) -> int:
    """Record the quality of every completed debate (without any, unless `only_missing` is
    False). Returns how many were recorded."""
    qs = Debate.objects.filter(status=Debate.Status.COMPLETED)
    if only_missing:
        qs = qs.filter(quality={})
    count = 0
    for debate_id in qs.values_list("id", flat=True).iterator(chunk_size=batch_size):
        if record_quality(debate_id=debate_id) is not None:
            count += 1
    return count


def quality_view(debate: Debate) -> dict[str, Any] | None:
    """The scores as the API, exports and pages show them (None until recorded):
    {dimension: score or None} for the five dimensions and `overall_quality`."""
    stored = debate.quality or {}
    if not stored:
        return None
    return {key: stored.get(key) for key in (*pure.DIMENSIONS, "overall_quality")}


def quality_rows(debate: Debate) -> list[tuple[str, float | None]]:
    """(label, score) pairs for pages and transcripts (empty until recorded)."""
    view = quality_view(debate)
    if view is None:
        return []
    return [(LABELS[k], v) for k, v in view.items()]


def quality_lines(debate: Debate) -> list[str]:
    """Plain-text lines for transcripts (empty until recorded)."""
    rows = quality_rows(debate)
    if not rows:
        return []
    # On the one scale every score and confidence is shown on: percent.
    shown = ", ".join(
        f"{label.lower()} {'n/a' if v is None else f'{round(v * 100, 1):g} %'}" for label, v in rows
    )
    return [f"Quality: {shown}"]


# --- over many debates -------------------------------------------------------------------------


@dataclass(frozen=True)
class QualityReport:
    """Quality means and the single-agent comparison over debates finished in [`since`,
    `until`) of one `protocol` or all; `debates` read, `truncated` when more finished."""

    since: dt.datetime | None
    until: dt.datetime | None
    protocol: str
    debates: int
    limit: int
    truncated: bool
    quality: dict[str, Any]
    comparison: dict[str, Any]
    cost: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
            "protocol": self.protocol or None,
            "debates": self.debates,
            "limit": self.limit,
            "truncated": self.truncated,
            "quality": self.quality,
            "comparison": self.comparison,
            "cost": self.cost,
        }


def comparison_rows(
    *,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    protocol: str = "",
    limit: int = MAX_DEBATES,
) -> tuple[list[pure.ComparisonRow], bool]:
    """The finished debates of the range (newest first, at most `limit`) as `ComparisonRow`s,
    and whether there were more. One query."""
    qs = finished_in_range(since=since, until=until, protocol=protocol)
    found = list(
        qs.order_by("-completed_at", "id").values_list(
            "protocol",
            "decision",
            "decision_override",
            "review_status",
            "baselines",
            "quality",
            "cost_usd",
            "tokens_in",
            "tokens_out",
        )[: limit + 1]
    )
    truncated = len(found) > limit
    rows = []
    for (
        protocol_name,
        decision,
        override,
        review,
        baselines,
        scores,
        cost,
        tokens_in,
        tokens_out,
    ) in found[:limit]:
        verdict = (override or decision) if review == Debate.ReviewStatus.RESOLVED else ""
        single = tuple((a["agent"], a["independent"]) for a in (baselines or {}).get("agents", ()))
        rows.append(
            pure.ComparisonRow(
                protocol=protocol_name,
                decision=decision,
                verdict=verdict,
                single_agent=single,
                quality=scores or {},
                cost_usd=float(cost),
                tokens=tokens_in + tokens_out,
            )
        )
    return rows, truncated


def quality_report(
    *,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    protocol: str = "",
    limit: int = MAX_DEBATES,
) -> QualityReport:
    """Seed 003's monitoring figures over a range: the mean of each quality score and the
    consensus rate, and the single-agent comparison; every figure with its n. One query; the
    selector an operator's metrics exporter reads."""
    limit = max(1, min(limit, MAX_DEBATES))
    rows, truncated = comparison_rows(since=since, until=until, protocol=protocol, limit=limit)
    return QualityReport(
        since=since,
        until=until,
        protocol=protocol,
        debates=len(rows),
        limit=limit,
        truncated=truncated,
        quality=pure.quality_means(rows),
        comparison=pure.compare_with_single_agent(rows),
        cost=pure.cost_comparison(rows),
    )


__all__ = [
    "MAX_DEBATES",
    "QualityReport",
    "backfill",
    "comparison_rows",
    "quality_lines",
    "quality_report",
    "quality_rows",
    "quality_view",
    "record_quality",
    "stored_rows",
]
