"""Reads: a debate with everything it stored, and its export in the seed's logging shape."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, Q, QuerySet

from agents.gateway import OFFLINE_NOTICE, is_offline_model
from debates.live import DebateSoFar, arrange
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


def debates_visible_to(user, queryset: QuerySet[Debate] | None = None) -> QuerySet[Debate]:
    """Staff see every debate; anyone else the debates they started."""
    debates = Debate.objects.select_related("created_by") if queryset is None else queryset
    return debates if user.is_staff else debates.filter(created_by=user)


def debate_get_visible(*, debate_id, user) -> Debate:
    """A debate with everything stored so far. Raises `Debate.DoesNotExist` if `user` may not
    see it, so a debate of someone else's looks the same as one that does not exist."""
    return debates_visible_to(user, debate_detail_queryset()).get(id=debate_id)


def debate_so_far(*, debate_id, user) -> DebateSoFar:
    """The debate so far, arranged round by round and agent by agent, with the calls in
    flight: the live page's read, in a constant number of queries however long the debate."""
    return arrange(debate_get_visible(debate_id=debate_id, user=user))


def debate_list(
    *,
    user,
    status: str = "",
    decision: str = "",
    machine_decision: str = "",
    protocol: str = "",
    consensus_type: str = "",
    review_status: str | None = None,
    created_after=None,
    created_before=None,
    search: str = "",
) -> QuerySet[Debate]:
    """The debates `user` may see, filtered. `decision` is the effective decision (a reviewer's
    override, else the rules'); `machine_decision` is the rules' own."""
    qs = debates_visible_to(user).select_related("created_by")
    if status:
        qs = qs.filter(status=status)
    if decision:
        qs = qs.filter(
            Q(decision_override=decision) | Q(decision_override="", decision=decision)
        )
    if machine_decision:
        qs = qs.filter(decision=machine_decision)
    if protocol:
        qs = qs.filter(protocol=protocol)
    if consensus_type:
        qs = qs.filter(consensus_type=consensus_type)
    if review_status is not None:
        qs = qs.filter(review_status=review_status)
    if created_after:
        qs = qs.filter(created_at__gte=created_after)
    if created_before:
        qs = qs.filter(created_at__lt=created_before)
    if search:
        qs = qs.filter(query__icontains=search)
    return qs


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


def _step_statement(s: Statement) -> dict[str, Any]:
    """A statement of a non-S4 protocol: what kind of step, who, the position and the details.

    Confidences are 0-100; the moderated debate's 0-1 confidences are also in `details`."""
    data = {
        "step": s.kind,
        "agent": s.participant.name,
        "role": s.participant.role,
        "decision": s.decision,
        "confidence": s.confidence,
        "risk": s.risk,
        "reasoning": s.reasoning,
        "details": s.details,
    }
    if s.previous_decision:
        data["before"] = s.previous_decision
        data["changed_position"] = s.changed_position
    if s.parse_failed:
        data["parse_failed"] = True
    if s.notes:
        data["notes"] = s.notes
    return data


def _rounds_as_they_happened(debate: Debate, statements: list[Statement]) -> list[dict]:
    by_round: dict[int, list[Statement]] = {}
    for s in sorted(statements, key=lambda s: (s.round.number, s.call_id or 0)):
        by_round.setdefault(s.round.number, []).append(s)
    return [
        {
            "number": r.number,
            "name": r.name,
            "status": r.status,
            "statements": [_step_statement(s) for s in by_round.get(r.number, [])],
        }
        for r in sorted(debate.rounds.all(), key=lambda r: r.number)
    ]


def debate_export(debate: Debate) -> dict[str, Any]:
    """The seed-000 logging shape: rounds 1-4 with their data, then the final decision.

    Other protocols list their rounds as they happened, each with its statements in the order
    they were made (`step`: argument, synthesis, moderation, turn ...).
    `debate` should come from `debate_detail_queryset()` so that this makes no queries.
    """
    statements = list(debate.statements.all())
    round_names = {r.number: r.name for r in debate.rounds.all()}
    calls = list(debate.llm_calls.all())
    models = sorted({c.model for c in calls}
                    | {p.model_name for p in debate.participants.all() if p.model_name})
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
        "deployments": sorted({c.deployment for c in calls if c.deployment}),
        "options": debate.options,
        "rounds": [
            {"number": 1, "name": round_names.get(1, "Initial Analysis"), "data": analyses},
            {"number": 2, "name": round_names.get(2, "Challenge Round"), "data": challenges},
            {"number": 3, "name": round_names.get(3, "Revision Round"), "data": revisions},
            {"number": 4, "name": round_names.get(4, "Final Voting"), "votes": votes},
        ]
        if debate.protocol == "s4"
        else _rounds_as_they_happened(debate, statements),
        "final_decision": {
            "decision": debate.decision or None,
            "effective_decision": debate.effective_decision or None,
            "decision_override": debate.decision_override or None,
            "review_status": debate.review_status or None,
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
    if debate.protocol != "s4":
        export["final_positions"] = votes
    if any(is_offline_model(m) for m in models):
        export["notice"] = f"Produced by the {OFFLINE_NOTICE}."
    return export
