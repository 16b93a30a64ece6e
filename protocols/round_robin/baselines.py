"""What the round-robin rules would have decided without the debate (see
`protocols.evaluation`): an agent alone stands for its stance (an unreadable turn for
NO_CONSENSUS); the independent answers go through the consensus check as round 1, and on
replay the stored final stances through the same check (what `rules.decide` decides by)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocols.base import Answer
from protocols.round_robin import rules


def independent_decision(answer: Answer) -> str:
    if answer.parse_failed or answer.decision == rules.ABSTAIN:
        return rules.NO_CONSENSUS
    return answer.decision


def consensus_decision(
    round_number: int, answers: Sequence[Answer], options: Mapping[str, Any]
) -> str:
    """The stance the consensus check finds among `answers`, or NO_CONSENSUS."""
    stances = {a.agent: rules.ABSTAIN if a.parse_failed else a.decision for a in answers}
    check = rules.check_consensus(round_number, stances, options.get("consensus_threshold", 0.75))
    return check.stance if check.reached else rules.NO_CONSENSUS
