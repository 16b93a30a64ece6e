"""The quality scores of a finished debate (`Debate.quality`; docs/analysts/evaluation.md,
"Quality scores"): reads its rows, hands them to the pure `protocols.quality`; and how the API,
exports, pages and transcripts show them.

Computed when a debate finishes (`storage`, through `baselines.finished_fields`). The scores
of debates finished before, and the figures over many debates, are in `evaluation.quality`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from debates.models import Challenge, Debate, Statement, Vote
from protocols import quality as pure

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


__all__ = [
    "quality_lines",
    "quality_rows",
    "quality_view",
    "stored_rows",
]
