"""The lines of a round-robin prompt that its offline responder reads back, written and read
from one template each (see `LineFormat`)."""

from __future__ import annotations

import re

from protocols.prompting import LineFormat

_POSITION = "{decision} (confidence {confidence:g}, risk {risk:g})"
_FIELDS = {"round": r"\d+", "decision": r"[A-Z_]+", "confidence": r"[\d.]+", "risk": r"[\d.]+"}

#: The agent's own latest position.
OWN_POSITION = LineFormat(f"Your latest position (round {{round}}): {_POSITION}.", **_FIELDS)
#: A peer's latest position (its reasoning follows, quoted).
PEER_POSITION = LineFormat(
    f"- {{name}} (role: {{role}}), round {{round}}: {_POSITION}.", role=r"[^)]+", **_FIELDS
)
#: The reply format, with the stances the agent may take.
REPLY_FORMAT = LineFormat(
    'Reply with one JSON object and nothing else: {{"stance": {stances}, '
    '"confidence": 0-100, "risk": 0-100, "reasoning": "your analysis", '
    '"responds_to": ["names of the peers you answer"]}}. {meanings}',
    stances=r'(?:"[A-Z_]+"(?: \| )?)+',
    meanings=".*",
)


def stance_choices(stances) -> str:
    return " | ".join(f'"{s}"' for s in stances)


def read_stance_choices(text: str) -> list[str]:
    """The stances a reply format offers (empty without one)."""
    found = REPLY_FORMAT.search(text)
    return re.findall(r'"([A-Z_]+)"', found["stances"]) if found else []


def position_fields(reply) -> dict:
    """A reply's decision, confidence and risk, as the position lines show them."""
    return {"decision": reply.decision, "confidence": reply.confidence, "risk": reply.risk}
