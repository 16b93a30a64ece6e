"""Does debate help? Baselines and dynamics of one finished debate, from what is stored.

Plain Python: no framework imports, no database, no language model. Everything here is a
function of the agents' independent answers (S4's round-1 analysis, the first argument of a
moderated debate, the first round-robin turn), their final positions and the debate's decision.

* Single-agent decision: each agent's independent answer alone, in the protocol's decision set
  (S4's VETO is REFUSE; a moderated NEUTRAL is UNCERTAIN; an unreadable round-robin turn is
  NO_CONSENSUS).
* Majority-vote decision: the independent answers put through the protocol's own pure rules
  (S4 and vote: `s4.rules.decide`; round robin: its consensus check on round 1; moderated:
  its weighted-strength rule with no moderator scores), so it is what the debate would have
  decided had nobody talked to anybody.
* Outcome change: the debate's decision against the majority-vote decision: "same",
  "more_cautious" / "less_cautious" on the caution scale ACT < WARN < REFUSE, or "changed"
  when the two are not on that scale (investment stances, SUPPORT / OPPOSE).
* Dynamics: each agent's independent decision against its final one, with the same direction
  words; given a reviewer's verdict, `verdict_effect` says whether a change "corrected" the
  agent or "talked it out of the right answer" (also "stayed_right" / "stayed_wrong").
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from debates.protocols.moderated import rules as moderated_rules
from debates.protocols.round_robin import rules as round_robin_rules
from debates.protocols.s4 import rules as s4_rules

#: Caution scale for decisions that have one (a VETO counts as REFUSE).
CAUTION = {"ACT": 0, "WARN": 1, "REFUSE": 2, "VETO": 2}

SAME = "same"
MORE_CAUTIOUS = "more_cautious"
LESS_CAUTIOUS = "less_cautious"
CHANGED = "changed"
CHANGES = (SAME, MORE_CAUTIOUS, LESS_CAUTIOUS, CHANGED)

CORRECTED = "corrected"
TALKED_OUT = "talked_out"
STAYED_RIGHT = "stayed_right"
STAYED_WRONG = "stayed_wrong"
CHANGED_WRONG = "changed_wrong"
EFFECTS = (CORRECTED, TALKED_OUT, STAYED_RIGHT, STAYED_WRONG, CHANGED_WRONG)

#: Which rules module decides debates of each protocol (the rules version is its source hash).
RULES_MODULES: dict[str, ModuleType] = {
    "s4": s4_rules,
    "vote": s4_rules,
    "moderated": moderated_rules,
    "moderated_extended": moderated_rules,
    "round_robin": round_robin_rules,
}

__all__ = [
    "CAUTION",
    "CHANGES",
    "EFFECTS",
    "AgentDynamics",
    "Answer",
    "Baselines",
    "change_direction",
    "compute_baselines",
    "majority_decision",
    "rules_version",
    "single_agent_decision",
    "verdict_effect",
]


@dataclass(frozen=True)
class Answer:
    """One agent's position as stored: its decision (or side, or stance), confidence and risk
    on 0-100 (risk None where none is assessed), and for moderated arguments the role and the
    supporting evidence."""

    agent: str
    decision: str
    confidence: float
    risk: float | None = None
    parse_failed: bool = False
    role: str = ""
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class AgentDynamics:
    """One agent: its independent (single-agent) decision, its final one and the change."""

    agent: str
    independent: str
    final: str
    change: str

    def as_json(self) -> dict[str, str]:
        return {
            "agent": self.agent,
            "independent": self.independent,
            "final": self.final,
            "change": self.change,
        }


@dataclass(frozen=True)
class Baselines:
    """What the debate decided against what no debate would have decided."""

    protocol: str
    rules_version: str
    debate_decision: str
    majority_decision: str
    outcome_change: str
    agents: tuple[AgentDynamics, ...] = field(default_factory=tuple)

    @property
    def single_agent(self) -> dict[str, str]:
        return {a.agent: a.independent for a in self.agents}

    def as_json(self) -> dict[str, Any]:
        """The stored form (`Debate.baselines`): JSON-serialisable, keys always present."""
        return {
            "protocol": self.protocol,
            "rules_version": self.rules_version,
            "debate_decision": self.debate_decision,
            "majority_decision": self.majority_decision,
            "outcome_change": self.outcome_change,
            "single_agent": self.single_agent,
            "agents": [a.as_json() for a in self.agents],
        }


def rules_version(protocol: str) -> str:
    """The version of `protocol`'s decision rules: the first 12 hex digits of the SHA-256 of
    its rules module's source, so any edit to the rules gives a new version. "" if unknown."""
    module = RULES_MODULES.get(protocol)
    if module is None:
        return ""
    return hashlib.sha256(inspect.getsource(module).encode()).hexdigest()[:12]


def change_direction(before: str, after: str) -> str:
    """"same", "more_cautious", "less_cautious", or "changed" off the caution scale."""
    if before == after:
        return SAME
    if before in CAUTION and after in CAUTION:
        if CAUTION[before] == CAUTION[after]:
            return SAME
        return MORE_CAUTIOUS if CAUTION[after] > CAUTION[before] else LESS_CAUTIOUS
    return CHANGED


def single_agent_decision(protocol: str, answer: Answer) -> str:
    """The decision the agent's answer alone stands for, in the protocol's decision set."""
    if protocol in ("s4", "vote"):
        return "REFUSE" if answer.decision == "VETO" else answer.decision
    if protocol in ("moderated", "moderated_extended"):
        return "UNCERTAIN" if answer.decision == "NEUTRAL" else answer.decision
    if protocol == "round_robin":
        if answer.parse_failed or answer.decision == round_robin_rules.ABSTAIN:
            return round_robin_rules.NO_CONSENSUS
        return answer.decision
    return answer.decision


def _score(value: float | None) -> float:
    return min(max(float(value or 0), 0.0), 100.0)


def majority_decision(
    protocol: str, answers: Sequence[Answer], options: Mapping[str, Any] | None = None
) -> str:
    """The independent answers through the protocol's own rules (see the module docstring)."""
    if not answers:
        raise ValueError("at least one independent answer is required")
    options = options or {}
    if protocol in ("s4", "vote"):
        votes = [
            s4_rules.Vote(
                agent=a.agent,
                decision=a.decision,
                confidence=_score(a.confidence),
                risk=_score(a.risk),
            )
            for a in answers
        ]
        return s4_rules.decide(votes).decision
    if protocol == "round_robin":
        stances = {
            a.agent: round_robin_rules.ABSTAIN if a.parse_failed else a.decision for a in answers
        }
        check = round_robin_rules.check_consensus(
            1, stances, options.get("consensus_threshold", 0.75)
        )
        return check.stance if check.reached else round_robin_rules.NO_CONSENSUS
    if protocol in ("moderated", "moderated_extended"):
        arguments = [
            moderated_rules.Argument(
                agent=a.agent,
                role=a.role if a.role in moderated_rules.ROLE_WEIGHTS else "proponent",
                side=a.decision,
                round_number=1,
                confidence=_score(a.confidence) / 100,
                supporting_evidence=tuple(a.evidence),
            )
            for a in answers
        ]
        decision = moderated_rules.decide(
            arguments,
            [moderated_rules.Evaluation(round_number=1, confidence=0.0)],
            consensus_threshold=options.get("consensus_threshold", 0.8),
            max_rounds=1,
        )
        return decision.decision
    raise ValueError(f"no baseline rules for protocol {protocol!r}")


def compute_baselines(
    protocol: str,
    debate_decision: str,
    independent: Sequence[Answer],
    final: Sequence[Answer],
    options: Mapping[str, Any] | None = None,
) -> Baselines:
    """Baselines and per-agent dynamics of one finished debate. An agent with no final
    position (a moderated debater never gets a vote) keeps its last stored one: pass it in
    `final`; agents missing from `final` are taken not to have moved."""
    majority = majority_decision(protocol, independent, options)
    finals = {a.agent: a for a in final}
    agents = []
    for answer in sorted(independent, key=lambda a: a.agent):
        first = single_agent_decision(protocol, answer)
        last = single_agent_decision(protocol, finals.get(answer.agent, answer))
        agents.append(AgentDynamics(answer.agent, first, last, change_direction(first, last)))
    return Baselines(
        protocol=protocol,
        rules_version=rules_version(protocol),
        debate_decision=debate_decision,
        majority_decision=majority,
        outcome_change=change_direction(majority, debate_decision),
        agents=tuple(agents),
    )


def verdict_effect(independent: str, final: str, verdict: str) -> str | None:
    """What the debate did to one agent, judged by a reviewer's `verdict` (None without one):
    "corrected" (wrong, then right), "talked_out" (right, then wrong), "stayed_right",
    "stayed_wrong", or "changed_wrong" (wrong, then wrong in another way)."""
    if not verdict:
        return None
    was, now = independent == verdict, final == verdict
    if was and now:
        return STAYED_RIGHT
    if was:
        return TALKED_OUT
    if now:
        return CORRECTED
    return STAYED_WRONG if independent == final else CHANGED_WRONG


def dynamics_with_verdict(baselines: Mapping[str, Any], verdict: str) -> list[dict[str, Any]]:
    """The stored per-agent dynamics (`Baselines.as_json()["agents"]`), each with its
    `effect` against `verdict` (None when there is no verdict)."""
    return [
        {**a, "effect": verdict_effect(a["independent"], a["final"], verdict)}
        for a in baselines.get("agents", ())
    ]
