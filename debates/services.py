"""Writes: creating debates (validated, screened, stored with their participants and charges,
enqueued on commit). Running them is `debates.running`; reads live in `selectors`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DEFAULT_DB_ALIAS, transaction

from agents import routing
from agents.models import Agent
from budgets import services as budgets
from debates import callbacks, one_statement
from debates.default_protocol import default_protocol
from debates.models import Debate, Participant
from debates.running import DEBATES
from debates.specs import participant_spec
from protocols import (
    OptionError,
    ProtocolError,
    defense,
    effective_options,
    framing,
    resolve_protocol,
)
from protocols.base import ParticipantSpec
from runs import lifecycle


def _select_agents(protocol_name: str, slugs: list[str] | None) -> list[Agent]:
    if slugs:
        if len(set(slugs)) != len(slugs):
            raise ValidationError({"agents": "Each agent may take part only once."})
        found = {a.slug: a for a in Agent.objects.filter(slug__in=slugs, is_active=True)}
        missing = [s for s in slugs if s not in found]
        if missing:
            raise ValidationError(
                {"agents": f"Unknown or inactive agent(s): {', '.join(missing)}."}
            )
        return [found[s] for s in slugs]
    agents = list(Agent.objects.filter(is_active=True, protocols__contains=[protocol_name]))
    if not agents:
        raise ValidationError(
            {
                "agents": f"No active agents are set up for protocol '{protocol_name}'. "
                "Run `manage.py load_default_agents` or name the agents."
            }
        )
    return agents


@dataclass
class _NewDebate:
    """A debate checked and ready to store (`_checked`)."""

    query: str
    protocol: str
    options: dict[str, Any]
    metadata: dict[str, Any]
    findings: list[dict[str, str]]
    complex_query: bool
    callback_url: str
    participants: list[tuple[Agent, ParticipantSpec]]


def _checked(
    *,
    query: Any,
    protocol: str,
    agents: list[str] | None,
    options: dict[str, Any] | None,
    callback_url: str,
    agents_for=_select_agents,
) -> _NewDebate:
    """Validate and screen one debate's input; `ValidationError` (a dict of field ->
    messages) on bad input."""
    try:
        query = defense.validate_query(query)
    except defense.QueryRejected as exc:
        raise ValidationError({"query": exc.message}) from exc
    try:
        protocol_cls, choice = resolve_protocol(
            protocol, query, fallback=settings.DEBATE_AUTO_FALLBACK
        )
    except ProtocolError as exc:
        raise ValidationError({"protocol": str(exc)}) from exc
    try:
        options = effective_options(protocol_cls, options)
    except OptionError as exc:
        prefix = f"auto chose {choice.chosen} ({choice.reason}): " if choice else ""
        raise ValidationError({"options": [prefix + m for m in exc.errors.values()]}) from exc
    try:
        routing.check_model_choice(options.get("model"))
    except ValidationError as exc:
        raise ValidationError({"options": [f"model: {m}" for m in exc.messages]}) from exc
    protocol = protocol_cls.name
    if callback_url and (problem := callbacks.callback_url_problem(callback_url)):
        raise ValidationError({"callback_url": problem})
    chosen = agents_for(protocol, agents)
    specs = [
        participant_spec(a, model=routing.pinned_model(a.model_name, options.get("model")))
        for a in chosen
    ]
    complex_query = framing.is_complex_query(query)
    try:
        protocol_cls(query=query, participants=specs, complex_query=complex_query, options=options)
    except ProtocolError as exc:
        raise ValidationError({"agents": str(exc)}) from exc
    return _NewDebate(
        query=query,
        protocol=protocol,
        options=options,
        metadata={"protocol_choice": choice.as_dict()} if choice else {},
        findings=[
            {"kind": f.kind, "pattern": f.pattern, "excerpt": f.excerpt}
            for f in defense.detect_injection(query)
        ],
        complex_query=complex_query,
        callback_url=callback_url,
        participants=list(zip(chosen, specs, strict=True)),
    )


def _stored(
    new: list[_NewDebate], *, created_by, api_token, enqueue: bool, budget_check: bool = True
) -> list[Debate]:
    """Store checked debates, their participants and their charges in one statement (three
    inserts, however many debates), after admitting them against the spending limits in the
    same transaction (`runs.lifecycle.admit`; a savepoint inside a caller's transaction), and
    enqueue each once it commits."""
    debates = [
        Debate(
            query=n.query,
            protocol=n.protocol,
            options=n.options,
            metadata=n.metadata,
            created_by=created_by,
            injection_findings=n.findings,
            is_complex_query=n.complex_query,
            callback_url=n.callback_url,
        )
        for n in new
    ]
    participants = [
        Participant(
            debate=debate,
            agent=agent,
            position=i,
            name=spec.name,
            slug=spec.slug,
            role=spec.role,
            system_prompt=spec.system_prompt,
            model_name=spec.model,
            temperature=spec.temperature,
            can_veto=spec.can_veto,
            veto_risk_threshold=spec.veto_risk_threshold,
        )
        for debate, n in zip(debates, new, strict=True)
        for i, (agent, spec) in enumerate(n.participants, start=1)
    ]
    charges = budgets.charges_for(
        subjects=[f"debate:{debate.pk}" for debate in debates], user=created_by, token=api_token
    )
    parts = [one_statement.insert("d", debates)]
    if participants:
        parts.append(one_statement.insert("p", participants))
    parts.append(one_statement.insert("c", charges))
    with transaction.atomic():
        if budget_check:
            lifecycle.admit(
                [
                    (charge, [spec.model for _, spec in n.participants])
                    for n, charge in zip(new, charges, strict=True)
                ],
                user=created_by,
                token=api_token,
            )
        one_statement.execute(parts, "SELECT count(*) FROM d")
    for debate in debates:  # as `bulk_create` leaves them: stored
        debate._state.adding, debate._state.db = False, DEFAULT_DB_ALIAS
    if enqueue:
        ids = [str(debate.id) for debate in debates]

        def send() -> None:
            for pk in ids:
                DEBATES.enqueue(pk)

        transaction.on_commit(send)
    return debates


def debate_create(
    *,
    query: Any,
    protocol: str | None = None,
    agents: list[str] | None = None,
    options: dict[str, Any] | None = None,
    created_by=None,
    callback_url: str = "",
    enqueue: bool = True,
    api_token=None,
    budget_check: bool = True,
) -> Debate:
    """Validate and screen the input, store a queued debate with its participants, enqueue it.

    The debate is charged to `created_by` and the `api_token` it was started with (their
    spending limits and the installation's apply to its calls); with `budget_check`, a debate
    whose whole worst case does not fit those limits is refused (`runs.lifecycle.admit`;
    `budgets.limits.BudgetExceeded`, a `ValidationError` keyed "budget") and nothing is stored
    or queued.

    `protocol` "auto" is resolved here (the debate stores the protocol it chose, and the choice
    and why under `metadata["protocol_choice"]`). `options` are checked against the protocol's
    schema and stored with every default filled in. Raises `ValidationError` (a dict of
    field -> messages) and stores nothing on bad input.
    """
    new = _checked(
        query=query,
        protocol=protocol or default_protocol(),
        agents=agents,
        options=options,
        callback_url=callback_url,
    )
    (debate,) = _stored(
        [new],
        created_by=created_by,
        api_token=api_token,
        enqueue=enqueue,
        budget_check=budget_check,
    )
    return debate


class BatchInvalid(Exception):
    """Some debates of a batch were refused: `errors` holds, for each debate in order, the
    `ValidationError` that refused it (None for the ones that were fine)."""

    def __init__(self, errors: list[ValidationError | None]):
        super().__init__("some debates of the batch are invalid")
        self.errors = errors


def debate_create_many(
    items: list[dict[str, Any]],
    *,
    created_by=None,
    api_token=None,
    enqueue: bool = True,
) -> list[Debate]:
    """`debate_create` for several debates submitted together (each item holds `query` and,
    optionally, `protocol`, `agents`, `options`, `callback_url`): every one is checked as
    `debate_create` checks it, then all are stored in one transaction (one insert each for
    the debates, their participants and their charges) and enqueued once it commits, in
    order. All or nothing: one invalid item raises `BatchInvalid` naming it, and nothing is
    stored; the batch is admitted against the spending limits as a whole (all or none)."""
    chosen: dict[tuple[str, tuple[str, ...] | None], list[Agent]] = {}

    def agents_for(protocol: str, slugs: list[str] | None) -> list[Agent]:
        key = (protocol, tuple(slugs) if slugs else None)
        if key not in chosen:
            chosen[key] = _select_agents(protocol, slugs)
        return chosen[key]

    new, errors = [], []
    for item in items:
        try:
            new.append(
                _checked(
                    query=item.get("query"),
                    protocol=item.get("protocol") or default_protocol(),
                    agents=item.get("agents") or None,
                    options=item.get("options"),
                    callback_url=item.get("callback_url", ""),
                    agents_for=agents_for,
                )
            )
            errors.append(None)
        except ValidationError as exc:
            errors.append(exc)
    if any(errors):
        raise BatchInvalid(errors)
    if not new:
        return []
    return _stored(new, created_by=created_by, api_token=api_token, enqueue=enqueue)
