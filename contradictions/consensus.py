"""Consensus: what the arbitrations add up to, and the reports adjusted accordingly.
Plain Python: no ORM, no LLM.

For each contradiction the arbitrator's verdict is weighed by confidence against the agents'
own claims: resolutions are weighed by confidence; what the majority agrees with is accepted, a
split goes to human review (docs/concepts/contradictions.md#consensus-check):

* Support for a claim = the sum of the confidences of the claims that agree with it (itself
  included; two claims agree when they are not a conflicting pair). The arbitrator's choice of
  ``agentK_correct`` adds its own confidence to claim K's support.
* **Accepted**: ``agentK_correct`` with ``use_agentK``, the arbitrator's confidence at least
  `min_confidence` (0.6), a recommended value that one of the agents reported (or none), and
  K's support strictly greater than that of every claim it rejects. Claims that agree with K
  are **kept**; the others are **replaced** by K's value and citation (the original is kept
  beside it).
* **Accepted** too: ``both_valid`` / ``use_both`` at or above `min_confidence`: every claim is
  **annotated** with the other values and their sources and periods ("include all with
  context").
* **Flagged for review** otherwise: an unreadable reply, ``flag_for_review``,
  ``neither_valid``, a confidence below `min_confidence`, a recommended value no agent
  reported, or a **split**: a rejected claim with at least as much support as the chosen one
  (the arbitrator sided against a confident majority). Flagged claims are annotated as under
  review until an analyst picks the value to keep; the pick then applies like an accepted
  verdict (decided by review). A dismissed item leaves the claims annotated.

The narrative cites every value with its source and period, most authoritative source first.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from contradictions.arbitration import (
    BOTH_VALID,
    FLAG_FOR_REVIEW,
    NEITHER_VALID,
    USE_BOTH,
    Verdict,
)
from contradictions.authority import Ranking
from contradictions.detection import Claim, Contradiction, agreeing, format_value

DEFAULT_MIN_CONFIDENCE = 0.6

RESOLVED = "resolved"
FLAGGED = "flagged"
REVIEWED = "reviewed"
DISMISSED = "dismissed"

KEPT = "kept"
REPLACED = "replaced"
ANNOTATED = "annotated"


@dataclass(frozen=True)
class ReviewChoice:
    """An analyst's decision on a flagged contradiction: `use_agentK` (with `chosen` = K) or
    `use_both`; or `dismissed` with neither."""

    action: str = ""
    chosen: int | None = None
    reviewer: str = ""
    note: str = ""
    dismissed: bool = False


@dataclass(frozen=True)
class Case:
    ref: Hashable
    contradiction: Contradiction
    verdict: Verdict | None
    review: ReviewChoice | None = None


@dataclass(frozen=True)
class Report:
    ref: Hashable
    agent: str
    confidence: float
    claims: tuple[Claim, ...]


@dataclass(frozen=True)
class CaseOutcome:
    ref: Hashable
    metric: str
    status: str
    reason: str
    flagged_by_machine: bool
    decided_by: str = ""
    chosen: Hashable | None = None
    kept: tuple[Hashable, ...] = ()
    replaced: tuple[Hashable, ...] = ()
    annotated: tuple[Hashable, ...] = ()
    support: dict[str, float] = field(default_factory=dict)
    sentence: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "contradiction": self.ref,
            "metric": self.metric,
            "status": self.status,
            "reason": self.reason,
            "flagged_by_machine": self.flagged_by_machine,
            "decided_by": self.decided_by or None,
            "chosen": self.chosen,
            "kept": list(self.kept),
            "replaced": list(self.replaced),
            "annotated": list(self.annotated),
            "support": self.support,
            "sentence": self.sentence,
        }


@dataclass(frozen=True)
class Consensus:
    resolved: int
    flagged: int
    reviewed: int
    narrative: str
    cases: tuple[CaseOutcome, ...]
    adjusted_reports: list[dict[str, Any]]

    @property
    def flagged_cases(self) -> list[CaseOutcome]:
        return [c for c in self.cases if c.flagged_by_machine]


# --- describing claims --------------------------------------------------------------------------


def cite(claim: Claim) -> str:
    """'0.1% (LabourEconomist; GCC-STAT, Q1-2024)': the value with who, where and when."""
    source = claim.source.strip() or "source not stated"
    period = claim.period.strip() or "period not stated"
    what = (
        format_value(claim.value, claim.unit)
        if claim.value is not None
        else (claim.interpretation.strip() or "no value")
    )
    return f"{what} ({claim.agent}; {source}, {period})"


def _first_sentence(text: str, limit: int = 220) -> str:
    text = " ".join((text or "").split())
    for stop in (". ", "; "):
        if stop in text:
            text = text.split(stop, 1)[0] + "."
            break
    return text if len(text) <= limit else text[: limit - 3].rsplit(" ", 1)[0] + "..."


def _by_authority(claims: Sequence[Claim], ranking: Ranking) -> list[Claim]:
    return sorted(claims, key=lambda c: ranking.sort_key(c.source))


# --- one case -----------------------------------------------------------------------------------


def _matches_a_claim(value: Decimal, claims: Sequence[Claim]) -> bool:
    tolerance = Decimal("1e-9")
    return any(
        c.value is not None and abs(c.value - value) <= tolerance * max(abs(c.value), 1)
        for c in claims
    )


def _support(case: Case, chosen_slot: int, bonus: float) -> tuple[float, float, dict]:
    claims = case.contradiction.claims
    agree = agreeing(claims, case.contradiction.pairs)
    confidence = {c.ref: c.confidence for c in claims}
    chosen = claims[chosen_slot - 1]
    chosen_support = sum(confidence[r] for r in agree[chosen.ref]) + bonus
    rivals = [c for c in claims if c.ref not in agree[chosen.ref]]
    rival_support = max((sum(confidence[r] for r in agree[c.ref]) for c in rivals), default=0.0)
    detail = {c.agent: round(sum(confidence[r] for r in agree[c.ref]), 3) for c in claims}
    detail[f"{chosen.agent} (with the arbitrator)"] = round(chosen_support, 3)
    return round(chosen_support, 6), round(rival_support, 6), detail


def _machine_judgement(case: Case, min_confidence: float) -> tuple[bool, str, dict]:
    """(accepted, reason, support) for the arbitrator's verdict alone."""
    verdict = case.verdict
    claims = case.contradiction.claims
    if verdict is None or verdict.parse_failed:
        error = f": {verdict.error}" if verdict and verdict.error else ""
        return False, f"the arbitrator's reply could not be read{error}", {}
    if verdict.resolution == NEITHER_VALID:
        return False, "the arbitrator found none of the values valid", {}
    if verdict.action == FLAG_FOR_REVIEW:
        note = next((n for n in verdict.notes if "disagree" in n), "")
        return False, note or "the arbitrator flagged it for review", {}
    if verdict.confidence < min_confidence:
        return (
            False,
            (f"the arbitrator's confidence {verdict.confidence:g} is below {min_confidence:g}"),
            {},
        )
    if verdict.recommended_value is not None and not _matches_a_claim(
        verdict.recommended_value, claims
    ):
        return (
            False,
            (
                f"the arbitrator recommended {format_value(verdict.recommended_value)}, a value no "
                "agent reported"
            ),
            {},
        )
    if verdict.resolution == BOTH_VALID:
        return True, "the values hold together, each in its own context", {}
    chosen_support, rival_support, detail = _support(case, verdict.chosen, verdict.confidence)
    if rival_support >= chosen_support:
        return (
            False,
            (
                f"split: the arbitrator chose agent {verdict.chosen} (confidence-weighted support "
                f"{chosen_support:g}) but a rejected claim has {rival_support:g}"
            ),
            detail,
        )
    return (
        True,
        (
            f"agent {verdict.chosen} is preferred (confidence-weighted support {chosen_support:g} "
            f"against {rival_support:g})"
        ),
        detail,
    )


def _apply_choice(claims: Sequence[Claim], case: Case, slot: int) -> tuple[tuple, tuple]:
    agree = agreeing(claims, case.contradiction.pairs)
    chosen = claims[slot - 1]
    kept = tuple(c.ref for c in claims if c.ref in agree[chosen.ref])
    replaced = tuple(c.ref for c in claims if c.ref not in agree[chosen.ref])
    return kept, replaced


def judge(case: Case, ranking: Ranking, min_confidence: float) -> CaseOutcome:
    c = case.contradiction
    claims = c.claims
    all_refs = tuple(x.ref for x in claims)
    ordered = _by_authority(claims, ranking)
    accepted, reason, support = _machine_judgement(case, min_confidence)
    verdict = case.verdict
    review = case.review
    common = {
        "ref": case.ref,
        "metric": c.metric,
        "flagged_by_machine": not accepted,
        "support": support,
    }
    if accepted and verdict.resolution == BOTH_VALID:
        return CaseOutcome(
            **common,
            status=RESOLVED,
            reason=reason,
            decided_by="arbitration",
            annotated=all_refs,
            sentence=_both_sentence(c, ordered),
        )
    if accepted:
        kept, replaced = _apply_choice(claims, case, verdict.chosen)
        chosen = claims[verdict.chosen - 1]
        return CaseOutcome(
            **common,
            status=RESOLVED,
            reason=reason,
            decided_by="arbitration",
            chosen=chosen.ref,
            kept=kept,
            replaced=replaced,
            sentence=_chosen_sentence(c, chosen, replaced, _first_sentence(verdict.explanation)),
        )
    if review and review.dismissed:
        return CaseOutcome(
            **common,
            status=DISMISSED,
            reason=reason,
            decided_by="review",
            annotated=all_refs,
            sentence=f"{c.metric}: flagged for review ({reason}); dismissed by "
            f"{review.reviewer or 'an analyst'}, so both values stand with their context: "
            + "; ".join(cite(x) for x in ordered)
            + ".",
        )
    if review and review.action == USE_BOTH:
        return CaseOutcome(
            **common,
            status=REVIEWED,
            reason=reason,
            decided_by="review",
            annotated=all_refs,
            sentence=_both_sentence(c, ordered) + f" (decided by {review.reviewer or 'review'})",
        )
    if review and review.chosen:
        kept, replaced = _apply_choice(claims, case, review.chosen)
        chosen = claims[review.chosen - 1]
        why = f"decided by {review.reviewer or 'an analyst'}" + (
            f": {_first_sentence(review.note)}" if review.note else ""
        )
        return CaseOutcome(
            **common,
            status=REVIEWED,
            reason=reason,
            decided_by="review",
            chosen=chosen.ref,
            kept=kept,
            replaced=replaced,
            sentence=_chosen_sentence(c, chosen, replaced, why),
        )
    return CaseOutcome(
        **common,
        status=FLAGGED,
        reason=reason,
        annotated=all_refs,
        sentence=f"{c.metric}: flagged for review ({reason}): "
        + "; ".join(cite(x) for x in ordered)
        + ".",
    )


def _both_sentence(c: Contradiction, ordered: Sequence[Claim]) -> str:
    values = [x.value for x in ordered if x.value is not None]
    unit = next((x.unit for x in ordered if x.unit.strip()), "")
    if len(values) == len(ordered) and values:
        low, high = min(values), max(values)
        head = (
            f"{c.metric} ranges {format_value(low)}-{format_value(high, unit)} depending on "
            "source and period"
        )
    else:
        head = f"{c.metric}: the readings hold together, each in its own context"
    parts = [
        f"{x.source.strip() or x.agent} reports "
        f"{format_value(x.value, x.unit) if x.value is not None else x.interpretation} "
        f"for {x.period.strip() or 'an unstated period'}"
        for x in ordered
    ]
    return f"{head}: " + "; ".join(parts) + "."


def _chosen_sentence(c: Contradiction, chosen: Claim, replaced: Sequence, why: str) -> str:
    rejected = [x for x in c.claims if x.ref in set(replaced)]
    text = f"{c.metric}: {cite(chosen)} stands"
    if rejected:
        text += " over " + "; ".join(cite(x) for x in rejected)
    return text + (f". {why}" if why else ".")


# --- the whole run ------------------------------------------------------------------------------


def _finding(claim: Claim, **extra) -> dict[str, Any]:
    return {
        "finding": claim.ref,
        "metric": claim.metric,
        "value": None if claim.value is None else float(claim.value),
        "unit": claim.unit,
        "source": claim.source,
        "period": claim.period,
        "citation": claim.citation,
        "confidence": claim.confidence,
        "interpretation": claim.interpretation,
        "status": KEPT,
        "contradiction": None,
        "decided_by": None,
        "pending_review": False,
        "context": "",
        **extra,
    }


def adjust_reports(
    reports: Sequence[Report], cases: Sequence[Case], outcomes: Sequence[CaseOutcome]
) -> list[dict[str, Any]]:
    """Each report with every resolution applied: kept, replaced or annotated."""
    by_claim: dict[Hashable, tuple[Case, CaseOutcome]] = {}
    for case, outcome in zip(cases, outcomes, strict=True):
        for claim in case.contradiction.claims:
            by_claim[claim.ref] = (case, outcome)
    adjusted = []
    for report in reports:
        findings = []
        for claim in report.claims:
            if claim.ref not in by_claim:
                findings.append(_finding(claim))
                continue
            case, outcome = by_claim[claim.ref]
            others = [x for x in case.contradiction.claims if x.ref != claim.ref]
            base = {
                "contradiction": case.ref,
                "decided_by": outcome.decided_by or None,
                "pending_review": outcome.status == FLAGGED,
            }
            if claim.ref in outcome.replaced:
                chosen = next(x for x in case.contradiction.claims if x.ref == outcome.chosen)
                findings.append(
                    _finding(
                        claim,
                        **base,
                        status=REPLACED,
                        value=None if chosen.value is None else float(chosen.value),
                        unit=chosen.unit,
                        source=chosen.source,
                        period=chosen.period,
                        citation=chosen.citation,
                        interpretation=chosen.interpretation,
                        original={
                            "value": None if claim.value is None else float(claim.value),
                            "unit": claim.unit,
                            "source": claim.source,
                            "period": claim.period,
                            "citation": claim.citation,
                            "interpretation": claim.interpretation,
                        },
                        context=f"Replaced {cite(claim)} with {cite(chosen)}: {outcome.reason}.",
                    )
                )
            elif claim.ref in outcome.kept:
                rejected = [x for x in others if x.ref in outcome.replaced]
                findings.append(
                    _finding(
                        claim,
                        **base,
                        status=KEPT,
                        context=("Kept over " + "; ".join(cite(x) for x in rejected) + ".")
                        if rejected
                        else "Kept.",
                    )
                )
            else:
                prefix = "Under review" if outcome.status == FLAGGED else "Also reported"
                findings.append(
                    _finding(
                        claim,
                        **base,
                        status=ANNOTATED,
                        context=f"{prefix}: " + "; ".join(cite(x) for x in others) + ".",
                    )
                )
        adjusted.append(
            {
                "report": report.ref,
                "agent": report.agent,
                "confidence": report.confidence,
                "findings": findings,
            }
        )
    return adjusted


def build_consensus(
    *,
    reports: Sequence[Report],
    cases: Sequence[Case],
    ranking: Ranking | None = None,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
) -> Consensus:
    ranking = ranking or Ranking()
    outcomes = [judge(case, ranking, min_confidence) for case in cases]
    claims = sum(len(r.claims) for r in reports)
    flagged = sum(o.flagged_by_machine for o in outcomes)
    resolved = len(outcomes) - flagged
    reviewed = sum(o.status in (REVIEWED, DISMISSED) for o in outcomes)
    if not cases:
        narrative = (
            f"No contradictions among {len(reports)} report{'s' if len(reports) != 1 else ''} "
            f"({claims} claim{'s' if claims != 1 else ''}): nothing to arbitrate."
        )
    else:
        head = (
            f"{len(cases)} contradiction{'s' if len(cases) != 1 else ''} among "
            f"{len(reports)} reports: {resolved} resolved by arbitration, {flagged} flagged "
            "for review"
        )
        if reviewed:
            head += f" ({reviewed} since decided by an analyst)"
        narrative = head + ".\n" + "\n".join(o.sentence for o in outcomes)
    return Consensus(
        resolved=resolved,
        flagged=flagged,
        reviewed=reviewed,
        narrative=narrative,
        cases=tuple(outcomes),
        adjusted_reports=adjust_reports(reports, cases, outcomes),
    )
