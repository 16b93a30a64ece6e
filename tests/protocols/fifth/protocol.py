"""The show of hands: one round in which every agent, alone, says YES or NO (one call each, at
once); the final votes are those hands and `rules.decide` counts them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from protocols.base import (
    Answer,
    CallRequest,
    DebateProtocol,
    FinalVote,
    Outcome,
    ParticipantSpec,
    ProtocolError,
    StatementReply,
    Step,
    StepGenerator,
)
from protocols.framing import wrap_query_as_data
from protocols.prompting import system_message
from tests.protocols.fifth import offline, rules
from tests.protocols.fifth.charts import hands_chart

REPLY_FORMAT = (
    'Reply with one JSON object and nothing else: {"hand": "YES" | "NO", '
    '"confidence": 0-100, "risk": 0-100, "reasoning": "why"}.'
)


class ShowOfHandsProtocol(DebateProtocol):
    name = "show_of_hands"
    label = "Show of hands: each agent says YES or NO once; the majority decides"
    description = "Every agent answers YES or NO alone; more hands for one side decide it."
    decisions = rules.DECISIONS
    min_participants = 2
    max_participants = 6
    offline_responders = offline.RESPONDERS
    rules_module = rules
    replayable = True

    def __init__(
        self,
        *,
        query: str,
        participants: list[ParticipantSpec],
        complex_query: bool = False,
        options: dict[str, Any] | None = None,
    ):
        if not self.min_participants <= len(participants) <= self.max_participants:
            raise ProtocolError(f"A show of hands needs 2 to 6 agents; got {len(participants)}.")
        self.query = query
        self.participants = list(participants)

    def hand_request(self, p: ParticipantSpec) -> CallRequest:
        user = "\n".join(
            [f"STEP: {offline.STEP}", "The question:", wrap_query_as_data(self.query), REPLY_FORMAT]
        )
        return CallRequest(
            key=f"r1:{p.slug}",
            participant=p.slug,
            round_number=1,
            step="analysis",
            messages=(system_message(p), {"role": "user", "content": user}),
        )

    def parse(self, request: CallRequest, raw: str) -> StatementReply:
        try:
            data = json.loads(raw)
            hand, confidence, risk = data["hand"], float(data["confidence"]), float(data["risk"])
            if hand not in rules.HANDS:
                raise ValueError(f"no hand: {hand!r}")
        except (ValueError, TypeError, KeyError) as exc:
            return StatementReply("NO", 50.0, 75.0, "", parse_failed=True, error=str(exc))
        return StatementReply(hand, confidence, risk, str(data.get("reasoning", "")), False)

    def run(self) -> StepGenerator:
        replies = yield Step(1, "Hands", tuple(self.hand_request(p) for p in self.participants))
        votes = tuple(
            FinalVote(
                participant=p.slug,
                decision=(reply := replies[f"r1:{p.slug}"]).decision,
                confidence=reply.confidence,
                risk=reply.risk,
                reasoning=reply.reasoning,
                statement_key=f"r1:{p.slug}",
            )
            for p in self.participants
        )
        decision = rules.decide({v.participant: v.decision for v in votes})
        return Outcome(
            votes=votes, decision=decision, final_round_number=2, final_round_name="Count"
        )

    @classmethod
    def charts(cls, so_far):
        return [hands_chart(so_far)]

    @classmethod
    def majority_decision(cls, answers: Sequence[Answer], options: Mapping[str, Any]) -> str:
        return rules.decide({a.agent: a.decision for a in answers}).decision

    @classmethod
    def replay_decision(cls, votes: Sequence[Answer], options: Mapping[str, Any]) -> str:
        return rules.decide({v.agent: v.decision for v in votes}).decision
