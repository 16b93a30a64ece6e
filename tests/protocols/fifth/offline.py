"""The offline model's hand: the safety agent says NO, every other agent YES."""

from __future__ import annotations

import json

STEP = "show_of_hands"


def hand_reply(prompt) -> str:
    hand = "NO" if prompt.role == "safety" else "YES"
    return json.dumps(
        {
            "hand": hand,
            "confidence": 70,
            "risk": 60 if hand == "NO" else 20,
            "reasoning": f"As the {prompt.role} agent, my hand is {hand}.",
        }
    )


RESPONDERS = {STEP: hand_reply}
