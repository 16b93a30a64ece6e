"""What a protocol is told of a participant, from a stored participant or an agent."""

from __future__ import annotations

from agents.models import Agent
from debates.models import Participant
from protocols.base import ParticipantSpec


def participant_spec(p: Participant | Agent, *, model: str | None = None) -> ParticipantSpec:
    return ParticipantSpec(
        slug=p.slug,
        name=p.name,
        role=p.role,
        system_prompt=p.system_prompt,
        model=model or p.model_name,
        temperature=p.temperature,
        can_veto=p.can_veto,
        veto_risk_threshold=p.veto_risk_threshold,
        guiding_question=getattr(p, "guiding_question", ""),
    )
