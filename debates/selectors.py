"""Reads: a debate with everything it stored, and its export in the seed's logging shape."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet

from agents.gateway import OFFLINE_NOTICE, is_offline_model
from debates.models import Challenge, Debate, LLMCall, Participant, Statement, Vote


def debate_detail_queryset() -> QuerySet[Debate]:
    return Debate.objects.select_related("created_by", "schedule").prefetch_related(
        Prefetch("participants", queryset=Participant.objects.order_by("position")),
        "rounds",
        Prefetch(
            "statements",
            queryset=Statement.objects.select_related("participant", "round").order_by(
                "round__number", "participant__position"
            ),
        ),
        Prefetch(
            "challenges",
            queryset=Challenge.objects.select_related("challenger", "challenged").order_by(
                "challenger__position", "challenged__position"
            ),
        ),
        Prefetch(
            "votes", queryset=Vote.objects.select_related("participant").order_by(
                "participant__position"
            )
        ),
        Prefetch("llm_calls", queryset=LLMCall.objects.order_by("round_number", "id")),
    )


def debate_get(debate_id) -> Debate:
    return debate_detail_queryset().get(id=debate_id)


def _statement(s: Statement) -> dict[str, Any]:
    data = {
        "agent": s.participant.name,
        "decision": s.decision,
        "confidence": s.confidence,
        "risk": s.risk,
        "reasoning": s.reasoning,
    }
    if s.kind == Statement.Kind.REVISION:
        data["before"] = s.previous_decision
        data["after"] = s.decision
        data["changed_position"] = s.changed_position
    if s.parse_failed:
        data["parse_failed"] = True
    if s.notes:
        data["notes"] = s.notes
    return data


def debate_export(debate: Debate) -> dict[str, Any]:
    """The seed-000 logging shape: rounds 1-4 with their data, then the final decision.

    `debate` should come from `debate_detail_queryset()` so that this makes no queries.
    """
    statements = list(debate.statements.all())
    round_names = {r.number: r.name for r in debate.rounds.all()}
    calls = list(debate.llm_calls.all())
    models = sorted({c.model for c in calls} | {p.model_name for p in debate.participants.all()})
    analyses = [_statement(s) for s in statements if s.kind == Statement.Kind.ANALYSIS]
    revisions = [_statement(s) for s in statements if s.kind == Statement.Kind.REVISION]
    challenges = [
        {
            "challenger": c.challenger.name,
            "challenged": c.challenged.name,
            "stance": c.stance,
            "argument": c.argument,
            "suggested_decision": c.suggested_decision or None,
            **({"parse_failed": True} if c.parse_failed else {}),
        }
        for c in debate.challenges.all()
    ]
    votes = [
        {
            "agent": v.participant.name,
            "decision": v.decision,
            "confidence": v.confidence,
            "risk": v.risk,
            "reasoning": v.reasoning,
        }
        for v in debate.votes.all()
    ]
    export: dict[str, Any] = {
        "id": str(debate.id),
        "query": debate.query,
        "protocol": debate.protocol,
        "status": debate.status,
        "schedule": (
            {"id": debate.schedule_id, "name": debate.schedule.name} if debate.schedule else None
        ),
        "agents": [
            {"name": p.name, "role": p.role, "model": p.model_name, "can_veto": p.can_veto}
            for p in debate.participants.all()
        ],
        "models": models,
        "rounds": [
            {"number": 1, "name": round_names.get(1, "Initial Analysis"), "data": analyses},
            {"number": 2, "name": round_names.get(2, "Challenge Round"), "data": challenges},
            {"number": 3, "name": round_names.get(3, "Revision Round"), "data": revisions},
            {"number": 4, "name": round_names.get(4, "Final Voting"), "votes": votes},
        ],
        "final_decision": {
            "decision": debate.decision or None,
            "reasoning": debate.reasoning,
            "metadata": debate.metadata,
        },
        "defense": {
            "injection_findings": debate.injection_findings,
            "complex_query": debate.is_complex_query,
        },
        "usage": {
            "llm_calls": len(calls),
            "tokens_in": debate.tokens_in,
            "tokens_out": debate.tokens_out,
            "cost_usd": str(debate.cost_usd),
            "duration_seconds": debate.duration_seconds,
        },
        "created_at": debate.created_at.isoformat(),
        "completed_at": debate.completed_at.isoformat() if debate.completed_at else None,
        "error": debate.error or None,
    }
    if any(is_offline_model(m) for m in models):
        export["notice"] = f"Produced by the {OFFLINE_NOTICE}."
    return export
