"""What the S4 rules would have decided without the debate (see `protocols.evaluation`): an
agent alone stands for its own decision (a VETO for REFUSE); the independent answers, and on
replay the stored final votes, go through `rules.decide`."""

from __future__ import annotations

from collections.abc import Sequence

from protocols.base import Answer, clamped_score
from protocols.s4 import rules


def independent_decision(answer: Answer) -> str:
    return "REFUSE" if answer.decision == "VETO" else answer.decision


def majority_decision(answers: Sequence[Answer]) -> str:
    votes = [
        rules.Vote(
            agent=a.agent,
            decision=a.decision,
            confidence=clamped_score(a.confidence),
            risk=clamped_score(a.risk),
        )
        for a in answers
    ]
    return rules.decide(votes).decision
