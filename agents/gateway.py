"""The one door to language models. Every LLM call in the service goes through `complete`.

litellm does the talking (its Router for the named model groups of `agents.routing`, with their
fallbacks); this module adds what the service needs around it: which deployment a call goes to,
JSON-structured output, a per-call timeout, bounded retries with backoff on rate limits, server
errors, timeouts and empty replies, typed errors, and the accounting of every call (tokens,
cost, latency), and the spending limits of `budgets`: a call made for a spender is reserved
against every limit before it is made and settled with what it really spent after
(`budgets.accounting`); a call that does not fit is not made (`BudgetStop`).

Calls are made as coroutines (litellm's `acompletion`) on one event loop per process, on a
thread of its own (`calls_loop`); the thread that asks waits for the reply (`complete`) or for
the first of several (`complete_concurrently`). Whatever touches the database (reserving,
settling, storing) stays on the asking thread.

A reply is kept twice: as the provider sent it (`raw_content`, before litellm removes a leading
`<think>` block, and the `reasoning_content` litellm separates out), and as the copy the service
reads (`content`: litellm's content, with the characters PostgreSQL refuses replaced; see
`agents.pg_text`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, wait
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.utils import timezone

from agents import call_spans, calls_loop, pg_text, pricing, provider_limits, routing, spending
from agents.errors import LLMError, Lost
from agents.litellm_loader import get_litellm
from agents.replies import LLMResponse, is_empty_reply
from budgets import accounting as budget_accounting
from budgets.limits import Spender

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

logger = logging.getLogger(__name__)

OFFLINE_NOTICE = (
    "offline heuristic demo model: a deterministic, transparent rule set, not a language "
    "model; its judgements are scripted for demonstration and tests"
)


def _summary(litellm, exc: BaseException, name: str) -> str:
    kinds = [
        (litellm.RateLimitError, "the provider is limiting requests (rate limit)"),
        (litellm.Timeout, "the provider did not answer in time"),
        (litellm.APIConnectionError, "the provider could not be reached"),
        (litellm.AuthenticationError, "the provider refused the credentials"),
        (litellm.PermissionDeniedError, "the provider refused the credentials"),
        (litellm.NotFoundError, "the provider does not know the model"),
        (
            (litellm.InternalServerError, litellm.ServiceUnavailableError),
            "the provider had a server error",
        ),
        (litellm.BadRequestError, "the provider refused the request"),
    ]
    what = next(
        (text for kind, text in kinds if isinstance(exc, kind)), "the model could not be called"
    )
    return f"{name}: {what}"


async def _call(litellm, target: routing.Target, **kwargs):
    """One attempt: through the Router along the target's deployments when there is a
    choice to make (a fallback), else directly (a model, or the one deployment of a group,
    with its litellm parameters, as the Router would send them: the call's own win)."""
    if not target.routed:
        return await litellm.acompletion(model=target.name, num_retries=0, **kwargs)
    if len(target.deployments) == 1:
        return await litellm.acompletion(
            **{**target.deployments[0].params, **kwargs, "num_retries": 0}
        )
    return await routing.router(litellm).acompletion(
        model=target.deployments[0].id,
        fallbacks=routing.router_fallbacks(target),
        num_retries=0,
        **kwargs,
    )


def _answered_by(target: routing.Target, response) -> routing.Deployment | None:
    """The deployment the Router reports for a reply (its `model_id`)."""
    if not target.routed:
        return None
    if len(target.deployments) == 1:
        return target.deployments[0]
    hidden = getattr(response, "_hidden_params", None) or {}
    model_id = hidden.get("model_id")
    found = next((d for d in target.deployments if d.id == model_id), None)
    if found is None:
        logger.warning("%s: the reply names no known deployment (%r)", target.name, model_id)
    return found


def _transient_errors(litellm) -> tuple[type[BaseException], ...]:
    return (
        litellm.RateLimitError,
        litellm.Timeout,
        litellm.APIConnectionError,
        litellm.InternalServerError,
        litellm.ServiceUnavailableError,
    )


def _provider_message(original_response) -> dict | None:
    """The first choice's message as the provider sent it, from the body litellm logged."""
    try:
        body = json.loads(original_response) if isinstance(original_response, str) else None
        message = body["choices"][0]["message"]
    except (ValueError, TypeError, KeyError, IndexError):
        return None
    return message if isinstance(message, dict) else None


def _keep_provider_body(into: dict[str, Any]) -> Callable[[dict], None]:
    """A litellm `logger_fn`: litellm hands it the provider's body before reshaping the reply
    (before it removes a leading `<think>` block, for one)."""

    def logger_fn(details: dict) -> None:
        body = details.get("original_response")
        if isinstance(body, str):
            into["original_response"] = body

    return logger_fn


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _backoff(attempt: int) -> float:
    delay = settings.DEBATE_LLM_RETRY_BASE_DELAY * (2 ** (attempt - 1))
    return min(delay, 30.0) * (0.5 + random.random() / 2)


def complete(
    *,
    model: str | None = None,
    messages: list[dict[str, str]],
    temperature: float = 0.2,
    timeout: float | None = None,
    max_retries: int | None = None,
    step: str = "",
    role: str = "",
    spender: Spender | None = None,
    max_tokens: int | None = None,
) -> LLMResponse:
    """Ask for a JSON reply to `messages`: from `model` (a group, a deployment or a litellm
    model string) or, when it is empty, from the group routed to for `step` and `role`.
    Each attempt goes along the target's deployments (the Router's fallbacks); transient
    failures (an empty reply is one) are retried, then raised; an empty reply after the last
    attempt is returned as it is.

    With a `spender`, the call is reserved against its limits first (`BudgetStop` when it does
    not fit: nothing is sent) and settled after; the reply may use at most the spender's
    `max_tokens` (or `max_tokens`), sent to the model."""
    target = routing.config().target(model, step=step, role=role)
    max_tokens = max_tokens or (spender.max_tokens if spender else None)
    reservation = spending.reserve(spender, target, messages, max_tokens)
    attempts = spending.Attempts(reservation, target, messages, max_tokens)
    call = calls_loop.start(
        acomplete(
            model=model,
            messages=messages,
            temperature=temperature,
            timeout=timeout,
            max_retries=max_retries,
            step=step,
            role=role,
            max_tokens=max_tokens,
            **attempts.kwargs(None),
        )
    )
    try:
        while not call.done():  # answering its asks for room for one more attempt
            wait([call, attempts.desk.wake], return_when=FIRST_COMPLETED)
            attempts.serve()
        response = call.result()
    except BaseException as exc:  # nothing came back: the call still counts, its hold is freed
        call.cancel()
        spending.settle(reservation, None, lost=getattr(exc, "lost", None), model=target.name)
        attempts.release(None)
        raise
    spending.settle(reservation, response)
    attempts.release(None)
    return response


async def _complete(
    target: routing.Target,
    *,
    messages: list[dict[str, str]],
    temperature: float,
    timeout: float | None,
    max_retries: int | None,
    max_tokens: int | None,
    attempt_bound: Lost | None = None,
    more_room=None,
) -> LLMResponse:
    litellm = get_litellm()
    model = target.name
    limit = {"max_tokens": max_tokens} if max_tokens else {}
    timeout = settings.DEBATE_LLM_TIMEOUT if timeout is None else timeout
    max_retries = settings.DEBATE_LLM_MAX_RETRIES if max_retries is None else max_retries
    transient = _transient_errors(litellm)
    # The provider's limits are kept for the deployment each attempt is sent to first.
    limited = target.deployments[0] if target.routed else None
    estimate = provider_limits.estimate_tokens(messages, max_tokens)
    attempt = 0
    tokens_in = tokens_out = 0
    cost = Decimal(0)
    lost = Lost()
    started_at, started = timezone.now(), time.monotonic()
    while True:
        attempt += 1
        logged: dict[str, Any] = {}
        try:
            async with provider_limits.held(limited, tokens=estimate) as use:
                response = await _call(
                    litellm,
                    target,
                    messages=messages,
                    temperature=temperature,
                    timeout=timeout,
                    response_format={"type": "json_object"},
                    logger_fn=_keep_provider_body(logged),
                    **limit,
                )
                use.tokens = getattr(getattr(response, "usage", None), "total_tokens", None)
        except transient as exc:
            if isinstance(exc, litellm.Timeout) and attempt_bound is not None:
                lost += attempt_bound  # it may have been answered, and billed
            # Another attempt may be billed too: made only when the limits have room for it.
            if attempt > max_retries or (more_room is not None and not await more_room()):
                raise LLMError(
                    f"{model}: gave up after {attempt} attempts: {exc}",
                    permanent=False,
                    attempts=attempt,
                    summary=f"{_summary(litellm, exc, model)}, {attempt} attempts",
                    lost=lost,
                ) from exc
            delay = _backoff(attempt)
            logger.warning(
                "%s: transient error (%s); retry %d in %.2fs", model, exc, attempt, delay
            )
            await _pause(delay)
            continue
        except LLMError:
            raise
        except Exception as exc:  # noqa: BLE001 - anything else (bad key, bad request) is final
            raise LLMError(
                f"{model}: {exc}",
                permanent=True,
                attempts=attempt,
                summary=_summary(litellm, exc, model),
                lost=lost,
            ) from exc

        deployment = _answered_by(target, response)
        answered_model = deployment.model if deployment else model
        usage = getattr(response, "usage", None)
        tokens_in += int(getattr(usage, "prompt_tokens", 0) or 0)
        tokens_out += int(getattr(usage, "completion_tokens", 0) or 0)
        cost += pricing.cost(litellm, response, answered_model, deployment)
        message = response.choices[0].message
        content = message.content or ""
        if (
            is_empty_reply(content)
            and attempt <= max_retries
            and (more_room is None or await more_room())
        ):
            delay = _backoff(attempt)
            logger.warning("%s: empty reply; retry %d in %.2fs", model, attempt, delay)
            await _pause(delay)
            continue
        break

    sent = _provider_message(logged.get("original_response"))
    raw = _text(sent.get("content")) if sent is not None else content
    return LLMResponse(
        model=answered_model,
        content=pg_text.clean_reply(content),
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        cost_usd=cost,
        latency_ms=int((time.monotonic() - started) * 1000),
        attempts=attempt,
        started_at=started_at,
        ended_at=timezone.now(),
        raw_content=raw,
        reasoning_content=_text(getattr(message, "reasoning_content", None)),
        deployment=deployment.id if deployment else "",
        lost=lost,
    )


async def _pause(seconds: float) -> None:
    """Wait before the next attempt."""
    await asyncio.sleep(seconds)


async def acomplete(
    *,
    model: str | None = None,
    messages: list[dict[str, str]],
    temperature: float = 0.2,
    timeout: float | None = None,
    max_retries: int | None = None,
    step: str = "",
    role: str = "",
    max_tokens: int | None = None,
    attempt_bound: Lost | None = None,
    more_room=None,
) -> LLMResponse:
    """`complete` as a coroutine on the calls' loop, without a spender (its caller reserves
    and settles, on its own thread: the spending limits live in the database). Every call,
    `complete`'s own and those of `complete_concurrently`, is made by this.

    For a call its caller reserved: `attempt_bound` is the most one attempt may cost (an
    attempt cut off at the timeout is counted at it, `LLMResponse.lost`), and `more_room()`
    (awaited before each retry) says whether the limits have room for another attempt; when
    they have not, the call ends as its last attempt left it. When traces are on, the call
    is a span (`agents.call_spans`)."""
    target = routing.config().target(model, step=step, role=role)
    with call_spans.traced(
        target, step=step, role=role, temperature=temperature, max_tokens=max_tokens
    ) as span:
        response = await _complete(
            target,
            messages=messages,
            temperature=temperature,
            timeout=timeout,
            max_retries=max_retries,
            max_tokens=max_tokens,
            attempt_bound=attempt_bound,
            more_room=more_room,
        )
        return span.replied(response)


def complete_concurrently(
    calls: dict[Any, dict[str, Any]],
    *,
    max_workers: int,
    on_returned: Callable[[list[tuple]], None],
    on_failed: Callable[[Any, LLMError], None],
    store_settles: bool = False,
    reserved: spending.StepReservation | None = None,
) -> list[LLMError]:
    """Make independent calls at once (at most `max_workers` of them in flight), on the
    process's calls' loop (`calls_loop`): `calls` maps a caller's key to `complete`'s arguments.

    Replies are handed to `on_returned` as soon as they arrive; the ones that arrive together
    come in one list, so the caller can store them in one transaction. A call that fails with
    `LLMError` goes to `on_failed`; the others still finish and are handed over. Returns those
    failures; any other exception is raised once the replies that came with it are handed over
    and the calls in flight have ended (they count, their replies are not kept; calls not
    started yet are then not made).

    The calls with a `spender` are reserved here first, in the caller's thread (so on its
    database connection), all together (`budget_accounting.reserve_many`: one statement), in
    order, as many as fit. When a spending limit refuses one (`BudgetStop`), it and the calls
    after it are handed to `on_failed` with that error and not made; the others are made and
    kept. A call is settled here when it returns, or, with `store_settles`, by the caller:
    `on_returned` then gets (key, reply, `spending.Settlement` or None) and runs each settlement
    as a part of the statement that stores its reply (setting `done`); one it did not run is
    settled here after. With `reserved`, the calls were reserved by the caller's own
    statement (`spending.StepReservation`): none is reserved here.
    """
    errors: list[LLMError] = []
    if not calls:
        return errors
    items = [(key, dict(kwargs)) for key, kwargs in calls.items()]
    reservations, refused, stop = spending.reserve_all(items, reserved)
    attempts = spending.Attempts.of_step(reservations, items)
    waiting = [
        (key, {**kwargs, **attempts.kwargs(key)}) for key, kwargs in items if key in reservations
    ]
    waiting.reverse()
    if stop is not None:
        started = False
        for key, _ in items:
            started = started or key == refused
            if started:
                on_failed(key, stop)
                errors.append(stop)
    limit = max(1, max_workers)
    futures: dict[Any, Any] = {}

    def submit_more() -> None:
        while waiting and len(futures) < limit:
            key, kwargs = waiting.pop()
            futures[calls_loop.start(acomplete(**kwargs))] = key

    def hand_over(answered: list[tuple[Any, LLMResponse]]) -> None:
        if not store_settles:
            for key, response in answered:
                spending.settle(reservations.pop(key), response)
                attempts.release(key)
            on_returned(answered)
            return
        settlements = {}
        for key, response in answered:
            settlements[key] = (spending.Settlement.of(reservations.pop(key), response), response)
        try:
            on_returned([(key, response, s) for key, (s, response) in settlements.items()])
        finally:
            for settlement, _ in settlements.values():
                if settlement is not None and not settlement.done:
                    budget_accounting.settle_now(*settlement.statement())
            for key in settlements:
                attempts.release(key)

    def failed(key, exc) -> None:
        spending.settle(
            reservations.pop(key),
            None,
            lost=getattr(exc, "lost", None),
            model=attempts.model(key),
        )
        attempts.release(key)

    submit_more()
    try:
        while futures:
            returned, _ = wait([*futures, attempts.desk.wake], return_when=FIRST_COMPLETED)
            attempts.serve()  # calls asking for room for one more attempt
            answered, fatal = [], None
            for future in returned:
                if future not in futures:
                    continue
                key = futures.pop(future)
                exc = future.exception()
                if exc is None:
                    answered.append((key, future.result()))
                    continue
                failed(key, exc)
                if isinstance(exc, LLMError):
                    on_failed(key, exc)
                    errors.append(exc)
                else:
                    fatal = fatal or exc
            if fatal is None:
                submit_more()
            if answered:  # what came back is kept, even when something else went wrong
                hand_over(answered)
            if fatal is not None:
                # A call in flight may have reached its model: it ends, and it counts.
                while not all(f.done() for f in futures):
                    wait([*futures, attempts.desk.wake], return_when=FIRST_COMPLETED)
                    attempts.serve()
                for future, key in futures.items():
                    if future.exception() is None:  # a reply not kept is paid for all the same
                        spending.settle(reservations.pop(key), future.result())
                        attempts.release(key)
                    else:
                        failed(key, future.exception())
                futures.clear()
                raise fatal
    finally:
        for key, _ in waiting:  # never sent: given back, not counted
            held = reservations.pop(key, None)
            if held is not None:
                budget_accounting.release(held)
    return errors
