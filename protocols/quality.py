"""The debate quality evaluator and its comparison with a single agent
(docs/analysts/evaluation.md#quality-scores, "Comparison with a single agent"). Plain Python.

Every score is on 0..1 and computed from what a debate stores (its position statements,
moderator evaluations, challenges and final votes); a dimension that does not apply to a
protocol is None and left out of the overall mean.

* logical_consistency: where a moderator scored the sides (moderated debates), the mean of its
  scores for the side of each argument; elsewhere, the share of the agents' positions that
  were readable and do not contradict their own risk assessment (ACT with risk >= 70, or
  REFUSE with risk <= 20, is a contradiction).
* evidence_quality: the mean evidence quality (the moderated rules' E: 0.2 + 0.15 per plain
  item + 0.25 per specific one, at most 1) of the arguments that carry supporting evidence;
  None for protocols whose replies carry none.
* argument_diversity: 1 minus the mean pairwise Jaccard similarity of the content words of the
  agents' independent answers (0: they said the same thing; 1: no word in common); None with
  fewer than two agents.
* consensus_quality: the confidence-weighted share of the agents' final positions that back
  the debate's decision (the plain share when every confidence is 0).
* decision_confidence: the moderator's last confidence where there is a moderator, else the
  mean confidence of the final positions that back the decision (0 when none does).
* overall_quality: the mean of the dimensions that apply.

The single-agent comparison (`compare_with_single_agent`) reads one `ComparisonRow` per
finished debate: accuracy against reviewers' verdicts, reasoning depth (distinct content words
the debate considered against one agent's independent answer), bias on the caution scale, and
the Brier score of confidence against the verdict.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from protocols.evaluation import CAUTION, Agreement
from protocols.moderated import rules as moderated_rules

DIMENSIONS = (
    "logical_consistency",
    "evidence_quality",
    "argument_diversity",
    "consensus_quality",
    "decision_confidence",
)
#: ACT with at least this risk, or REFUSE with at most `REFUSE_MAX_RISK`, contradicts itself.
ACT_MAX_RISK = 70
REFUSE_MAX_RISK = 20
MIN_WORD = 4
_WORD = re.compile(r"[a-z][a-z0-9'-]+")
STOP_WORDS = frozenset(
    "about above after again also because been before being below between both could does "
    "doing down during each from further have having here into itself just more most only "
    "other over same should some such than that their them then there these they this those "
    "through under until very were what when where which while will with would your yours "
    "answer question".split()
)
#: Statement kinds that are an agent's own position, and the moderator's.
POSITION_KINDS = ("analysis", "revision", "argument", "turn")
MODERATION = "moderation"

__all__ = [
    "DIMENSIONS",
    "ComparisonRow",
    "DebateRecord",
    "Position",
    "compare_with_single_agent",
    "content_words",
    "evaluate_quality",
]


def content_words(text: str) -> frozenset[str]:
    """Lower-case words of at least four letters that are not stop words."""
    return frozenset(
        w for w in _WORD.findall(text.lower()) if len(w) >= MIN_WORD and w not in STOP_WORDS
    )


@dataclass(frozen=True)
class Position:
    """One stored statement: `kind` as stored (analysis, revision, argument, turn, moderation,
    synthesis), confidence and risk on 0..100, and from `details` the supporting evidence of
    an argument or a moderator's scores of the two sides (0..1)."""

    agent: str
    round_number: int
    kind: str
    decision: str
    confidence: float
    risk: float | None = None
    reasoning: str = ""
    parse_failed: bool = False
    evidence: tuple[str, ...] | None = None
    pro_quality: float | None = None
    con_quality: float | None = None
    cost_usd: float = 0.0
    tokens: int = 0


@dataclass(frozen=True)
class DebateRecord:
    """What the evaluator reads of one finished debate: every statement, each agent's final
    position (its vote, else its last statement) and the text of every challenge."""

    decision: str
    statements: tuple[Position, ...]
    final: tuple[Position, ...] = ()
    challenges: tuple[str, ...] = ()


def _clamp(value: float) -> float:
    return min(max(float(value), 0.0), 1.0)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _positions(record: DebateRecord) -> list[Position]:
    return [s for s in record.statements if s.kind in POSITION_KINDS]


def _moderations(record: DebateRecord) -> list[Position]:
    return [s for s in record.statements if s.kind == MODERATION]


def logical_consistency(record: DebateRecord) -> float | None:
    moderations = {m.round_number: m for m in _moderations(record)}
    scored = []
    for s in _positions(record):
        m = moderations.get(s.round_number)
        if m is None:
            continue
        score = {"SUPPORT": m.pro_quality, "OPPOSE": m.con_quality}.get(s.decision)
        if score is not None:
            scored.append(_clamp(score))
    if scored:
        return _mean(scored)
    positions = _positions(record)
    if not positions:
        return None

    def consistent(s: Position) -> bool:
        if s.parse_failed:
            return False
        if s.risk is None:
            return True
        if s.decision == "ACT" and s.risk >= ACT_MAX_RISK:
            return False
        return not (s.decision in ("REFUSE", "VETO") and s.risk <= REFUSE_MAX_RISK)

    return sum(consistent(s) for s in positions) / len(positions)


def evidence_quality(record: DebateRecord) -> float | None:
    scores = [
        moderated_rules.evidence_quality(s.evidence)
        for s in _positions(record)
        if s.evidence is not None
    ]
    return _mean(scores)


def _independent(record: DebateRecord) -> list[Position]:
    first: dict[str, Position] = {}
    for s in sorted(_positions(record), key=lambda p: p.round_number):
        first.setdefault(s.agent, s)
    return list(first.values())


def argument_diversity(record: DebateRecord) -> float | None:
    answers = [content_words(s.reasoning) for s in _independent(record)]
    if len(answers) < 2:
        return None
    similarities = []
    for a, b in combinations(answers, 2):
        union = a | b
        similarities.append(len(a & b) / len(union) if union else 1.0)
    return 1 - sum(similarities) / len(similarities)


def _backs(position: Position, decision: str) -> bool:
    if position.decision == decision:
        return True
    return CAUTION.get(position.decision, -1) == CAUTION.get(decision, -2)


def consensus_quality(record: DebateRecord) -> float | None:
    if not record.final:
        return None
    weights = [_clamp(p.confidence / 100) for p in record.final]
    backing = [_backs(p, record.decision) for p in record.final]
    total = sum(weights)
    if total == 0:
        return sum(backing) / len(backing)
    return sum(w for w, b in zip(weights, backing, strict=True) if b) / total


def decision_confidence(record: DebateRecord) -> float | None:
    moderations = _moderations(record)
    if moderations:
        last = max(moderations, key=lambda m: m.round_number)
        return _clamp(last.confidence / 100)
    if not record.final:
        return None
    backing = [_clamp(p.confidence / 100) for p in record.final if _backs(p, record.decision)]
    return _mean(backing) or 0.0


def evaluate_quality(record: DebateRecord) -> dict[str, float | None]:
    """The five dimensions and `overall_quality` (the mean of those that apply), 4 places."""
    scores = {
        "logical_consistency": logical_consistency(record),
        "evidence_quality": evidence_quality(record),
        "argument_diversity": argument_diversity(record),
        "consensus_quality": consensus_quality(record),
        "decision_confidence": decision_confidence(record),
    }
    applicable = [v for v in scores.values() if v is not None]
    scores["overall_quality"] = _mean(applicable)
    return {k: _round(v) for k, v in scores.items()}


def comparison_inputs(record: DebateRecord) -> dict[str, Any]:
    """What the single-agent comparison needs later of this debate, stored beside the scores:
    the reasoning depth of the debate and of each agent's independent answer (distinct content
    words), each agent's independent confidence (0..1), and the cost and tokens of each
    independent answer: what asking that agent alone would have cost."""
    considered: set[str] = set()
    for s in record.statements:
        considered |= content_words(s.reasoning)
    for text in record.challenges:
        considered |= content_words(text)
    independent = _independent(record)
    return {
        "depth_debate": len(considered),
        "depth_single": {s.agent: len(content_words(s.reasoning)) for s in independent},
        "single_confidence": {s.agent: round(_clamp(s.confidence / 100), 4) for s in independent},
        "single_cost_usd": {s.agent: round(s.cost_usd, 6) for s in independent},
        "single_tokens": {s.agent: s.tokens for s in independent},
    }


def evaluate(record: DebateRecord) -> dict[str, Any]:
    """The stored form (`Debate.quality`): the scores and the comparison inputs."""
    return {**evaluate_quality(record), **comparison_inputs(record)}


# --- the single-agent comparison over many debates ----------------------------------------------


@dataclass(frozen=True)
class ComparisonRow:
    """One finished debate: its decision and reviewers' verdict ("" without one), each agent's
    independent decision, and its stored quality (`evaluate`'s output)."""

    protocol: str
    decision: str
    verdict: str
    single_agent: tuple[tuple[str, str], ...]
    quality: dict[str, Any] = field(default_factory=dict)
    cost_usd: float = 0.0
    tokens: int = 0


@dataclass
class _Brier:
    n: int = 0
    total: float = 0.0

    def add(self, confidence: float, right: bool) -> None:
        self.n += 1
        self.total += (confidence - (1.0 if right else 0.0)) ** 2

    @property
    def score(self) -> float | None:
        return round(self.total / self.n, 4) if self.n else None


def _figure(value: float | None, n: int, **more: Any) -> dict[str, Any]:
    return {"value": None if value is None else round(value, 4), "n": n, **more}


def compare_with_single_agent(rows: Iterable[ComparisonRow]) -> dict[str, Any]:
    """The comparison with a single agent, every figure with its n
    (docs/analysts/evaluation.md#comparison-with-a-single-agent):

    * accuracy_improvement: the debate's agreement rate with reviewers' verdicts minus the
      single agents' (labelled debates; single agents: one answer per agent per debate).
    * reasoning_depth: mean distinct content words the debate considered, mean of a single
      agent's independent answer, and their ratio (debates with stored quality).
    * bias_reduction: bias is the mean signed distance on ACT < WARN < REFUSE from the verdict
      (positive: too cautious); the reduction is |single agents' bias| - |debate's bias|
      (labelled debates whose decision set has that scale).
    * confidence_calibration: Brier score of confidence (0..1) against being right about the
      verdict, debate (decision_confidence) and single agents (independent confidence); the
      improvement is single - debate (lower is better calibrated).
    """
    debate_acc, single_acc = Agreement(), Agreement()
    depth_debate: list[float] = []
    depth_single: list[float] = []
    debate_bias: list[int] = []
    single_bias: list[int] = []
    debate_brier, single_brier = _Brier(), _Brier()
    for row in rows:
        quality = row.quality or {}
        if "depth_debate" in quality:
            depth_debate.append(float(quality["depth_debate"]))
            depth_single.extend(float(v) for v in quality.get("depth_single", {}).values())
        if not row.verdict:
            continue
        debate_acc = debate_acc.add(row.decision == row.verdict)
        for _, decision in row.single_agent:
            single_acc = single_acc.add(decision == row.verdict)
        if row.verdict in CAUTION and row.decision in CAUTION:
            debate_bias.append(CAUTION[row.decision] - CAUTION[row.verdict])
            single_bias.extend(
                CAUTION[d] - CAUTION[row.verdict] for _, d in row.single_agent if d in CAUTION
            )
        if quality.get("decision_confidence") is not None:
            debate_brier.add(float(quality["decision_confidence"]), row.decision == row.verdict)
        confidences = quality.get("single_confidence", {})
        for agent, decision in row.single_agent:
            if agent in confidences:
                single_brier.add(float(confidences[agent]), decision == row.verdict)
    improvement = (
        debate_acc.rate - single_acc.rate
        if debate_acc.rate is not None and single_acc.rate is not None
        else None
    )
    mean_debate, mean_single = _mean(depth_debate), _mean(depth_single)
    bias_d, bias_s = _mean(debate_bias), _mean(single_bias)
    brier_d, brier_s = debate_brier.score, single_brier.score
    return {
        "accuracy_improvement": _figure(
            improvement,
            debate_acc.n,
            debate=debate_acc.as_json(),
            single_agent=single_acc.as_json(),
        ),
        "reasoning_depth": _figure(
            mean_debate / mean_single if mean_debate is not None and mean_single else None,
            len(depth_debate),
            debate_mean_words=_round(mean_debate),
            single_agent_mean_words=_round(mean_single),
            single_agent_n=len(depth_single),
        ),
        "bias_reduction": _figure(
            abs(bias_s) - abs(bias_d) if bias_d is not None and bias_s is not None else None,
            len(debate_bias),
            debate_bias=_round(bias_d),
            single_agent_bias=_round(bias_s),
            single_agent_n=len(single_bias),
        ),
        "confidence_calibration": _figure(
            brier_s - brier_d if brier_d is not None and brier_s is not None else None,
            debate_brier.n,
            debate_brier=brier_d,
            single_agent_brier=brier_s,
            single_agent_n=single_brier.n,
        ),
    }


def cost_comparison(rows: Iterable[ComparisonRow]) -> dict[str, Any]:
    """Cost and tokens per debate against one agent's independent answer (what asking it alone
    costs), means with n (single agent: debates whose stored quality has those figures), and
    the ratios: what the extra calls cost."""
    debate_cost: list[float] = []
    debate_tokens: list[float] = []
    single_cost: list[float] = []
    single_tokens: list[float] = []
    for row in rows:
        debate_cost.append(row.cost_usd)
        debate_tokens.append(row.tokens)
        quality = row.quality or {}
        single_cost.extend(float(v) for v in quality.get("single_cost_usd", {}).values())
        single_tokens.extend(float(v) for v in quality.get("single_tokens", {}).values())
    mean_dc, mean_dt = _mean(debate_cost), _mean(debate_tokens)
    mean_sc, mean_st = _mean(single_cost), _mean(single_tokens)
    return {
        "debate": {
            "mean_cost_usd": None if mean_dc is None else round(mean_dc, 6),
            "mean_tokens": _round(mean_dt),
            "n": len(debate_cost),
        },
        "single_agent": {
            "mean_cost_usd": None if mean_sc is None else round(mean_sc, 6),
            "mean_tokens": _round(mean_st),
            "n": len(single_tokens),
        },
        "cost_ratio": _round(mean_dc / mean_sc) if mean_dc is not None and mean_sc else None,
        "token_ratio": _round(mean_dt / mean_st) if mean_dt is not None and mean_st else None,
    }


def quality_means(rows: Iterable[ComparisonRow]) -> dict[str, dict[str, Any]]:
    """Mean of each quality score over the debates where it applies, with n; and the consensus
    rate: the share of debates whose final positions all backed the decision."""
    values: dict[str, list[float]] = {k: [] for k in (*DIMENSIONS, "overall_quality")}
    unanimous = Agreement()
    for row in rows:
        for key, bucket in values.items():
            v = (row.quality or {}).get(key)
            if v is not None:
                bucket.append(float(v))
        consensus = (row.quality or {}).get("consensus_quality")
        if consensus is not None:
            unanimous = unanimous.add(float(consensus) >= 1.0)
    out = {k: _figure(_mean(v), len(v)) for k, v in values.items()}
    out["consensus_rate"] = _figure(unanimous.rate, unanimous.n)
    return out
