"""A debate's outline as the JSON it is sent in names it (the review queue's API and webhook
events): its question, protocol, state and decisions, with null for what it has not got."""

from __future__ import annotations

from typing import Any

from debates.models import Debate


def outline(debate: Debate) -> dict[str, Any]:
    return {
        "question": debate.query,
        "protocol": debate.protocol,
        "status": debate.status,
        "decision": debate.effective_decision or None,
        "machine_decision": debate.decision or None,
        "review_status": debate.review_status or None,
        "consensus_type": debate.consensus_type or None,
    }
