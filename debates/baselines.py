"""Baselines of a finished debate, stored on it (`Debate.baselines` and the fields beside it):
reads its rows, hands them to the pure `protocols.evaluation`; and how the API, exports, pages
and transcripts show them.

Computed when a debate finishes (`storage`, through `finished_fields`). Debates finished before
baselines existed get theirs from `manage.py backfill_baselines` (`evaluation.baselines`). The
rules: docs/analysts/evaluation.md, "Baselines".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from debates.models import Debate, Statement, Vote
from debates.quality import record_for, stored_rows
from protocols import evaluation, quality

#: Statement kinds that are an agent's own position (not a moderator's or a synthesis).
POSITION_KINDS = (
    Statement.Kind.ANALYSIS,
    Statement.Kind.REVISION,
    Statement.Kind.ARGUMENT,
    Statement.Kind.TURN,
)


def _answer(row, slug: str, role: str = "") -> evaluation.Answer:
    details = getattr(row, "details", None) or {}
    evidence = details.get("supporting_evidence") or ()
    return evaluation.Answer(
        agent=slug,
        decision=row.decision,
        confidence=row.confidence,
        risk=row.risk,
        parse_failed=getattr(row, "parse_failed", False),
        role=role,
        evidence=tuple(str(e) for e in evidence if isinstance(e, str)),
    )


def compute_for(
    *,
    protocol: str,
    options: dict[str, Any],
    decision: str,
    statements: Iterable[Statement],
    votes: Iterable[Vote],
) -> evaluation.Baselines | None:
    """Baselines from a debate's position statements (each with `participant`, in round order)
    and final votes (each with `participant`). None when there is nothing to compare."""
    if not evaluation.has_baselines(protocol) or not decision:
        return None
    first: dict[str, evaluation.Answer] = {}
    last: dict[str, evaluation.Answer] = {}
    for s in statements:
        answer = _answer(s, s.participant.slug, s.participant.role)
        first.setdefault(s.participant.slug, answer)
        last[s.participant.slug] = answer
    for v in votes:
        last[v.participant.slug] = _answer(v, v.participant.slug, v.participant.role)
    if not first:
        return None
    return evaluation.compute_baselines(
        protocol, decision, list(first.values()), list(last.values()), options
    )


def finished_fields(
    debate: Debate, decision: str, *, rows: tuple[list, list, list] | None = None
) -> tuple[evaluation.Baselines | None, dict[str, Any]]:
    """The baselines and quality scores of `debate` if it decides `decision`, from its stored
    statements, final votes and challenges (3 queries), with the fields that store them, not
    stored: the finishing debate writes them with its decision, in the same statement.

    `rows`: those three as `quality.stored_rows` reads them, from a runner that holds them
    (no query)."""
    statements, votes, challenges = rows if rows is not None else stored_rows(debate.pk)
    result = compute_for(
        protocol=debate.protocol,
        options=debate.options,
        decision=decision,
        statements=[s for s in statements if s.kind in POSITION_KINDS],
        votes=votes,
    )
    if result is None:
        return None, {}
    scores = quality.evaluate(
        record_for(decision=decision, statements=statements, votes=votes, challenges=challenges)
    )
    return result, {**stored_fields(result), "quality": scores}


def stored_fields(result: evaluation.Baselines) -> dict[str, Any]:
    return {
        "rules_version": result.rules_version,
        "majority_decision": result.majority_decision,
        "outcome_change": result.outcome_change,
        "baselines": result.as_json(),
    }


def debate_verdict(debate: Debate) -> str:
    """The reviewers' verdict on a debate ("" when no review item was resolved): the override
    if one was set, else the upheld decision."""
    if debate.review_status != Debate.ReviewStatus.RESOLVED:
        return ""
    return debate.decision_override or debate.decision


def dynamics(debate: Debate) -> list[dict[str, Any]]:
    """Per agent: independent and final decision, change, and effect against the verdict."""
    return evaluation.dynamics_with_verdict(debate.baselines or {}, debate_verdict(debate))


CHANGE_LABELS = {
    evaluation.SAME: "same as the majority vote",
    evaluation.MORE_CAUTIOUS: "more cautious than the majority vote",
    evaluation.LESS_CAUTIOUS: "less cautious than the majority vote",
    evaluation.CHANGED: "different from the majority vote",
}


def baselines_view(debate: Debate) -> dict[str, Any] | None:
    """The baselines as the API, exports and pages show them (None until recorded):
    `rules_version`, `debate_decision`, `majority_decision`, `outcome_change` and its `label`,
    `single_agent` ({agent slug: decision}), `verdict` (reviewers' verdict or None) and
    `agents` ([{agent, independent, final, change, effect}], effect None without a verdict)."""
    stored = debate.baselines or {}
    if not stored:
        return None
    verdict = debate_verdict(debate)
    return {
        "rules_version": stored.get("rules_version", ""),
        "debate_decision": stored.get("debate_decision", ""),
        "majority_decision": stored.get("majority_decision", ""),
        "outcome_change": stored.get("outcome_change", ""),
        "label": CHANGE_LABELS.get(stored.get("outcome_change", ""), ""),
        "single_agent": stored.get("single_agent", {}),
        "verdict": verdict or None,
        "agents": dynamics(debate),
    }


def baseline_lines(debate: Debate) -> list[str]:
    """Plain-text lines for transcripts (empty until recorded)."""
    view = baselines_view(debate)
    if view is None:
        return []
    lines = [
        f"Majority vote of the independent answers: {view['majority_decision']} "
        f"(the debate decided {view['debate_decision']}: {view['label']})",
    ]
    for a in view["agents"]:
        effect = f", {a['effect'].replace('_', ' ')}" if a["effect"] else ""
        lines.append(
            f"{a['agent']}: alone {a['independent']}, finally {a['final']} "
            f"({a['change'].replace('_', ' ')}{effect})"
        )
    return lines
