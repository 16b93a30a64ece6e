"""Decision rules of the moderated debates: confidence-weighted argument strength
(docs/concepts/moderated.md#argument-strength, "Decision rule").

Plain Python: no framework imports, no randomness, no language model. Given the same arguments
and evaluations, `decide` returns the same decision, reasoning and metadata, in any order.

Inputs
------
* `Argument`: one debater's argument in one round: the side it argues (SUPPORT, OPPOSE or
  NEUTRAL), its confidence (0..1), its supporting evidence (a list of texts) and its role
  (proponent, opponent, advocate, critic).
* `Evaluation`: the moderator's evaluation of one round: the quality of each side's arguments
  (0..1, or None when not given), whether consensus is reached, the side it leans to, open
  points and its confidence (0..1).

How an argument is scored
-------------------------
1. Evidence quality E (0..1) of an argument, from its supporting evidence only:
   * items are compared after collapsing whitespace and ignoring case; repeats count once;
   * an item of fewer than `MIN_EVIDENCE_WORDS` (4) words ("studies show") counts for nothing;
   * a counted item is *specific* when it carries something checkable: a figure (any digit),
     a link, or a named kind of source (`SOURCE_MARKERS`: study, survey, report, data ...);
   * E = `EVIDENCE_BASE` (0.2) + `PLAIN_ITEM_SCORE` (0.15) per plain item
     + `SPECIFIC_ITEM_SCORE` (0.25) per specific item, at most 1.0.
   So an argument without evidence keeps a fifth of its weight (reasoning alone counts, but
   little); two specific items give 0.7; four give the maximum.
2. Logical consistency C (0..1) of an argument: the moderator's quality score for the argument's
   side in the same round. The moderator is asked to judge exactly that: the logic, evidence
   and reasoning of each position. When the moderator gave no score for that side, or its reply
   could not be read, C = `NEUTRAL_QUALITY` (0.5): neither rewarded nor punished.
3. Role weight W: `ROLE_WEIGHTS`: proponent and opponent 1.0 (they carry the case);
   advocate and critic 0.5 (they argue aspects of it: practical benefits, weaknesses; they
   count for the side they declare). NEUTRAL arguments count for neither side.
4. Strength of an argument = W x confidence x E x C. A side's strength is the sum over its
   arguments in every round.

The decision
------------
Side strengths are computed and compared unrounded (docs/concepts/moderated.md#compared-unrounded),
in exact decimal arithmetic (each factor read as the decimal it prints as, so the boundary does not
depend on float rounding); they are rounded to `STRENGTH_DECIMALS` (4) places only for display (pro
0.06001 against con 0.05 is SUPPORT, though both show as 0.06 and 0.05):

* pro > `MARGIN` (1.2) x con  -> SUPPORT, confidence min(pro / (pro + con), 0.95);
* con > 1.2 x pro             -> OPPOSE, confidence min(con / (pro + con), 0.95);
* otherwise (also both zero)  -> UNCERTAIN, confidence 0.5.

Exactly 1.2 x is not enough: the advantage must exceed it.

`consensus_type`: "uncertain" for UNCERTAIN; "moderator_consensus" when the moderator's last
confidence exceeded the consensus threshold (the debate then stops, early if rounds were left);
"weighted_margin" when the moderator never got there and the margin alone decided.

`review_reasons` (the review queue reads them): "uncertain" for UNCERTAIN; "moderator_disagrees"
when the moderator's last evaluation leans to the side the decision went against;
"parse_failure" when any reply could not be read (the protocol passes `parse_failures`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from protocols import decision

DECISIONS = ("SUPPORT", "OPPOSE", "UNCERTAIN")
SIDES = ("SUPPORT", "OPPOSE", "NEUTRAL")

MARGIN = Decimal("1.2")
MAX_DECISION_CONFIDENCE = 0.95
UNCERTAIN_CONFIDENCE = 0.5
STRENGTH_DECIMALS = 4

MIN_EVIDENCE_WORDS = 4
EVIDENCE_BASE = 0.2
PLAIN_ITEM_SCORE = 0.15
SPECIFIC_ITEM_SCORE = 0.25
SOURCE_MARKERS = (
    "study",
    "studies",
    "survey",
    "report",
    "data",
    "dataset",
    "research",
    "paper",
    "journal",
    "published",
    "statistic",
    "census",
    "audit",
    "benchmark",
    "trial",
    "according to",
    "documentation",
    "standard",
    "regulation",
    "filing",
)
NEUTRAL_QUALITY = 0.5
ROLE_WEIGHTS = {"proponent": 1.0, "opponent": 1.0, "advocate": 0.5, "critic": 0.5}

_DIGIT_OR_LINK = re.compile(r"\d|https?://|www\.")

__all__ = [
    "DECISIONS",
    "MARGIN",
    "Argument",
    "Evaluation",
    "ModeratedDecision",
    "decide",
    "evidence_quality",
]


def _check_unit(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be between 0 and 1, got {value!r}")


@dataclass(frozen=True)
class Argument:
    agent: str
    role: str
    side: str
    round_number: int
    confidence: float
    supporting_evidence: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.side not in SIDES:
            raise ValueError(f"side must be one of {', '.join(SIDES)}, got {self.side!r}")
        if self.role not in ROLE_WEIGHTS:
            raise ValueError(f"role must be one of {', '.join(ROLE_WEIGHTS)}, got {self.role!r}")
        _check_unit("confidence", self.confidence)


@dataclass(frozen=True)
class Evaluation:
    round_number: int
    confidence: float
    pro_quality: float | None = None
    con_quality: float | None = None
    consensus_reached: bool = False
    leaning: str = "NEUTRAL"
    open_points: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_unit("confidence", self.confidence)
        for name in ("pro_quality", "con_quality"):
            if getattr(self, name) is not None:
                _check_unit(name, getattr(self, name))
        if self.leaning not in SIDES:
            raise ValueError(f"leaning must be one of {', '.join(SIDES)}")

    def quality(self, side: str) -> float | None:
        return {"SUPPORT": self.pro_quality, "OPPOSE": self.con_quality}.get(side)


class ModeratedDecision(decision.Decision):
    """A moderated decision: SUPPORT, OPPOSE or UNCERTAIN."""

    allowed = DECISIONS


def _norm(item: str) -> str:
    return " ".join(item.split()).lower()


def is_specific(item: str) -> bool:
    text = _norm(item)
    return bool(_DIGIT_OR_LINK.search(text)) or any(m in text for m in SOURCE_MARKERS)


def evidence_quality(items: Iterable[str]) -> float:
    """E of the module docstring: 0.2 + 0.15 per plain item + 0.25 per specific item, max 1."""
    seen: set[str] = set()
    plain = specific = 0
    for item in items:
        text = _norm(item)
        if text in seen or len(text.split()) < MIN_EVIDENCE_WORDS:
            continue
        seen.add(text)
        if is_specific(text):
            specific += 1
        else:
            plain += 1
    score = EVIDENCE_BASE + PLAIN_ITEM_SCORE * plain + SPECIFIC_ITEM_SCORE * specific
    return round(min(1.0, score), 4)


def _exact(value: float | Decimal) -> Decimal:
    """A factor as the decimal it prints as (0.1 is 0.1, not 0.1000000000000000055...)."""
    return value if isinstance(value, Decimal) else Decimal(repr(float(value)))


def _rounded(value: float | Decimal) -> Decimal:
    """For display only: the rules compare the exact values."""
    return _exact(value).quantize(Decimal(1).scaleb(-STRENGTH_DECIMALS), ROUND_HALF_EVEN)


def _num(value: Decimal | float) -> int | float:
    value = float(value)
    return int(value) if value.is_integer() else value


def decide(
    arguments: Sequence[Argument],
    evaluations: Sequence[Evaluation],
    *,
    consensus_threshold: float,
    max_rounds: int,
    parse_failures: Sequence[str] = (),
) -> ModeratedDecision:
    """Apply the rules of the module docstring."""
    if not evaluations:
        raise ValueError("at least one moderator evaluation is required")
    by_round = {e.round_number: e for e in evaluations}
    ordered = sorted(arguments, key=lambda a: (a.round_number, a.agent))
    scored: list[dict[str, Any]] = []
    pro = con = Decimal(0)
    for arg in ordered:
        e_score = evidence_quality(arg.supporting_evidence)
        evaluation = by_round.get(arg.round_number)
        rated = evaluation.quality(arg.side) if evaluation else None
        c_score = NEUTRAL_QUALITY if rated is None else rated
        weight = ROLE_WEIGHTS[arg.role] if arg.side != "NEUTRAL" else 0.0
        strength = _exact(weight) * _exact(arg.confidence) * _exact(e_score) * _exact(c_score)
        if arg.side == "SUPPORT":
            pro += strength
        elif arg.side == "OPPOSE":
            con += strength
        scored.append(
            {
                "agent": arg.agent,
                "role": arg.role,
                "round": arg.round_number,
                "side": arg.side,
                "confidence": _num(arg.confidence),
                "evidence_quality": _num(e_score),
                "logical_consistency": _num(c_score),
                "logic_rated_by_moderator": rated is not None,
                "weight": _num(weight),
                "strength": _num(_rounded(strength)),
            }
        )
    total = pro + con
    if pro > MARGIN * con:
        decision = "SUPPORT"
        confidence = min(float(pro / total), MAX_DECISION_CONFIDENCE)
    elif con > MARGIN * pro:
        decision = "OPPOSE"
        confidence = min(float(con / total), MAX_DECISION_CONFIDENCE)
    else:
        decision = "UNCERTAIN"
        confidence = UNCERTAIN_CONFIDENCE
    confidence = round(confidence, 4)
    ratio = None if con == 0 else round(float(pro / con), 4)
    pro_d, con_d = _rounded(pro), _rounded(con)

    last = max(evaluations, key=lambda e: e.round_number)
    moderator_confident = last.confidence > consensus_threshold
    stopped_early = moderator_confident and last.round_number < max_rounds
    if decision == "UNCERTAIN":
        consensus_type = "uncertain"
    elif moderator_confident:
        consensus_type = "moderator_consensus"
    else:
        consensus_type = "weighted_margin"
    review_reasons: list[str] = []
    if decision == "UNCERTAIN":
        review_reasons.append("uncertain")
    against = {"SUPPORT": "OPPOSE", "OPPOSE": "SUPPORT"}.get(decision)
    if against and last.leaning == against:
        review_reasons.append("moderator_disagrees")
    if parse_failures:
        review_reasons.append("parse_failure")

    text = _reasoning(decision, pro, con, last, moderator_confident, consensus_threshold)
    if "moderator_disagrees" in review_reasons:
        text += (
            f" The moderator's last evaluation leans {last.leaning}, against this decision; "
            "it goes to review."
        )
    if parse_failures:
        n = len(parse_failures)
        text += f" {n} repl{'y' if n == 1 else 'ies'} could not be read and carried no weight."

    def side_average(field: str) -> dict[str, float]:
        roles = sorted({s["role"] for s in scored})
        return {
            r: round(
                sum(s[field] for s in scored if s["role"] == r)
                / sum(1 for s in scored if s["role"] == r),
                4,
            )
            for r in roles
        }

    metadata: dict[str, Any] = {
        "rule": "confidence_weighted",
        "consensus_type": consensus_type,
        "pro_strength": _num(pro_d),
        "con_strength": _num(con_d),
        "pro_strength_exact": format(pro.normalize(), "f"),
        "con_strength_exact": format(con.normalize(), "f"),
        "compared": "unrounded (exact decimals); strengths shown rounded to "
        f"{STRENGTH_DECIMALS} places",
        "strength_ratio": ratio,
        "margin_required": float(MARGIN),
        "decision_confidence": confidence,
        "stopped_early": stopped_early,
        "stop_reason": "moderator_confidence" if moderator_confident else "max_rounds",
        "consensus_threshold": consensus_threshold,
        "rounds_run": len(evaluations),
        "max_rounds": max_rounds,
        "moderator_confidence_by_round": [
            _num(e.confidence) for e in sorted(evaluations, key=lambda e: e.round_number)
        ],
        "moderator_consensus_reached": last.consensus_reached,
        "moderator_leaning": last.leaning,
        "open_points": list(last.open_points),
        "evidence_quality": side_average("evidence_quality"),
        "logical_consistency": side_average("logical_consistency"),
        "argument_scores": scored,
        "review_reasons": review_reasons,
        "parse_failures": sorted(parse_failures),
        "scoring": {
            "evidence": f"{EVIDENCE_BASE} + {PLAIN_ITEM_SCORE} per plain item + "
            f"{SPECIFIC_ITEM_SCORE} per specific item (>= {MIN_EVIDENCE_WORDS} "
            "words; a figure, link or named source), max 1",
            "logic": f"moderator's quality score for the side that round; {NEUTRAL_QUALITY} "
            "when not rated",
            "strength": "role weight x confidence x evidence quality x logical consistency",
            "role_weights": dict(ROLE_WEIGHTS),
        },
    }
    return ModeratedDecision(decision=decision, reasoning=text, metadata=metadata)


def _reasoning(
    decision: str,
    pro: Decimal,
    con: Decimal,
    last: Evaluation,
    moderator_confident: bool,
    threshold: float,
) -> str:
    p, c = _num(_rounded(pro)), _num(_rounded(con))
    if decision == "SUPPORT":
        times = "any" if con == 0 else f"{float(pro / con):.2f}x"
        text = (
            f"SUPPORT: the pro side's weighted strength {p} is {times} the con side's {c}, "
            f"more than the {MARGIN}x required."
        )
    elif decision == "OPPOSE":
        times = "any" if pro == 0 else f"{float(con / pro):.2f}x"
        text = (
            f"OPPOSE: the con side's weighted strength {c} is {times} the pro side's {p}, "
            f"more than the {MARGIN}x required."
        )
    else:
        text = (
            f"UNCERTAIN: neither side's weighted strength exceeds the other's by more than "
            f"{MARGIN}x (pro {p}, con {c}); a person should decide."
        )
    if moderator_confident:
        text += (
            f" The moderator's confidence reached {last.confidence:g} in round "
            f"{last.round_number}, above the {threshold:g} consensus threshold, so the debate "
            "stopped there."
        )
    else:
        text += (
            f" The moderator's confidence was {last.confidence:g} after round "
            f"{last.round_number}, not above {threshold:g}, so every round was run."
        )
    return text
