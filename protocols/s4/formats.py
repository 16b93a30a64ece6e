"""The lines of an S4 prompt that its offline responder reads back, written and read from one
template each (see `LineFormat`)."""

from __future__ import annotations

from protocols.prompting import LineFormat

_POSITION = "{decision} (confidence {confidence:g}, risk {risk:g})"
_FIELDS = {"decision": "ACT|WARN|REFUSE|VETO", "confidence": r"[\d.]+", "risk": r"[\d.]+"}

#: The agent's own round-1 position (challenge and revision prompts).
OWN_POSITION = LineFormat(f"Your round 1 position: {_POSITION}.", **_FIELDS)
#: The position of the agent being challenged.
TARGET_POSITION = LineFormat(
    f"{{name}} (role: {{role}}) round 1 position: {_POSITION}.", role=r"[^)]+", **_FIELDS
)
AGREES = "agrees with your conclusion"
DISPUTES = "disputes your conclusion"

#: One challenge received, on one line (revision prompt).
RECEIVED_CHALLENGE = LineFormat(
    "- From {name} ({agreement}; suggests {suggestion}): {argument}",
    whole_line=True,
    agreement=f"{AGREES}|{DISPUTES}",
    suggestion="[A-Z]+|no decision suggested",
    argument=".*",
)


def position_fields(reply) -> dict:
    """A reply's decision, confidence and risk, as the position lines show them."""
    return {"decision": reply.decision, "confidence": reply.confidence, "risk": reply.risk}
