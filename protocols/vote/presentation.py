"""How a vote is shown: the independent votes, then the S4 rule figures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocols.presentation import text_position, wrap
from protocols.s4.presentation import S4Presentation


class VotePresentation(S4Presentation):
    vote_label = "Vote"
    kind_labels = {"analysis": "Vote"}

    def text_rounds(self, debate, statements, rounds: Mapping[int, str]) -> list[str]:
        out = [f"\nRound 1: {rounds.get(1, 'Independent Votes')}"]
        for s in statements:
            flag = "  [PARSE FAILURE: fail-safe REFUSE]" if s.parse_failed else ""
            out.append(f"  {s.participant.name:<16} {text_position(s)}{flag}")
            out.append(wrap(s.reasoning))
        return out

    def export_rounds(self, debate, statements, votes: list[dict]) -> list[dict[str, Any]]:
        names = {r.number: r.name for r in debate.rounds.all()}
        return [
            {
                "number": 1,
                "name": names.get(1, "Independent Votes"),
                "data": [self._statement(s) for s in statements],
            },
            {"number": 2, "name": names.get(2, "Decision"), "votes": votes},
        ]
