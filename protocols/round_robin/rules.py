"""Consensus rules of the round-robin debate (docs/concepts/round-robin.md#consensus-check).
Plain Python, no framework imports.

Consensus check (after every full round)
----------------------------------------
The latest stance of every agent is counted. The share of the leading stance is its count divided by
the number of agents (an agent whose turn could not be read stands as ABSTAIN: it is counted in the
total but never as a stance, so it can only make consensus harder). Consensus is reached when that
share is at least the threshold (option `consensus_threshold`, 0.75 by default), compared exactly as
fractions (3 of 4 is exactly 0.75). Thresholds above one half guarantee that at most one stance can
reach it.

The decision
------------
* consensus on the final positions: that stance (consensus_type "unanimous" when every agent
  holds it, "consensus" otherwise);
* otherwise NO_CONSENSUS (consensus_type "no_consensus"), which goes to review
  (`review_reasons` ["no_consensus"]).

"parse_failure" joins `review_reasons` when a final position is an unreadable turn.

The metadata (docs/concepts/round-robin.md#what-the-decision-records)
----------------------------------------------------------------------
* `agent_responses_summary`: `total_agents_consulted` (the agents in the debate),
  `successful_responses` (agents whose final turn could be read, so their stance counts) and
  `agents_used` (in speaking order);
* `debate_metadata`: `total_rounds`, `total_turns`, `agent_participation` (turns per agent),
  the block attached to every agent's response;
* each of `final_positions` (the agents' responses) carries its `debate_turns`: the turns that
  agent took.
The same figures also stand at the top level (`total_rounds`, `total_turns`,
`agent_participation`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from protocols import decision

INVESTMENT_STANCES = ("BUY", "HOLD", "SELL")
DECISION_STANCES = ("ACT", "WARN", "REFUSE")
ABSTAIN = "ABSTAIN"
NO_CONSENSUS = "NO_CONSENSUS"
DECISIONS = INVESTMENT_STANCES + DECISION_STANCES + (NO_CONSENSUS,)
#: The option `stances` names a set: BUY / HOLD / SELL or ACT / WARN / REFUSE.
STANCE_SETS = {"investment": INVESTMENT_STANCES, "decision": DECISION_STANCES}

__all__ = [
    "DECISIONS",
    "NO_CONSENSUS",
    "ConsensusCheck",
    "Position",
    "RoundRobinDecision",
    "check_consensus",
    "decide",
]


@dataclass(frozen=True)
class Position:
    agent: str
    stance: str
    confidence: float
    risk: float
    turns: int
    parse_failed: bool = False


@dataclass(frozen=True)
class ConsensusCheck:
    round_number: int
    reached: bool
    stance: str | None
    share: float
    counts: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return {
            "round": self.round_number,
            "reached": self.reached,
            "leading_stance": self.stance,
            "share": self.share,
            "counts": dict(self.counts),
        }


class RoundRobinDecision(decision.Decision):
    """A round-robin decision: the agreed stance, or NO_CONSENSUS."""

    allowed = DECISIONS


def check_consensus(
    round_number: int, stances: Mapping[str, str], threshold: float
) -> ConsensusCheck:
    """The consensus check of the module docstring, on each agent's latest stance."""
    if not stances:
        raise ValueError("at least one stance is required")
    counts = Counter(s for s in stances.values() if s != ABSTAIN)
    total = len(stances)
    leaders = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    stance, top = leaders[0] if leaders else (None, 0)
    if len(leaders) > 1 and leaders[1][1] == top:
        stance = None  # a tie has no leading stance
    reached = stance is not None and Fraction(top, total) >= Fraction(str(threshold))
    return ConsensusCheck(
        round_number=round_number,
        reached=reached,
        stance=stance,
        share=round(top / total, 4),
        counts=dict(sorted(counts.items())),
    )


def decide(
    positions: Sequence[Position],
    checks: Sequence[ConsensusCheck],
    *,
    threshold: float,
    min_turns_per_agent: int,
    max_rounds: int,
    stance_set: str,
    changed_position: Sequence[str] = (),
) -> RoundRobinDecision:
    """The decision of the module docstring, with its participation metadata."""
    if not positions or not checks:
        raise ValueError("positions and at least one consensus check are required")
    final = checks[-1]
    total = len(positions)
    if final.reached:
        decision = final.stance
        unanimous = final.counts.get(final.stance, 0) == total
        consensus_type = "unanimous" if unanimous else "consensus"
        first = _first_round_of_lasting_consensus(checks)
        text = (
            f"Consensus on {decision}: {final.counts[decision]} of {total} agents "
            f"({final.share:.0%}, threshold {threshold:.0%}) after round "
            f"{final.round_number}."
        )
        if first < final.round_number:
            text += (
                f" The agents agreed from round {first}; the debate went on until every agent "
                f"had spoken {min_turns_per_agent} times."
            )
    else:
        decision = NO_CONSENSUS
        consensus_type = "no_consensus"
        breakdown = ", ".join(f"{n} {s}" for s, n in final.counts.items()) or "no stance"
        text = (
            f"No consensus after {final.round_number} rounds ({breakdown}); no stance reached "
            f"{threshold:.0%} of the {total} agents. A person should decide."
        )
    review_reasons = [] if final.reached else ["no_consensus"]
    unreadable = [p.agent for p in positions if p.parse_failed]
    if unreadable:
        review_reasons.append("parse_failure")
        text += f" Unreadable final turn from: {', '.join(unreadable)}."
    reached_rounds = [c.round_number for c in checks if c.reached]
    metadata: dict[str, Any] = {
        "rule": "round_robin_consensus",
        "consensus_type": consensus_type,
        "consensus_reached": final.reached,
        "consensus_round": final.round_number if final.reached else None,
        "first_consensus_round": reached_rounds[0] if reached_rounds else None,
        "consensus_threshold": threshold,
        "agreement_share": final.share,
        "stance_breakdown": dict(final.counts),
        "stance_set": stance_set,
        "total_rounds": final.round_number,
        "total_turns": sum(p.turns for p in positions),
        "agent_participation": {p.agent: p.turns for p in positions},
        "min_turns_per_agent": min_turns_per_agent,
        "max_rounds": max_rounds,
        "stop_reason": "consensus" if final.reached else "max_rounds",
        "consensus_by_round": [c.as_dict() for c in checks],
        "final_positions": [
            {
                "agent": p.agent,
                "stance": p.stance,
                "confidence": p.confidence,
                "risk": p.risk,
                "debate_turns": p.turns,
            }
            for p in positions
        ],
        "agent_responses_summary": {
            "total_agents_consulted": total,
            "successful_responses": sum(1 for p in positions if not p.parse_failed),
            "agents_used": [p.agent for p in positions],
        },
        "debate_metadata": {
            "total_rounds": final.round_number,
            "total_turns": sum(p.turns for p in positions),
            "agent_participation": {p.agent: p.turns for p in positions},
        },
        "avg_confidence": round(sum(p.confidence for p in positions) / total, 1),
        "max_risk": max(p.risk for p in positions),
        "changed_position": list(changed_position),
        "review_reasons": review_reasons,
    }
    return RoundRobinDecision(decision=decision, reasoning=text, metadata=metadata)


def _first_round_of_lasting_consensus(checks: Sequence[ConsensusCheck]) -> int:
    """The round from which consensus held, on the same stance, until the end."""
    first = checks[-1].round_number
    for check in reversed(checks):
        if not (check.reached and check.stance == checks[-1].stance):
            break
        first = check.round_number
    return first
