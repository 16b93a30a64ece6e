"""The round-robin debate (docs/concepts/round-robin.md): strict turn-taking among specialists.

Agents speak one at a time, in their order, never two at once: every turn is a step with a
single call. Each turn shows the agent the question, its own latest position, and the latest
position (stance, confidence, risk, reasoning) of every peer that has spoken, including the
turns taken earlier in the same round. Round 1 is the initial analysis; later rounds are debate
rounds.

After every full round the consensus check of `rules` (in this package) runs on the latest
stances (share on one stance >= `consensus_threshold`, 0.75). The debate ends after the first
round where consensus holds and every agent has spoken at least `min_turns_per_agent` times
(2; so consensus in round 1 still gets a second round), or after `max_rounds` (5) rounds.
Rounds are counted from the initial analysis: `max_rounds` 5 means at most five turns each.

The stance of each turn is read by the parser from the reply's "stance" field, from BUY / HOLD /
SELL on an investment question and ACT / WARN / REFUSE otherwise (option `stances`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocols.base import (
    MODEL_OPTION,
    Answer,
    CallRequest,
    DebateProtocol,
    FinalVote,
    OptionError,
    Outcome,
    ParticipantSpec,
    ProtocolError,
    StatementReply,
    Step,
    StepGenerator,
    validate_options,
)
from protocols.framing import cap_confidence, wrap_query_as_data
from protocols.prompting import QUOTE_CLOSE, QUOTE_OPEN, clipped, system_message
from protocols.round_robin import baselines, offline
from protocols.round_robin import rules as round_robin_rules
from protocols.round_robin.charts import agreement_chart
from protocols.round_robin.formats import (
    OWN_POSITION,
    PEER_POSITION,
    REPLY_FORMAT,
    position_fields,
    stance_choices,
)
from protocols.round_robin.parsing import parse_turn
from protocols.round_robin.presentation import RoundRobinPresentation
from protocols.round_robin.rules import STANCE_SETS
from protocols.selection import is_investment_question

STANCE_MEANINGS = {
    "investment": (
        "BUY: buy now, or add to the position. HOLD: keep what is held and wait; do not act "
        "now. SELL: sell, or stay out."
    ),
    "decision": (
        "ACT: answer/act on the question. WARN: act, but with explicit caveats. REFUSE: do not "
        "act on it."
    ),
}
SHOWN_REASONING_CHARS = 600


class RoundRobinProtocol(DebateProtocol):
    name = "round_robin"
    label = "Round robin: specialists take strict turns until 75% agree (up to 5 rounds)"
    description = (
        "Specialist agents speak one at a time, each seeing its peers' latest positions; after "
        "every round a consensus check (share on one stance). Every agent speaks at least "
        "twice. Decides the agreed stance (BUY / HOLD / SELL on investment questions, else "
        "ACT / WARN / REFUSE), or NO_CONSENSUS for review."
    )
    decisions = round_robin_rules.DECISIONS
    min_participants = 2
    max_participants = 6
    roles_needed = "any roles (each agent takes a stance of its own)"
    options_schema: dict[str, Any] = {
        "max_rounds": {
            "type": "int",
            "default": 5,
            "min": 1,
            "max": 10,
            "description": "Most rounds, counting the initial analysis (a turn per agent each).",
        },
        "min_turns_per_agent": {
            "type": "int",
            "default": 2,
            "min": 1,
            "max": 10,
            "description": "Every agent speaks at least this many times, even after consensus.",
        },
        "consensus_threshold": {
            "type": "float",
            "default": 0.75,
            "min": 0.51,
            "max": 1.0,
            "description": "Share of agents that must hold the same stance for consensus.",
        },
        "stances": {
            "type": "str",
            "default": "auto",
            "choices": ["auto", "investment", "decision"],
            "description": "BUY/HOLD/SELL (investment) or ACT/WARN/REFUSE (decision); auto "
            "picks investment for investment questions.",
        },
        "model": MODEL_OPTION,
    }
    presentation = RoundRobinPresentation()
    offline_responders = offline.RESPONDERS
    api_example = {
        "title": "A round robin with its defaults",
        "value": {
            "question": "Should I invest in an index fund now?",
            "protocol": "round_robin",
            "agents": ["valuation", "sentiment", "fundamental"],
            "options": {"max_rounds": 5, "min_turns_per_agent": 2},
        },
    }
    agreement_metadata = ("agreement_share", 100)
    rules_module = round_robin_rules
    replayable = True

    @classmethod
    def charts(cls, so_far):
        return [agreement_chart(so_far)]

    @classmethod
    def independent_decision(cls, answer: Answer) -> str:
        return baselines.independent_decision(answer)

    @classmethod
    def majority_decision(cls, answers: Sequence[Answer], options: Mapping[str, Any]) -> str:
        return baselines.consensus_decision(1, answers, options)

    @classmethod
    def replay_decision(cls, votes: Sequence[Answer], options: Mapping[str, Any]) -> str:
        return baselines.consensus_decision(0, votes, options)

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        """Rules across options (the schema checks each one alone)."""
        if options["min_turns_per_agent"] > options["max_rounds"]:
            raise OptionError(
                {
                    "min_turns_per_agent": (
                        f"min_turns_per_agent ({options['min_turns_per_agent']}) cannot exceed "
                        f"max_rounds ({options['max_rounds']}): each round is one turn per agent."
                    )
                }
            )

    def __init__(
        self,
        *,
        query: str,
        participants: list[ParticipantSpec],
        complex_query: bool = False,
        options: dict[str, Any] | None = None,
    ):
        self.check_participants(participants)
        try:
            self.options = validate_options(self.options_schema, options, protocol=self.name)
            self.check_options(self.options)
        except OptionError as exc:
            raise ProtocolError(str(exc)) from exc
        self.query = query
        self.participants = list(participants)
        self.by_slug = {p.slug: p for p in participants}
        self.complex_query = complex_query
        self.max_rounds = self.options["max_rounds"]
        self.min_turns = self.options["min_turns_per_agent"]
        self.threshold = self.options["consensus_threshold"]
        stance_set = self.options["stances"]
        if stance_set == "auto":
            stance_set = "investment" if is_investment_question(query) else "decision"
        self.stance_set = stance_set
        self.stances = STANCE_SETS[stance_set]

    # --- prompts ------------------------------------------------------------------------------

    def turn_request(
        self,
        p: ParticipantSpec,
        round_number: int,
        latest: dict[str, tuple[int, StatementReply]],
        checks: list[round_robin_rules.ConsensusCheck],
    ) -> CallRequest:
        kind = "initial analysis" if round_number == 1 else "debate round"
        lines = [
            f"STEP: turn (round {round_number} of at most {self.max_rounds}, {kind}; your turn "
            f"{round_number}). Agents speak one at a time; it is your turn.",
            "The question:",
            wrap_query_as_data(self.query),
            "",
        ]
        if p.slug in latest:
            own_round, own = latest[p.slug]
            lines.append(OWN_POSITION.format(round=own_round, **position_fields(own)))
        peers = [
            (q, latest[q.slug]) for q in self.participants if q.slug != p.slug and q.slug in latest
        ]
        if peers:
            lines.append("Your peers' latest positions:")
            for q, (peer_round, parsed) in peers:
                lines.append(
                    PEER_POSITION.format(
                        name=q.name, role=q.role, round=peer_round, **position_fields(parsed)
                    )
                )
                lines.append(QUOTE_OPEN)
                lines.append(
                    clipped(parsed.reasoning, SHOWN_REASONING_CHARS) or "(no reasoning given)"
                )
                lines.append(QUOTE_CLOSE)
        else:
            lines.append("Your peers' latest positions: none yet; you speak first.")
        needed = f"{self.threshold:.0%} of the {len(self.participants)} agents on one stance"
        if checks:
            last = checks[-1]
            counts = ", ".join(f"{n} {s}" for s, n in last.counts.items()) or "no stance"
            state = "consensus" if last.reached else "no consensus"
            lines.append(f"After round {last.round_number}: {state} ({counts}); it needs {needed}.")
        else:
            lines.append(f"Consensus needs {needed}.")
        lines += [
            "",
            "Analyse the question from your specialty. Answer, by name, the peer arguments you "
            "disagree with. Keep your stance if the evidence supports it, or change it and say "
            "which argument moved you. Do not agree just to reach consensus.",
            REPLY_FORMAT.format(
                stances=stance_choices(self.stances), meanings=STANCE_MEANINGS[self.stance_set]
            ),
        ]
        return CallRequest(
            key=f"r{round_number}:{p.slug}",
            participant=p.slug,
            round_number=round_number,
            step="turn",
            messages=(system_message(p), {"role": "user", "content": "\n".join(lines)}),
            previous_key=f"r{round_number - 1}:{p.slug}" if round_number > 1 else None,
        )

    # --- parsing ------------------------------------------------------------------------------

    def parse(self, request: CallRequest, raw: str) -> StatementReply:
        if request.step != "turn":
            raise ProtocolError(f"round_robin has no step '{request.step}'")
        t = parse_turn(raw, stances=self.stances)
        notes = list(t.notes)
        confidence = t.confidence
        if not t.parse_failed:
            confidence, note = cap_confidence(confidence, complex_query=self.complex_query)
            if note:
                notes.append(note)
        return StatementReply(
            decision=t.stance,
            confidence=confidence,
            risk=t.risk,
            reasoning=t.reasoning,
            parse_failed=t.parse_failed,
            error=t.error,
            notes=tuple(notes),
            details={
                "responds_to": list(t.responds_to),
                "round_number": request.round_number,
                "stance_set": self.stance_set,
            },
        )

    # --- the debate ---------------------------------------------------------------------------

    def round_name(self, round_number: int) -> str:
        return "Initial Analysis" if round_number == 1 else f"Debate Round {round_number}"

    def run(self) -> StepGenerator:
        latest: dict[str, tuple[int, StatementReply]] = {}
        first: dict[str, str] = {}
        checks: list[round_robin_rules.ConsensusCheck] = []
        ps = self.participants
        for round_number in range(1, self.max_rounds + 1):
            for i, p in enumerate(ps):
                request = self.turn_request(p, round_number, latest, checks)
                results = yield Step(
                    round_number,
                    self.round_name(round_number),
                    (request,),
                    closes_round=i == len(ps) - 1,
                )
                latest[p.slug] = (round_number, results[request.key])
                first.setdefault(p.slug, results[request.key].decision)
            check = round_robin_rules.check_consensus(
                round_number, {p.slug: latest[p.slug][1].decision for p in ps}, self.threshold
            )
            checks.append(check)
            if check.reached and round_number >= self.min_turns:
                break
        return self._outcome(latest, first, checks)

    def _outcome(self, latest, first, checks) -> Outcome:
        last_round = checks[-1].round_number
        positions = [
            round_robin_rules.Position(
                agent=p.name,
                stance=latest[p.slug][1].decision,
                confidence=latest[p.slug][1].confidence,
                risk=latest[p.slug][1].risk,
                turns=last_round,
                parse_failed=latest[p.slug][1].parse_failed,
            )
            for p in self.participants
        ]
        decision = round_robin_rules.decide(
            positions,
            checks,
            threshold=self.threshold,
            min_turns_per_agent=self.min_turns,
            max_rounds=self.max_rounds,
            stance_set=self.stance_set,
            changed_position=[
                p.name for p in self.participants if latest[p.slug][1].decision != first[p.slug]
            ],
        )
        votes = tuple(
            FinalVote(
                participant=p.slug,
                decision=latest[p.slug][1].decision,
                confidence=latest[p.slug][1].confidence,
                risk=latest[p.slug][1].risk,
                reasoning=latest[p.slug][1].reasoning,
                statement_key=f"r{latest[p.slug][0]}:{p.slug}",
            )
            for p in self.participants
        )
        return Outcome(
            votes=votes,
            decision=decision,
            final_round_number=last_round,
            final_round_name=self.round_name(last_round),
            extra={"speaking_order": [p.name for p in self.participants]},
        )
