"""Reads: a debate with everything it stored, and its JSON export."""

from __future__ import annotations

from typing import Any

from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import CharField, Exists, OuterRef, Prefetch, QuerySet, Value
from django.db.models.functions import Cast, Concat

from agents.gateway import OFFLINE_NOTICE
from agents.routing import is_offline_model
from debates import outcomes
from debates.baselines import baselines_view
from debates.live import VERSION_FIELDS, DebateSoFar, arrange, version_of
from debates.models import (
    Challenge,
    Debate,
    LLMCall,
    Participant,
    Round,
    Statement,
    Vote,
    effective_decision_expression,
)
from debates.quality import quality_view
from protocols import presentation_for
from reviews.models import ReviewItem


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
            "votes",
            queryset=Vote.objects.select_related("participant").order_by("participant__position"),
        ),
        # The messages sent are read one call at a time (`debate_call`), never with the page.
        Prefetch(
            "llm_calls", queryset=LLMCall.objects.defer("prompt").order_by("round_number", "id")
        ),
    )


def debate_get(debate_id) -> Debate:
    return debate_detail_queryset().get(id=debate_id)


def debates_visible_to(user, queryset: QuerySet[Debate] | None = None) -> QuerySet[Debate]:
    """Who holds `debates.view_debate` (roles Reviewer, Operator) sees every debate; anyone
    else the debates they started."""
    debates = Debate.objects.select_related("created_by") if queryset is None else queryset
    return debates if user.has_perm("debates.view_debate") else debates.filter(created_by=user)


def debate_get_visible(*, debate_id, user) -> Debate:
    """A debate with everything stored so far. Raises `Debate.DoesNotExist` if `user` may not
    see it, so a debate of someone else's looks the same as one that does not exist."""
    return debates_visible_to(user, debate_detail_queryset()).get(id=debate_id)


def debate_so_far(*, debate_id, user) -> DebateSoFar:
    """The debate so far, arranged round by round and agent by agent, with the calls in
    flight: the live page's read, in a constant number of queries however long the debate."""
    return arrange(debate_get_visible(debate_id=debate_id, user=user))


def debate_live_version(*, debate_id, user) -> str:
    """The live page's version of a debate (`live.version_of`), from one query: the debate's
    row and the ids and statuses of what it stored. Raises `Debate.DoesNotExist` like
    `debate_get_visible`."""

    def ids(model):
        return ArraySubquery(
            model.objects.filter(debate=OuterRef("pk")).order_by("id").values_list("id")
        )

    row = (
        debates_visible_to(user, Debate.objects.all())
        .annotate(
            v_rounds=ArraySubquery(
                Round.objects.filter(debate=OuterRef("pk"))
                .order_by("number")
                .values_list(Concat(Cast("number", CharField()), Value(":"), "status"))
            ),
            v_statements=ids(Statement),
            v_challenges=ids(Challenge),
            v_votes=ids(Vote),
            v_calls=ArraySubquery(
                LLMCall.objects.filter(debate=OuterRef("pk"))
                .order_by("id")
                .values_list(Concat(Cast("id", CharField()), Value(":"), "status"))
            ),
        )
        .values_list(
            *VERSION_FIELDS, "v_rounds", "v_statements", "v_challenges", "v_votes", "v_calls"
        )
        .get(id=debate_id)
    )
    n = len(VERSION_FIELDS)
    return version_of(row[:n], *row[n:])


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
    outcome: str = "",
    confidence_band: int | None = None,
    schedule_id: int | None = None,
    model: str = "",
) -> QuerySet[Debate]:
    """The debates `user` may see, filtered. `decision` is the effective decision (a reviewer's
    override, else the rules'); `machine_decision` is the rules' own. `outcome` and
    `confidence_band` are as the analytics page counts them (`debates.outcomes`); `model`
    keeps the debates with at least one call that model answered."""
    qs = debates_visible_to(user).select_related("created_by")
    if status:
        qs = qs.filter(status=status)
    if decision:  # the expression the index `debate_effective_created` is built on
        qs = qs.alias(effective=effective_decision_expression()).filter(effective=decision)
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
    if outcome:
        qs = outcomes.with_outcome(qs, outcome)
    if confidence_band is not None:
        qs = outcomes.with_confidence_band(qs, confidence_band)
    if schedule_id:
        qs = qs.filter(schedule_id=schedule_id)
    if model:
        qs = qs.filter(Exists(LLMCall.objects.filter(debate=OuterRef("pk"), model=model)))
    return qs


def debate_export(debate: Debate) -> dict[str, Any]:
    """The JSON export (docs/concepts/s4.md#export-shape): the rounds, then the final decision.

    The rounds are as the debate's protocol lists them (its presentation): S4 its four rounds
    with their data; the others their rounds as they happened, each with its statements in the
    order they were made (`step`: argument, synthesis, moderation, turn ...).
    `debate` should come from `debate_detail_queryset()` so that this makes no queries.
    """
    presentation = presentation_for(debate.protocol)
    statements = list(debate.statements.all())
    calls = list(debate.llm_calls.all())
    models = sorted(
        {c.model for c in calls} | {p.model_name for p in debate.participants.all() if p.model_name}
    )
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
        "question": debate.query,
        "query": debate.query,  # deprecated: the old name of `question`, kept for readers of it
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
        "rounds": presentation.export_rounds(debate, statements, votes),
        "final_decision": {
            "decision": debate.decision or None,
            "effective_decision": debate.effective_decision or None,
            "decision_override": debate.decision_override or None,
            "review_status": debate.review_status or None,
            "reasoning": debate.reasoning,
            "metadata": debate.metadata,
        },
        "baselines": baselines_view(debate),
        "quality": quality_view(debate),
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
    if presentation.export_final_positions:
        export["final_positions"] = votes
    if any(is_offline_model(m) for m in models):
        export["notice"] = f"Produced by the {OFFLINE_NOTICE}."
    return export


def debate_call(*, debate_id, call_id, user) -> LLMCall:
    """One call of a debate `user` may see, with everything stored of it. Raises
    `LLMCall.DoesNotExist` otherwise (as for a debate of someone else's)."""
    visible = debates_visible_to(user, Debate.objects.all()).filter(id=debate_id)
    return LLMCall.objects.select_related("participant").get(
        id=call_id, debate_id=debate_id, debate__in=visible
    )


def debate_review_items(debate_id) -> list[ReviewItem]:
    """The debate's review items, oldest first (the debate page links to them)."""
    return list(
        ReviewItem.objects.filter(debate_id=debate_id)
        .only("id", "status", "debate_id")
        .order_by("created_at")
    )
