"""Writes: creating a debate and running it. Reads live in `selectors`."""

from __future__ import annotations

import json
import logging
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DEFAULT_DB_ALIAS, connection, transaction
from django.utils import timezone

from agents import gateway, routing
from agents.models import Agent
from budgets import services as budgets
from debates import onetrip, webhooks
from debates.baselines import finished_fields
from debates.models import Challenge, Debate, LLMCall, Participant, Round, Statement, Vote
from debates.quality import stored_rows
from debates.reviewing.items import (
    failure_items_close_for_rerun,
    opens_plainly,
    outcome_flags,
    outcome_item_parts,
    review_item_for_failure,
    review_items_for_debate,
)
from protocols import (
    OptionError,
    ProtocolError,
    defense,
    effective_options,
    get_protocol,
    resolve_protocol,
)
from protocols.base import (
    CallRequest,
    ChallengeReply,
    Outcome,
    ParticipantSpec,
    Results,
)
from reviews.models import ReviewItem
from runs import lifecycle

logger = logging.getLogger(__name__)


# --- creating ---------------------------------------------------------------------------------


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
    if callback_url and (problem := webhooks.callback_url_problem(callback_url)):
        raise ValidationError({"callback_url": problem})
    chosen = agents_for(protocol, agents)
    specs = [
        participant_spec(a, model=routing.pinned_model(a.model_name, options.get("model")))
        for a in chosen
    ]
    complex_query = defense.is_complex_query(query)
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


def _stored(new: list[_NewDebate], *, created_by, api_token, enqueue: bool) -> list[Debate]:
    """Store checked debates, their participants and their charges in one statement (three
    inserts, however many debates: atomic on its own; a savepoint inside a caller's
    transaction), and enqueue each once it commits."""
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
    parts = [onetrip.insert("d", debates)]
    if participants:
        parts.append(onetrip.insert("p", participants))
    parts.append(onetrip.insert("c", charges))
    with transaction.atomic() if connection.in_atomic_block else nullcontext():
        onetrip.execute(parts, "SELECT count(*) FROM d")
    for debate in debates:  # as `bulk_create` leaves them: stored
        debate._state.adding, debate._state.db = False, DEFAULT_DB_ALIAS
    if enqueue:
        from debates.tasks import run_debate

        ids = [str(debate.id) for debate in debates]

        def send() -> None:
            for pk in ids:
                run_debate.delay(pk)

        transaction.on_commit(send)
    return debates


def debate_create(
    *,
    query: Any,
    protocol: str = "s4",
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
    that could not make a single call is refused (`budgets.limits.BudgetExceeded`, a
    `ValidationError` keyed "budget") and nothing is stored.

    `protocol` "auto" is resolved here (the debate stores the protocol it chose, and the choice
    and why under `metadata["protocol_choice"]`). `options` are checked against the protocol's
    schema and stored with every default filled in. Raises `ValidationError` (a dict of
    field -> messages) and stores nothing on bad input.
    """
    new = _checked(
        query=query, protocol=protocol, agents=agents, options=options, callback_url=callback_url
    )
    if budget_check:
        budgets.start_check(user=created_by, token=api_token)
    (debate,) = _stored([new], created_by=created_by, api_token=api_token, enqueue=enqueue)
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
    stored; the spending limits are checked once for the whole batch."""
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
                    protocol=item.get("protocol", "s4"),
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
    budgets.start_check(user=created_by, token=api_token)
    return _stored(new, created_by=created_by, api_token=api_token, enqueue=enqueue)


# --- running ----------------------------------------------------------------------------------


class DebateWork(lifecycle.Work):
    """Debates as durable work (`runs.lifecycle`): one runner per debate, under an advisory lock
    keyed by its id; a debate failed for good gets a `debate_failed` review item and its
    `debate.failed` webhook, in the transaction that fails it."""

    model = Debate
    noun = "debate"
    plural = "debates"

    def generic_plans(self) -> bool:
        # Every statement of a run finds its rows by key: the debate's id, its rows' ids, the
        # spending counters' keys.
        return settings.DEBATE_PREPARED_STATEMENTS

    def claim_returns(self, table: str) -> str:
        # With the row, what its runner starts from: whether an earlier run recorded calls
        # (their replies are then read back as each step starts; a first run has none and
        # does not look for them), its participants (`_participants`), and every reason its
        # review items were ever raised for (`opens_plainly`: the debate's finish opens its
        # outcome item in its own statement when none was raised before), and what its
        # spender is made of (`budgets.spender_sql`).
        calls, participants = LLMCall._meta.db_table, Participant._meta.db_table
        items = ReviewItem._meta.db_table
        spender = budgets.spender_sql(f"'debate:' || {table}.id", f"{table}.created_by_id")
        return (
            f", EXISTS (SELECT FROM {calls} c WHERE c.debate_id = {table}.id) AS resuming"
            f", (SELECT COALESCE(json_agg(p ORDER BY p.position), '[]') FROM {participants} p "
            f"WHERE p.debate_id = {table}.id) AS participant_rows"
            f", ARRAY(SELECT r FROM {items} i, unnest(array_append(i.reasons, i.reason)) r "
            f"WHERE i.debate_id = {table}.id) AS raised_before"
            f", {spender} AS spender_found"
        )

    def execute(self, row: Debate) -> None:
        _DebateRunner(row).run()

    def enqueue(self, pk: str):
        from debates.tasks import run_debate

        return run_debate.delay(pk)

    def readable_error(self, exc: BaseException) -> str:
        if isinstance(exc, gateway.BudgetStop):
            return f"Stopped at a spending limit, keeping every reply paid for so far. {exc}"
        if isinstance(exc, gateway.LLMError):
            kind = "permanent" if exc.permanent else "after retries"
            return gateway.failure_text(f"The language model failed ({kind}): ", exc)
        if isinstance(exc, SoftTimeLimitExceeded):
            return (
                f"The debate ran past its time limit ({settings.CELERY_TASK_SOFT_TIME_LIMIT} s) "
                "and was stopped."
            )
        if isinstance(exc, ProtocolError):
            return f"The debate cannot run as configured: {exc}"
        return super().readable_error(exc)

    def is_transient(self, exc: BaseException) -> bool:
        return isinstance(exc, gateway.LLMError) and not exc.permanent

    def failed(self, row: Debate, cause: BaseException | None = None) -> None:
        review_item_for_failure(debate=row, budget=isinstance(cause, gateway.BudgetStop))
        webhooks.notify_debate_event(debate_id=row.pk, event=webhooks.Event.DEBATE_FAILED)

    def requeued(self, pk, *, user, note: str, before: dict[str, Any]) -> None:
        failure_items_close_for_rerun(debate_id=pk, user=user, note=note, data=before)


DEBATES = DebateWork()


def debate_run(*, debate_id, may_retry: bool = False, read_back: bool = True) -> Debate | None:
    """Run (or resume) a debate to its end. Safe to call twice, also at the same time.

    Returns the debate (with `read_back` off, not read back: only its `status` is sure), or
    None when another runner holds it or it has already ended. With `may_retry`, a model that
    stayed unavailable puts the debate back to queued and raises `lifecycle.TransientFailure` (its
    task retries it later) instead of failing it.
    """
    return lifecycle.run(DEBATES, debate_id, may_retry=may_retry, read_back=read_back)


def debate_fail(*, debate_id, error: str, only_after_attempts: int | None = None) -> bool:
    """Mark a debate that cannot finish failed, with the reason, and queue it for review (a
    `debate_failed` item, in the same transaction: see `debates.reviewing`). Every failure for
    good comes here: the sweeper giving up, a worker that died too often, the LLM failing
    permanently or after its retries, a time limit, a configuration that cannot run.

    Leaves ended debates alone; with `only_after_attempts`, also those started fewer times
    than that. Returns whether it failed the debate.
    """
    return lifecycle.fail(DEBATES, debate_id, error=error, only_after_attempts=only_after_attempts)


def _participants(debate: Debate) -> list[Participant]:
    """The debate's participants in position order, as its claim returned them (JSON rows,
    read as the ORM reads its columns)."""
    fields = Participant._meta.concrete_fields
    found = []
    for row in debate.participant_rows:
        p = Participant.from_db(
            DEFAULT_DB_ALIAS,
            [f.attname for f in fields],
            [f.to_python(row[f.column]) for f in fields],
        )
        Participant.debate.field.set_cached_value(p, debate)
        found.append(p)
    return found


class _DebateRunner:
    """Drives a protocol's steps: concurrent calls per step, each result stored as it returns
    (with the results that returned with it)."""

    def __init__(self, debate: Debate):
        """`debate` as `DebateWork`'s claim returned it (with what `claim_returns` adds)."""
        self.debate = debate
        self.participants = {p.slug: p for p in _participants(debate)}
        specs = [participant_spec(p) for p in self.participants.values()]
        self.protocol = get_protocol(debate.protocol)(
            query=debate.query,
            participants=specs,
            complex_query=debate.is_complex_query,
            options=debate.options,
        )
        # Replies stored by this run or an earlier one, learnt as each step starts (`_start`):
        # when the debate was claimed with calls recorded by an earlier run (`resuming`, read
        # by the claim).
        self.done: dict[str, dict] = {}
        self.resuming = debate.resuming
        # Replies the defense layer flagged (screened as they are stored): the debate's review.
        self.flagged: dict[str, list] = {}
        self.rounds: dict[int, Round] = {}
        self.call_ids: dict[str, int] = {}
        self.statement_ids: dict[str, int] = {}
        # What this run stored (statements and challenges, by call key), with their calls.
        self.kept: dict[str, Statement | Challenge] = {}
        self.heartbeat = lifecycle.Heartbeat(Debate, debate.pk)
        self.spender = budgets.spender_for(
            subject=f"debate:{debate.pk}",
            user_id=debate.created_by_id,
            found=debate.spender_found,
        )

    def run(self) -> None:
        steps = self.protocol.run()
        try:
            step = next(steps)
            while True:
                results = self._run_step(step)
                step = steps.send(results)
        except StopIteration as stop:
            self._finish(stop.value)

    def _round_part(self, number: int, name: str, *, completed: bool) -> onetrip.Part:
        rnd = Round(debate=self.debate, number=number, name=name)
        if completed:
            rnd.status, rnd.completed_at = Round.Status.COMPLETED, timezone.now()
        return onetrip.insert(
            "r",
            [rnd],
            returning=("id", "status"),
            unique_fields=("debate", "number"),
            update_fields=("status", "completed_at") if completed else ("name",),
        )

    def _round_rows(self, number: int, name: str, rows) -> None:
        for kind, pk, value, *_ in rows:
            if kind == "r":
                # As the ORM makes a row it read (the other fields deferred).
                self.rounds[number] = Round.from_db(
                    DEFAULT_DB_ALIAS,
                    ["id", "debate_id", "number", "name", "status"],
                    [pk, self.debate.pk, number, name, value],
                )

    def _start(
        self,
        number: int,
        name: str,
        requests: list[CallRequest],
        *,
        completed: bool = False,
        reserving: gateway.StepReservation | None = None,
    ) -> None:
        """In one statement: store the round if it is not yet, record the calls about to be
        made (the live view shows them as in flight), except those an earlier run stored
        replies for (looked for when `resuming`): those are read back (into `done`) instead,
        and reserve the others against the spending limits (`reserving`, in their order, as
        many as fit)."""
        parts, selects, params = [], [], []
        if number not in self.rounds or completed:
            parts.append(self._round_part(number, name, completed=completed))
            selects.append("SELECT 'r', id, status, NULL::jsonb, NULL::jsonb FROM r")
        if requests:
            table = LLMCall._meta.db_table
            parts.append(
                onetrip.insert(
                    "c",
                    [
                        LLMCall(
                            debate=self.debate,
                            participant=self.participants[r.participant],
                            key=r.key,
                            round_number=r.round_number,
                            step=r.step,
                            model=self._asked_for(r),
                            prompt=list(r.messages),
                            status=LLMCall.Status.PENDING,
                        )
                        for r in requests
                    ],
                    returning=("id", "key"),
                    unique_fields=("debate", "key"),
                    update_fields=("status", "prompt", "model"),
                    update_where=f"{table}.status <> '{LLMCall.Status.DONE}'",
                )
            )
            selects.append("SELECT 'c', id, key, NULL::jsonb, NULL::jsonb FROM c")
            if self.resuming:
                selects.append(
                    f"SELECT 'd', id, key, parsed, injection_findings FROM {table} "
                    f"WHERE debate_id = %s AND "
                    f"status = '{LLMCall.Status.DONE}' AND key = ANY(%s)"
                )
                params += [self.debate.pk, [r.key for r in requests]]
        reserve = None
        if reserving:
            reserve = reserving.sql(*self._skip_done(reserving.keys) if self.resuming else ())
        if reserve is not None:
            parts.append(onetrip.Part("h", *reserve))
            selects.append(
                "SELECT 'h', hold_id, call_index::text, jsonb_build_array(b_key, b_period, "
                "b_unit, b_used::text, b_limit::text), NULL::jsonb FROM h"
            )
        rows = onetrip.execute(parts, " UNION ALL ".join(selects), params)
        if reserve is not None:
            reserving.read(
                [
                    (int(index), hold, *(json.loads(breach) if isinstance(breach, str) else breach))
                    for kind, hold, index, breach, _ in rows
                    if kind == "h"
                ]
            )
        self._round_rows(number, name, rows)
        parsed_field = LLMCall._meta.get_field("parsed")
        findings_field = LLMCall._meta.get_field("injection_findings")
        for kind, pk, key, parsed, findings in rows:
            if kind == "c":
                self.call_ids[key] = pk
            elif kind == "d":  # read as the ORM reads it
                self.done[key] = parsed_field.from_db_value(parsed, None, connection)
                if findings := findings_field.from_db_value(findings, None, connection):
                    self.flagged[key] = findings

    def _skip_done(self, keys: list[str]) -> tuple[str, list]:
        """SQL marking the calls an earlier run stored replies for (not to be reserved)."""
        table = LLMCall._meta.db_table
        return (
            f"ARRAY(SELECT EXISTS(SELECT 1 FROM {table} d WHERE d.debate_id = %s AND "
            f"d.status = '{LLMCall.Status.DONE}' AND d.key = t.k) "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS t(k, n) ORDER BY t.n)",
            [self.debate.pk, keys],
        )

    def _run_step(self, step) -> Results:
        todo = [c for c in step.calls if c.key not in self.done]
        arguments = {c.key: self._call_arguments(c) for c in todo}
        reserving = gateway.StepReservation(arguments) if todo else None
        if todo or step.round_number not in self.rounds:
            self._start(step.round_number, step.round_name, todo, reserving=reserving)
        rnd = self.rounds[step.round_number]
        results = {
            c.key: self.protocol.load(c, self.done[c.key]) for c in step.calls if c.key in self.done
        }
        todo = [c for c in step.calls if c.key not in self.done]
        if todo:
            by_key = {c.key: c for c in todo}
            outstanding = set(by_key)
            failed: list[str] = []

            def store(answered):
                outstanding.difference_update(key for key, *_ in answered)
                results.update(
                    self._store(
                        rnd,
                        [(by_key[key], response, paid) for key, response, paid in answered],
                        closes_round=step.closes_round and not outstanding and not failed,
                    )
                )

            def store_failure(key, exc):
                failed.append(key)
                outstanding.discard(key)
                self._store_failure(by_key[key], exc)

            errors = gateway.complete_concurrently(
                {c.key: arguments[c.key] for c in todo},
                max_workers=settings.DEBATE_MAX_CONCURRENT_CALLS,
                on_returned=store,
                on_failed=store_failure,
                store_settles=True,
                reserved=reserving,
            )
            if errors:
                stops = [e for e in errors if isinstance(e, gateway.BudgetStop)]
                raise (stops or errors)[0]
        if step.closes_round:
            if rnd.status != Round.Status.COMPLETED:  # its last reply came in an earlier run
                self._start(step.round_number, step.round_name, [], completed=True)
        return results

    def _call_arguments(self, request: CallRequest) -> dict:
        p = self.participants[request.participant]
        return {
            "model": p.model_name,
            "messages": list(request.messages),
            "temperature": p.temperature,
            "step": request.step,
            "role": p.role,
            "spender": self.spender,
        }

    def _asked_for(self, request: CallRequest) -> str:
        """The participant's model, or the group its calls of this step are routed to."""
        p = self.participants[request.participant]
        return p.model_name or routing.config().route(request.step, p.role)

    def _store_failure(self, request: CallRequest, exc: gateway.LLMError) -> None:
        LLMCall.objects.filter(debate=self.debate, key=request.key).update(
            status=LLMCall.Status.FAILED,
            error=gateway.failure_text("", exc)[:5000],
            attempts=exc.attempts,
        )

    def _store(
        self,
        rnd: Round,
        answered: list[tuple[CallRequest, gateway.LLMResponse, gateway.Settlement | None]],
        *,
        closes_round: bool = False,
    ) -> Results:
        """Store the replies that returned together in one statement (atomic on its own, one
        round trip): each call's record, the statement or challenge it made, the settling of
        their spending (`paid`, all together), the round's end when the last of a step that
        closes its round is among them, and whatever `_store_extras` adds. A reply never waits
        for another: the ones that came back while an earlier store ran are stored together."""
        parts: list[onetrip.Part] = []
        selects: list[str] = []
        stored = []
        for i, (request, response, _) in enumerate(answered):
            reply, parsed, made, reply_parts = self._reply_parts(i, rnd, request, response)
            parts.extend(reply_parts)
            selects.append(f"SELECT {i}, made{i}.id FROM made{i}")
            stored.append((request, response, reply, parsed, made))
        select = " UNION ALL ".join(selects)
        settled = [paid for _, _, paid in answered if paid is not None]
        if paid := gateway.Settlement.together(settled):
            # A SELECT part runs only when read: the final select reads it.
            parts.append(onetrip.Part("paid", *paid))
            select = f"SELECT made.* FROM ({select}) made CROSS JOIN paid"
        completed_at = timezone.now()
        if closes_round:
            parts.append(
                onetrip.update(
                    "round_end",
                    Round,
                    rnd.pk,
                    {"status": Round.Status.COMPLETED, "completed_at": completed_at},
                )
            )
        parts.extend(self._store_extras())
        ids = dict(onetrip.execute(parts, select))
        for settlement in settled:
            settlement.done = True
        replies: Results = {}
        for i, (request, response, reply, parsed, made) in enumerate(stored):
            made.pk = ids[i]
            self.kept[request.key] = made
            if isinstance(made, Statement):
                # What the quality scores read of its call (`quality.record_for`), the other
                # fields deferred.
                call = LLMCall.from_db(
                    DEFAULT_DB_ALIAS,
                    ["id", "tokens_in", "tokens_out", "cost_usd"],
                    [
                        self.call_ids[request.key],
                        response.tokens_in,
                        response.tokens_out,
                        response.cost_usd,
                    ],
                )
                Statement.call.field.set_cached_value(made, call)
                self.statement_ids[request.key] = made.pk
            self.done[request.key] = parsed
            replies[request.key] = reply
        if closes_round:
            rnd.status, rnd.completed_at = Round.Status.COMPLETED, completed_at
        self.heartbeat.beat()
        return replies

    def _reply_parts(
        self, i: int, rnd: Round, request: CallRequest, response: gateway.LLMResponse
    ) -> tuple[Any, dict, Statement | Challenge, list[onetrip.Part]]:
        """One returned call's reply, read by the protocol and screened, as stored, and the
        parts that store it (named with `i`): its call's record (`call{i}`) and the statement
        or challenge it made (`made{i}`, returning its id)."""
        reply = self.protocol.parse(request, response.content)
        parsed = reply.as_json()
        call_id = self.call_ids[request.key]
        participant = self.participants[request.participant]
        findings = defense.screen_reply(response.content)
        if findings:
            self.flagged[request.key] = findings
        call = onetrip.update(
            f"call{i}",
            LLMCall,
            call_id,
            LLMCall.done_fields(
                response,
                parsed=parsed,
                parse_failed=reply.parse_failed,
                error=reply.error,
                injection_findings=findings,
            ),
        )
        if isinstance(reply, ChallengeReply):
            made = Challenge(
                debate=self.debate,
                round=rnd,
                challenger=participant,
                challenged=self.participants[request.target],
                call_id=call_id,
                stance=reply.stance,
                agrees_with_conclusion=reply.agrees_with_conclusion,
                argument=reply.argument,
                suggested_decision=reply.suggested_decision,
                parse_failed=reply.parse_failed,
            )
        else:
            previous = ""
            if request.previous_key:
                previous = self.done.get(request.previous_key, {}).get("decision", "")
            made = Statement(
                debate=self.debate,
                round=rnd,
                participant=participant,
                call_id=call_id,
                kind=request.step,
                decision=reply.decision,
                confidence=reply.confidence,
                risk=reply.risk,
                reasoning=reply.reasoning,
                previous_decision=previous,
                parse_failed=reply.parse_failed,
                notes=list(reply.notes),
                details=dict(reply.details or {}),
            )
        return reply, parsed, made, [call, onetrip.insert(f"made{i}", [made])]

    def _store_extras(self) -> list[onetrip.Part]:
        """More writes that ride in every store's statement (none yet)."""
        return []

    def _finish(self, outcome: Outcome) -> None:
        """In one statement: the final round (stored completed), the votes, the decision with
        its totals, baselines and quality scores (computed from the replies this run holds, or
        read back when an earlier run stored some), and, when the outcome needs a human, its
        review item and the item's `created` event; none of it is kept unless the debate was
        still running."""
        debate = self.debate
        if outcome.decision.decision not in self.protocol.decisions:
            raise RuntimeError(
                f"{debate.protocol} decided {outcome.decision.decision!r}, which is not one of "
                f"its decisions ({', '.join(self.protocol.decisions)})"
            )
        metadata = outcome.metadata(debate.metadata)
        if debate.injection_findings:
            metadata["injection_suspected"] = True
        if self.flagged:
            metadata["injection_in_replies"] = [
                {"call": key, "kinds": sorted({f["kind"] for f in found})}
                for key, found in sorted(self.flagged.items())
            ]
        flags = outcome_flags(metadata, debate.injection_findings)
        number, name = outcome.final_round_number, outcome.final_round_name
        keys = [v.statement_key for v in outcome.votes if v.statement_key]
        statements = {k: self.statement_ids[k] for k in keys if k in self.statement_ids}
        if missing := [k for k in keys if k not in statements]:  # stored by an earlier run
            statements.update(
                Statement.objects.filter(debate=debate, call__key__in=missing).values_list(
                    "call__key", "id"
                )
            )
        votes = [
            Vote(
                debate=debate,
                participant=self.participants[v.participant],
                statement_id=statements.get(v.statement_key),
                decision=v.decision,
                confidence=v.confidence,
                risk=v.risk,
                reasoning=v.reasoning,
            )
            for v in outcome.votes
        ]
        rows = self._finished_rows(votes)
        if rows is None:  # an earlier run stored some replies: its statements read back
            stored, _, challenges = stored_rows(debate.pk)
            rows = stored, votes, challenges
        # What no debate would have decided, and the quality scores, stored with the decision.
        _, evaluated = finished_fields(debate, outcome.decision.decision, rows=rows)
        plain = opens_plainly(debate.raised_before)  # returned by the claim
        now = timezone.now()
        parts = []
        rnd = self.rounds.get(number)
        if rnd is None or rnd.status != Round.Status.COMPLETED:
            parts.append(self._round_part(number, name, completed=True))
        if votes:
            parts.append(onetrip.insert("v", votes, ignore_conflicts=True))
        items = outcome_item_parts(debate.pk, flags, at=now) if plain else []
        parts += items
        calls = LLMCall._meta.db_table
        total = f"(SELECT COALESCE(SUM({{}}), 0) FROM {calls} WHERE debate_id = %s)"
        raw = {
            # Every call the debate made, stored before this statement (which sees them).
            "tokens_in": (total.format("tokens_in"), [debate.pk]),
            "tokens_out": (total.format("tokens_out"), [debate.pk]),
            "cost_usd": (total.format("cost_usd"), [debate.pk]),
        }
        if items:
            raw["review_status"] = (
                "CASE WHEN EXISTS (SELECT 1 FROM ri) THEN %s ELSE review_status END",
                [Debate.ReviewStatus.PENDING],
            )
        parts.append(
            onetrip.update(
                "d",
                Debate,
                debate.pk,
                {
                    **evaluated,
                    "status": Debate.Status.COMPLETED,
                    "decision": outcome.decision.decision,
                    "reasoning": outcome.decision.reasoning,
                    "metadata": metadata,
                    "consensus_type": outcome.decision.consensus_type,
                    "completed_at": now,
                    "updated_at": now,
                    "error": "",
                },
                raw=raw,
                where=("status = %s", [Debate.Status.RUNNING]),
                returning="id",
            )
        )
        still_running, refused = onetrip.refuse_unless(
            "EXISTS (SELECT FROM d)", "the debate stopped running while it was being completed"
        )
        item_ids = "(SELECT array_agg(id) FROM ri)" if items else "NULL::bigint[]"
        # An outcome item raised before (a debate run again) is joined or skipped by
        # `review_items_for_debate`, in the transaction that completes the debate; inside a
        # caller's transaction, a savepoint keeps it usable when the statement fails (the run
        # then fails the debate in it).
        joins = bool(flags) and not plain
        with transaction.atomic() if joins or connection.in_atomic_block else nullcontext():
            try:
                [(_, opened)] = onetrip.execute(
                    parts, f"SELECT {still_running}, {item_ids}", refused
                )
            except onetrip.Refused as exc:
                raise RuntimeError(str(exc)) from None
            debate.status, debate.metadata = Debate.Status.COMPLETED, metadata
            if joins:
                review_items_for_debate(debate=debate, completed=debate)
        if opened:
            debate.review_status = Debate.ReviewStatus.PENDING
            logger.info(
                "debate %s: review item #%s (%s)",
                debate.pk,
                opened[0],
                ", ".join(f.reason for f in flags),
            )
        if debate.callback_url:
            webhooks.notify_debate_event(debate_id=debate.id, event=webhooks.Event.DEBATE_COMPLETED)

    def _finished_rows(self, votes: list[Vote]):
        """What the baselines and quality scores are computed from, as `finished_fields` reads
        them, when this run stored every reply of the debate (None: read them back)."""
        if not set(self.done) <= set(self.kept):
            return None
        kept = sorted(
            (made for made in self.kept.values() if isinstance(made, Statement)),
            key=lambda s: (s.round.number, s.participant.position),
        )
        challenges = [made.argument for made in self.kept.values() if isinstance(made, Challenge)]
        return kept, votes, challenges
