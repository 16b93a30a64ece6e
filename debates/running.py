"""Running a debate: debates as durable work (`runs.lifecycle`: claimed, resumed, failed,
swept), and the runner that drives a protocol's steps, making each step's calls concurrently
through the gateway; what it stores, and how, is `debates.storage`."""

from __future__ import annotations

import logging
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS

from agents import gateway, spending
from agents.errors import BudgetStop, LLMError, failure_text
from budgets import services as budgets
from config import tracing
from debates import events, webhooks
from debates.models import Debate, LLMCall, Participant, Round
from debates.reviewing.items import failure_items_close_for_rerun, review_item_for_failure
from debates.specs import participant_spec
from debates.storage import DebateStore
from debates.totals import totals_of
from protocols import ProtocolError, get_protocol
from protocols.base import CallRequest, Results
from reviews.models import ReviewItem
from runs import lifecycle

logger = logging.getLogger(__name__)


def participants_from_claim(debate: Debate) -> list[Participant]:
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


class DebateWork(lifecycle.Work):
    """Debates as durable work (`runs.lifecycle`): one runner per debate, under an advisory lock
    keyed by its id; a debate failed for good gets a `debate_failed` review item and its
    `debate.failed` webhook, in the transaction that fails it."""

    model = Debate
    noun = "debate"
    plural = "debates"
    spending_prefix = "debate:"
    call_model = LLMCall
    call_parent = "debate"

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
        attributes = {"debate.id": str(row.pk), "debate.protocol": row.protocol}
        with tracing.span("debate.run", {**attributes, "debate.attempt": row.attempts}):
            _DebateRunner(row).run()

    def readable_error(self, exc: BaseException) -> str:
        if isinstance(exc, BudgetStop):
            return f"Stopped at a spending limit, keeping every reply paid for so far. {exc}"
        if isinstance(exc, LLMError):
            kind = "permanent" if exc.permanent else "after retries"
            return failure_text(f"The language model failed ({kind}): ", exc)
        if isinstance(exc, SoftTimeLimitExceeded):
            return (
                f"The debate ran past its time limit ({settings.CELERY_TASK_SOFT_TIME_LIMIT} s) "
                "and was stopped."
            )
        if isinstance(exc, ProtocolError):
            return f"The debate cannot run as configured: {exc}"
        return super().readable_error(exc)

    def is_transient(self, exc: BaseException) -> bool:
        return isinstance(exc, LLMError) and not exc.permanent

    def failed(self, row: Debate, cause: BaseException | None = None) -> None:
        totals_of(row.pk)  # what it spent reads as for a completed one
        review_item_for_failure(debate=row, budget=isinstance(cause, BudgetStop))
        webhooks.notify_debate_event(debate_id=row.pk, event=webhooks.Event.DEBATE_FAILED)
        events.publish(row.pk, [("failed", {"error": row.error})])

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


class _DebateRunner:
    """Drives a protocol's steps: concurrent calls per step, each result stored as it returns
    (with the results that returned with it) by the debate's `DebateStore`."""

    def __init__(self, debate: Debate):
        """`debate` as `DebateWork`'s claim returned it (with what `claim_returns` adds)."""
        self.debate = debate
        self.participants = {p.slug: p for p in participants_from_claim(debate)}
        specs = [participant_spec(p) for p in self.participants.values()]
        self.protocol = get_protocol(debate.protocol)(
            query=debate.query,
            participants=specs,
            complex_query=debate.is_complex_query,
            options=debate.options,
        )
        self.store = DebateStore(debate, participants=self.participants, protocol=self.protocol)
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
                lifecycle.stop_point()  # a worker shutting down hands the debate on here
                with tracing.span("debate.step", self._step_attributes(step)):
                    results = self._run_step(step)
                step = steps.send(results)
        except StopIteration as stop:
            self.store.finish(stop.value)

    @staticmethod
    def _step_attributes(step) -> dict[str, str | int]:
        return {
            "debate.round": step.round_number,
            "debate.round_name": step.round_name,
            "debate.calls": len(step.calls),
        }

    def _run_step(self, step) -> Results:
        todo = [c for c in step.calls if c.key not in self.store.done]
        arguments = {c.key: self._call_arguments(c) for c in todo}
        reserving = spending.StepReservation(arguments) if todo else None
        if todo or step.round_number not in self.store.rounds:
            self.store.start(step.round_number, step.round_name, todo, reserving=reserving)
        rnd = self.store.rounds[step.round_number]
        results = {
            c.key: self.protocol.load(c, self.store.done[c.key])
            for c in step.calls
            if c.key in self.store.done
        }
        todo = [c for c in step.calls if c.key not in self.store.done]
        if todo:
            by_key = {c.key: c for c in todo}
            outstanding = set(by_key)
            failed: list[str] = []

            def store(answered):
                outstanding.difference_update(key for key, *_ in answered)
                results.update(
                    self.store.replies(
                        rnd,
                        [(by_key[key], response, paid) for key, response, paid in answered],
                        closes_round=step.closes_round and not outstanding and not failed,
                    )
                )

            def store_failure(key, exc):
                failed.append(key)
                outstanding.discard(key)
                self.store.failure(by_key[key], exc)

            errors = gateway.complete_concurrently(
                {c.key: arguments[c.key] for c in todo},
                max_workers=settings.DEBATE_MAX_CONCURRENT_CALLS,
                on_returned=store,
                on_failed=store_failure,
                store_settles=True,
                reserved=reserving,
            )
            if errors:
                stops = [e for e in errors if isinstance(e, BudgetStop)]
                raise (stops or errors)[0]
        if step.closes_round:
            if rnd.status != Round.Status.COMPLETED:  # its last reply came in an earlier run
                self.store.start(step.round_number, step.round_name, [], completed=True)
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
