"""Does debate help? Baselines and dynamics of one finished debate, from what is stored.

Plain Python: no framework imports, no database, no language model. Everything here is a
function of the agents' independent answers (S4's round-1 analysis, the first argument of a
moderated debate, the first round-robin turn), their final positions and the debate's decision.

* Single-agent decision: each agent's independent answer alone, in the protocol's decision set
  (the protocol's `independent_decision`: S4's VETO is REFUSE; a moderated NEUTRAL is
  UNCERTAIN; an unreadable round-robin turn is NO_CONSENSUS).
* Majority-vote decision: the independent answers put through the protocol's own pure rules
  (its `majority_decision`: S4 and vote: `s4.rules.decide`; round robin: its consensus check
  on round 1; moderated: its weighted-strength rule with no moderator scores), so it is what
  the debate would have decided had nobody talked to anybody.
* Outcome change: the debate's decision against the majority-vote decision: "same",
  "more_cautious" / "less_cautious" on the caution scale ACT < WARN < REFUSE, or "changed"
  when the two are not on that scale (investment stances, SUPPORT / OPPOSE).
* Dynamics: each agent's independent decision against its final one, with the same direction
  words; given a reviewer's verdict, `verdict_effect` says whether a change "corrected" the
  agent or "talked it out of the right answer" (also "stayed_right" / "stayed_wrong").

What is particular to a protocol is asked of its class in the registry (`rules_module`,
`independent_decision`, `majority_decision`, `replayable`, `replay_decision`: see
`protocols.base.DebateProtocol`); nothing here knows a protocol by name.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocols import PROTOCOLS, protocol_for
from protocols.base import Answer

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

__all__ = [
    "CAUTION",
    "CHANGES",
    "EFFECTS",
    "AgentDynamics",
    "Answer",
    "Baselines",
    "change_direction",
    "compute_baselines",
    "has_baselines",
    "majority_decision",
    "replay_decision",
    "replayable",
    "replayable_protocols",
    "rules_version",
    "single_agent_decision",
    "verdict_effect",
]


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


def has_baselines(protocol: str) -> bool:
    """Whether debates of `protocol` have baselines: it is registered with rules of its own."""
    return protocol_for(protocol).rules_module is not None


def rules_version(protocol: str) -> str:
    """The version of `protocol`'s decision rules: the first 12 hex digits of the SHA-256 of
    its rules module's source, so any edit to the rules gives a new version. "" if unknown."""
    module = protocol_for(protocol).rules_module
    if module is None:
        return ""
    return hashlib.sha256(inspect.getsource(module).encode()).hexdigest()[:12]


def change_direction(before: str, after: str) -> str:
    """ "same", "more_cautious", "less_cautious", or "changed" off the caution scale."""
    if before == after:
        return SAME
    if before in CAUTION and after in CAUTION:
        if CAUTION[before] == CAUTION[after]:
            return SAME
        return MORE_CAUTIOUS if CAUTION[after] > CAUTION[before] else LESS_CAUTIOUS
    return CHANGED


def single_agent_decision(protocol: str, answer: Answer) -> str:
    """The decision the agent's answer alone stands for, in the protocol's decision set."""
    return protocol_for(protocol).independent_decision(answer)


def majority_decision(
    protocol: str, answers: Sequence[Answer], options: Mapping[str, Any] | None = None
) -> str:
    """The independent answers through the protocol's own rules (see the module docstring)."""
    if not answers:
        raise ValueError("at least one independent answer is required")
    if not has_baselines(protocol):
        raise ValueError(f"no baseline rules for protocol {protocol!r}")
    return protocol_for(protocol).majority_decision(answers, options or {})


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


# --- Reviewer verdicts as ground truth ---------------------------------------------------------


@dataclass(frozen=True)
class DebateRow:
    """One finished debate as the ground-truth figures read it. `verdict` is the reviewers'
    ("" when no review item was resolved: then it counts for cost and latency only);
    `agents` holds (slug, model, independent decision, final decision) per agent."""

    protocol: str
    decision: str
    majority_decision: str
    verdict: str
    cost_usd: float
    duration_seconds: float | None
    agents: tuple[tuple[str, str, str, str], ...] = ()


@dataclass(frozen=True)
class Agreement:
    """How often a decision-maker agreed with the reviewers: `agreed` of `n` labelled examples
    (`rate` None when n is 0)."""

    n: int = 0
    agreed: int = 0

    @property
    def rate(self) -> float | None:
        return round(self.agreed / self.n, 4) if self.n else None

    def add(self, hit: bool) -> Agreement:
        return Agreement(self.n + 1, self.agreed + int(hit))

    def as_json(self) -> dict[str, Any]:
        return {"n": self.n, "agreed": self.agreed, "rate": self.rate}


@dataclass(frozen=True)
class GroupFigures:
    """Figures of one group (all debates, a protocol, an agent or a model).

    * `labelled`: debates with a reviewers' verdict: the n of `debate`, `majority`,
      `single_agent` and of `overrides`; for an agent or a model, only its debates.
    * `debate` / `majority` / `single_agent`: agreement with the verdict of the debate's
      decision, the majority-vote baseline, and the agents' independent answers (one labelled
      example per agent per debate, so its n counts answers, not debates).
    * `overrides`: labelled debates whose verdict differs from the rules' decision
      (`override_rate` = overrides / labelled).
    * `corrected` / `talked_out`: agents whose change of position moved them to / away from
      the verdict (n: `single_agent.n`).
    * `decisions`: finished debates, labelled or not: the n of `cost_per_decision_usd` and
      `latency_per_decision_s` (means; None when n is 0; latency over those with a duration).
    """

    key: str
    labelled: int
    debate: Agreement
    majority: Agreement
    single_agent: Agreement
    overrides: int
    corrected: int
    talked_out: int
    decisions: int
    cost_per_decision_usd: float | None
    latency_per_decision_s: float | None

    @property
    def override_rate(self) -> float | None:
        return round(self.overrides / self.labelled, 4) if self.labelled else None

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "labelled": self.labelled,
            "debate": self.debate.as_json(),
            "majority": self.majority.as_json(),
            "single_agent": self.single_agent.as_json(),
            "overrides": self.overrides,
            "override_rate": self.override_rate,
            "corrected": self.corrected,
            "talked_out": self.talked_out,
            "decisions": self.decisions,
            "cost_per_decision_usd": self.cost_per_decision_usd,
            "latency_per_decision_s": self.latency_per_decision_s,
        }


class _Group:
    def __init__(self, key: str):
        self.key = key
        self.labelled = self.overrides = self.corrected = self.talked_out = 0
        self.debate = self.majority = self.single = Agreement()
        self.decisions = 0
        self.cost = 0.0
        self.latency: list[float] = []

    def add_debate(self, row: DebateRow) -> None:
        self.decisions += 1
        self.cost += row.cost_usd
        if row.duration_seconds is not None:
            self.latency.append(row.duration_seconds)
        if row.verdict:
            self.labelled += 1
            self.debate = self.debate.add(row.decision == row.verdict)
            self.majority = self.majority.add(row.majority_decision == row.verdict)
            self.overrides += int(row.decision != row.verdict)

    def add_agent(self, row: DebateRow, independent: str, final: str) -> None:
        if row.verdict:
            self.single = self.single.add(independent == row.verdict)
            effect = verdict_effect(independent, final, row.verdict)
            self.corrected += int(effect == CORRECTED)
            self.talked_out += int(effect == TALKED_OUT)

    def figures(self) -> GroupFigures:
        return GroupFigures(
            key=self.key,
            labelled=self.labelled,
            debate=self.debate,
            majority=self.majority,
            single_agent=self.single,
            overrides=self.overrides,
            corrected=self.corrected,
            talked_out=self.talked_out,
            decisions=self.decisions,
            cost_per_decision_usd=round(self.cost / self.decisions, 6) if self.decisions else None,
            latency_per_decision_s=(
                round(sum(self.latency) / len(self.latency), 3) if self.latency else None
            ),
        )


@dataclass(frozen=True)
class GroundTruthFigures:
    """`overall`, then one `GroupFigures` per protocol, per agent (slug) and per model, each
    list sorted by key."""

    overall: GroupFigures
    by_protocol: tuple[GroupFigures, ...]
    by_agent: tuple[GroupFigures, ...]
    by_model: tuple[GroupFigures, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "overall": self.overall.as_json(),
            "by_protocol": [g.as_json() for g in self.by_protocol],
            "by_agent": [g.as_json() for g in self.by_agent],
            "by_model": [g.as_json() for g in self.by_model],
        }


def ground_truth_figures(rows: Sequence[DebateRow]) -> GroundTruthFigures:
    """Agreement with reviewers' verdicts, override rate, cost and latency (see
    `GroupFigures`). Per agent and per model, `debate` and `majority` count the debates the
    agent (a model: any agent on it) took part in; `single_agent` its own answers."""
    overall = _Group("all")
    groups: dict[str, dict[str, _Group]] = {"protocol": {}, "agent": {}, "model": {}}

    def group(kind: str, key: str) -> _Group:
        return groups[kind].setdefault(key, _Group(key))

    for row in rows:
        overall.add_debate(row)
        group("protocol", row.protocol).add_debate(row)
        for slug in dict.fromkeys(a[0] for a in row.agents):
            group("agent", slug).add_debate(row)
        for model in dict.fromkeys(a[1] for a in row.agents):
            group("model", model).add_debate(row)
        for slug, model, independent, final in row.agents:
            overall.add_agent(row, independent, final)
            group("protocol", row.protocol).add_agent(row, independent, final)
            group("agent", slug).add_agent(row, independent, final)
            group("model", model).add_agent(row, independent, final)

    def listed(kind: str) -> tuple[GroupFigures, ...]:
        return tuple(groups[kind][k].figures() for k in sorted(groups[kind]))

    return GroundTruthFigures(
        overall=overall.figures(),
        by_protocol=listed("protocol"),
        by_agent=listed("agent"),
        by_model=listed("model"),
    )


# --- Replay ------------------------------------------------------------------------------------


def replayable(protocol: str) -> bool:
    """Whether debates of `protocol` are decided from their final votes alone, so that the
    current rules can be replayed on them (a moderated debate's decision weighs every argument
    and moderator evaluation, and it casts no votes)."""
    return protocol_for(protocol).replayable


def replayable_protocols() -> list[str]:
    """The registered protocols `replayable` holds for, in the registry's order."""
    return [name for name in PROTOCOLS if replayable(name)]


def replay_decision(
    protocol: str, votes: Sequence[Answer], options: Mapping[str, Any] | None = None
) -> str:
    """The decision the current rules give the stored final votes (the protocol's
    `replay_decision`: S4 and vote through `s4.rules.decide`, round robin through its
    consensus check on the final stances, what its `decide` decides by). Raises ValueError
    for a protocol that is not `replayable`."""
    if not replayable(protocol):
        raise ValueError(f"{protocol!r} debates are not decided from their final votes")
    if not votes:
        raise ValueError("at least one final vote is required")
    return protocol_for(protocol).replay_decision(votes, options or {})


@dataclass(frozen=True)
class ReplayDifference:
    debate_id: str
    protocol: str
    rules_version: str
    stored: str
    replayed: str

    def as_json(self) -> dict[str, str]:
        return {
            "debate_id": self.debate_id,
            "protocol": self.protocol,
            "rules_version": self.rules_version,
            "stored": self.stored,
            "replayed": self.replayed,
        }
