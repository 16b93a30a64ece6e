"""What the moderated rules would have decided without the debate (see
`protocols.evaluation`): an agent alone stands for the side it argued (NEUTRAL for UNCERTAIN);
the first arguments go through the weighted-strength rule of `rules.decide` as one round with
no moderator scores. A moderated decision weighs every argument and moderation, and no votes
are cast: it is not replayed from final votes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocols.base import Answer, clamped_score
from protocols.moderated import rules


def independent_decision(answer: Answer) -> str:
    return "UNCERTAIN" if answer.decision == "NEUTRAL" else answer.decision


def majority_decision(answers: Sequence[Answer], options: Mapping[str, Any]) -> str:
    arguments = [
        rules.Argument(
            agent=a.agent,
            role=a.role if a.role in rules.ROLE_WEIGHTS else "proponent",
            side=a.decision,
            round_number=1,
            confidence=clamped_score(a.confidence) / 100,
            supporting_evidence=tuple(a.evidence),
        )
        for a in answers
    ]
    decision = rules.decide(
        arguments,
        [rules.Evaluation(round_number=1, confidence=0.0)],
        consensus_threshold=options.get("consensus_threshold", 0.8),
        max_rounds=1,
    )
    return decision.decision
