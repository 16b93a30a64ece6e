"""Decision rules: turn the agents' final votes into one debate decision.

This module is plain Python with no framework imports and no randomness, so
that anyone can read exactly how a debate outcome was reached. Given the same
set of votes, ``decide`` always returns the same ``Decision``, including the
reasoning text and every metadata value, whatever order the votes arrive in.

Inputs
------
Each agent casts one ``Vote``: a decision (ACT, WARN, REFUSE or VETO), a
confidence (0-100), a risk estimate (0-100) and a free-text reasoning. Agent
names must be unique within one call. An empty list of votes is rejected.

Rules, applied in this order
----------------------------
1. Veto. If any vote is VETO, the decision is REFUSE and no counting takes
   place (consensus_type and rule are "veto"). The veto is honoured whatever
   risk the vetoing agent reported; enforcing the "risk >= 50" condition for
   using a veto is the agent's responsibility. When several agents veto, the
   one reporting the highest risk is named as ``veto_agent`` (ties broken by
   alphabetical agent name) and all of them are listed in ``veto_agents``.
   ``agreement_percentage`` and ``majority_decision`` are None on a veto.

2. Counting. ACT, WARN, REFUSE and VETO votes are counted separately. The
   total is the number of votes.

3. Agreement. The top count is the highest count among ACT, WARN and REFUSE.
   ``agreement_percentage`` is top count / total * 100, rounded to one
   decimal place (for example 66.7, 33.3, 100.0).

4. Consensus, checked in this order:

   a. Unanimous: every vote is the same decision. That decision wins
      (consensus_type "unanimous").
   b. Tie: exactly two decisions share the top count (for example 2 ACT and
      2 REFUSE out of 4, or 1 ACT and 1 WARN out of 2). The decision is
      REFUSE, the safety-first default (consensus_type "tie").
   c. Strong majority: a single decision holds the top count and the
      rounded agreement percentage is at least ``STRONG_MAJORITY_PCT`` (66).
      That decision wins (consensus_type "strong_majority"). With three
      agents this means 2 ACT + 1 other -> ACT, 2 WARN + 1 other -> WARN,
      2 REFUSE + 1 other -> REFUSE.
   d. Split: anything else (for example 1 ACT, 1 WARN, 1 REFUSE, or 2/1/1
      with four agents). The agents disagree, so the system admits
      uncertainty and returns WARN as the safest default
      (consensus_type "split").

   With three agents this reproduces the decision matrix exactly:
   3/0/0 ACT, 2/1/0 ACT, 2/0/1 ACT, 1/2/0 WARN, 0/3/0 WARN, 0/2/1 WARN,
   1/1/1 WARN, 0/1/2 REFUSE, 0/0/3 REFUSE, and any VETO REFUSE.

5. Risk and confidence notes (never change the decision, only report):

   * A vote with risk above ``HIGH_RISK_THRESHOLD`` (75) is listed in
     ``high_risk_votes``. If such a vote disagrees with the final decision
     (a VETO counts as agreeing with REFUSE), it was outvoted: its agent is
     listed in ``high_risk_outvoted`` and it is named in the reasoning.
   * If the average confidence, rounded to one decimal place, is below
     ``LOW_CONFIDENCE_THRESHOLD`` (60), ``low_confidence_warning`` is True
     and the reasoning says so.

Thresholds are compared against the rounded figures reported in metadata,
so the metadata always explains the outcome. Unanimity is the exception: it
requires every vote to be identical, not merely a rounded 100.0.

Metadata
--------
Every decision carries the same keys (all JSON-serialisable):

* ``rule`` / ``consensus_type``: "veto", "unanimous", "tie",
  "strong_majority" or "split".
* ``veto_applied`` (bool), ``veto_agent``, ``veto_agents``, ``veto_risk``,
  ``veto_reason`` (None / [] / None / None when there is no veto).
* ``total_votes`` and ``vote_breakdown`` (ints for ACT, WARN, REFUSE, VETO).
* ``agreement_percentage`` (float, None on a veto).
* ``majority_decision``: the decision that alone holds the top count, or
  None when no single decision does (a tie, a three-way split) and on a
  veto. On a split with a unique leader (for example 2/1/1) it names that
  leader even though the final decision is WARN.
* ``dissenting_votes``: votes whose decision differs from the final decision
  (a VETO counts as agreeing with REFUSE).
* ``max_risk``, ``avg_confidence`` (one decimal place).
* ``individual_votes``: {agent, decision, confidence, risk} per vote, sorted
  by agent name.
* ``high_risk_votes`` ({agent, decision, risk}, sorted by agent name),
  ``high_risk_outvoted`` (sorted agent names), ``low_confidence_warning``.

Numbers that are whole are reported as ints (95.0 becomes 95); other values
stay floats. ``agreement_percentage`` is always a float.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

from protocols import decision

DECISIONS = ("ACT", "WARN", "REFUSE")
VOTE_DECISIONS = DECISIONS + ("VETO",)

STRONG_MAJORITY_PCT = 66.0
HIGH_RISK_THRESHOLD = 75.0
LOW_CONFIDENCE_THRESHOLD = 60.0
VETO_RISK_THRESHOLD = 50

VETO_REASON = f"Risk threshold exceeded (>= {VETO_RISK_THRESHOLD})"

__all__ = [
    "DECISIONS",
    "HIGH_RISK_THRESHOLD",
    "LOW_CONFIDENCE_THRESHOLD",
    "STRONG_MAJORITY_PCT",
    "VOTE_DECISIONS",
    "Decision",
    "Vote",
    "decide",
]


def _check_score(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if not math.isfinite(value) or not 0 <= value <= 100:
        raise ValueError(f"{name} must be between 0 and 100, got {value!r}")


@dataclass(frozen=True)
class Vote:
    """One agent's final vote."""

    agent: str
    decision: str
    confidence: float
    risk: float
    reasoning: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.agent, str):
            raise TypeError("agent must be a string")
        if not self.agent.strip():
            raise ValueError("agent must be a non-empty name")
        if self.decision not in VOTE_DECISIONS:
            raise ValueError(
                f"decision must be one of {', '.join(VOTE_DECISIONS)}, got {self.decision!r}"
            )
        _check_score("confidence", self.confidence)
        _check_score("risk", self.risk)
        if not isinstance(self.reasoning, str):
            raise TypeError("reasoning must be a string")


class Decision(decision.Decision):
    """An S4 decision: ACT, WARN or REFUSE (a VETO is a vote, never the outcome)."""

    allowed = DECISIONS


def _num(value: float) -> int | float:
    """Report whole numbers as ints and everything else as floats."""
    value = float(value)
    return int(value) if value.is_integer() else value


def _fmt(value: float) -> str:
    return str(_num(value))


def _agrees(vote_decision: str, final: str) -> bool:
    if vote_decision == "VETO":
        return final == "REFUSE"
    return vote_decision == final


def _breakdown_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{counts[d]} {d}" for d in DECISIONS)


def _validated(votes: Iterable[Vote]) -> list[Vote]:
    if isinstance(votes, (str, bytes, dict)):
        raise TypeError("votes must be a sequence of Vote objects")
    items = list(votes)
    if not items:
        raise ValueError("at least one vote is required")
    seen: set[str] = set()
    for vote in items:
        if not isinstance(vote, Vote):
            raise TypeError(f"expected a Vote, got {type(vote).__name__}")
        if vote.agent in seen:
            raise ValueError(f"duplicate agent name: {vote.agent!r}")
        seen.add(vote.agent)
    # Sorting by the (unique) agent name makes everything below independent
    # of the order in which the votes were supplied.
    return sorted(items, key=lambda v: v.agent)


def _veto(vetoes: list[Vote]) -> tuple[str, dict[str, Any]]:
    lead = min(vetoes, key=lambda v: (-v.risk, v.agent))
    reason = lead.reasoning.strip()
    if reason:
        end = "" if reason.endswith((".", "!", "?")) else "."
        text = f"{lead.agent} exercised VETO: {reason}{end}"
    else:
        text = f"{lead.agent} exercised VETO (no reason given)."
    others = [v.agent for v in vetoes if v.agent != lead.agent]
    if others:
        text += f" Also vetoed by: {', '.join(others)}."
    fields = {
        "veto_agent": lead.agent,
        "veto_agents": [v.agent for v in vetoes],
        "veto_risk": _num(lead.risk),
        "veto_reason": VETO_REASON,
    }
    return text, fields


def _consensus(counts: dict[str, int], total: int, agreement: float) -> tuple[str, str, str]:
    """Return (decision, rule, reasoning) for a vote without any VETO."""
    top = max(counts[d] for d in DECISIONS)
    leaders = [d for d in DECISIONS if counts[d] == top]
    breakdown = _breakdown_text(counts)

    if top == total:
        final = leaders[0]
        if final == "WARN":
            text = f"Unanimous caution: all {total} agents recommend WARN."
        else:
            text = f"Unanimous decision: all {total} agents agree on {final}."
        return final, "unanimous", text

    if len(leaders) == 2:
        first, second = leaders
        text = (
            f"Tie: {first} and {second} each have {top} of {total} votes ({breakdown}). "
            "Defaulting to REFUSE on a tie (safety first)."
        )
        return "REFUSE", "tie", text

    if len(leaders) == 1 and agreement >= STRONG_MAJORITY_PCT:
        final = leaders[0]
        dissent = total - top
        share = f"{top}/{total}, {agreement}%"
        noun = "vote" if dissent == 1 else "votes"
        if final == "ACT":
            text = (
                f"Strong majority ({share}): proceeding with ACT despite "
                f"{dissent} dissenting {noun}."
            )
        else:
            text = (
                f"Strong majority ({share}) for {final}, the more cautious path; "
                f"{dissent} dissenting {noun}."
            )
        return final, "strong_majority", text

    text = (
        f"Agents disagree: {breakdown}. No decision reaches the "
        f"{_fmt(STRONG_MAJORITY_PCT)}% strong-majority threshold (top agreement "
        f"{agreement}%), so the outcome is uncertain. "
        "Proceeding with WARN as the safest default."
    )
    return "WARN", "split", text


def decide(votes: Sequence[Vote]) -> Decision:
    """Apply the decision rules described in the module docstring."""
    ordered = _validated(votes)
    total = len(ordered)

    counts = {d: 0 for d in VOTE_DECISIONS}
    for vote in ordered:
        counts[vote.decision] += 1

    avg_confidence = round(math.fsum(v.confidence for v in ordered) / total, 1)
    max_risk = max(v.risk for v in ordered)
    top = max(counts[d] for d in DECISIONS)
    leaders = [d for d in DECISIONS if counts[d] == top]

    vetoes = [v for v in ordered if v.decision == "VETO"]
    veto_fields: dict[str, Any] = {
        "veto_agent": None,
        "veto_agents": [],
        "veto_risk": None,
        "veto_reason": None,
    }
    if vetoes:
        final = "REFUSE"
        rule = "veto"
        text, veto_fields = _veto(vetoes)
        agreement = None
        majority = None
    else:
        agreement = round(top * 100 / total, 1)
        final, rule, text = _consensus(counts, total, agreement)
        majority = leaders[0] if len(leaders) == 1 else None

    high_risk = [v for v in ordered if v.risk > HIGH_RISK_THRESHOLD]
    outvoted = [v for v in high_risk if not _agrees(v.decision, final)]
    low_confidence = avg_confidence < LOW_CONFIDENCE_THRESHOLD

    notes = [text]
    for vote in outvoted:
        notes.append(
            f"High-risk assessment outvoted: {vote.agent} voted {vote.decision} "
            f"with risk {_fmt(vote.risk)} (above {_fmt(HIGH_RISK_THRESHOLD)})."
        )
    if low_confidence:
        notes.append(
            f"Low confidence warning: average confidence {_fmt(avg_confidence)} % is below "
            f"{_fmt(LOW_CONFIDENCE_THRESHOLD)} %, so treat this decision with extra caution."
        )

    metadata: dict[str, Any] = {
        "rule": rule,
        "consensus_type": rule,
        "veto_applied": bool(vetoes),
        **veto_fields,
        "total_votes": total,
        "vote_breakdown": dict(counts),
        "agreement_percentage": agreement,
        "majority_decision": majority,
        "dissenting_votes": sum(1 for v in ordered if not _agrees(v.decision, final)),
        "max_risk": _num(max_risk),
        "avg_confidence": _num(avg_confidence),
        "low_confidence_warning": low_confidence,
        "individual_votes": [
            {
                "agent": v.agent,
                "decision": v.decision,
                "confidence": _num(v.confidence),
                "risk": _num(v.risk),
            }
            for v in ordered
        ],
        "high_risk_votes": [
            {"agent": v.agent, "decision": v.decision, "risk": _num(v.risk)} for v in high_risk
        ],
        "high_risk_outvoted": [v.agent for v in outvoted],
    }
    return Decision(decision=final, reasoning=" ".join(notes), metadata=metadata)
