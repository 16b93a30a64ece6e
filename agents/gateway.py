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
`agents.storable`).
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import logging
import os
import random
import re
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings

from agents import routing, storable
from budgets import accounting as budget_accounting
from budgets.limits import BudgetExceeded, Spender, estimate_tokens

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

logger = logging.getLogger(__name__)

OFFLINE_PROVIDER = "offline"
OFFLINE_NOTICE = (
    "offline heuristic demo model: deterministic keyword rules, not a language model; "
    "its judgements are scripted for demonstration and tests"
)
_setup_lock = threading.Lock()
_litellm = None


class LLMError(Exception):
    """A call that did not produce a reply. `permanent` errors are not worth retrying.
    `summary` says what went wrong without the provider's own words (addresses, keys, bodies),
    for users who are not staff; the gateway always gives one (an error made without one is
    shown whole)."""

    def __init__(self, message: str, *, permanent: bool, attempts: int = 0, summary: str = ""):
        super().__init__(storable.clean_text(message))
        self.permanent = permanent
        self.attempts = attempts
        self.summary = summary


class BudgetStop(LLMError):
    """A call refused by a spending limit before it was made (nothing was spent on it).
    `breach` says which limit, how much is used and when it resets."""

    def __init__(self, exceeded: BudgetExceeded):
        super().__init__(exceeded.breach.message(), permanent=True, attempts=0)
        self.breach = exceeded.breach


# What a stored error shows everyone; what follows the mark is for staff only.
DETAILS_MARK = "\nDetails (staff only): "


def failure_text(lead: str, exc: LLMError) -> str:
    """A failure to store: `lead` and the summary for everyone, then the details."""
    if not exc.summary:
        return f"{lead}{exc}"
    return f"{lead}{exc.summary}.{DETAILS_MARK}{exc}"


def error_for(text: str, *, staff: bool) -> str:
    """A stored error as a user may see it: staff see it whole, others up to the details."""
    return text if staff else text.split(DETAILS_MARK, 1)[0]


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


@dataclass(frozen=True)
class LLMResponse:
    model: str
    content: str
    tokens_in: int
    tokens_out: int
    cost_usd: Decimal
    latency_ms: int
    attempts: int
    # What the provider sent (None: the same as `content`) and the reasoning litellm separated.
    raw_content: str | None = None
    reasoning_content: str = ""
    # The routing deployment that answered ("reasoning-2"); empty for a model called directly.
    deployment: str = ""


def _get_litellm():
    """Import litellm once per process and register the offline provider with it."""
    global _litellm
    if _litellm is None:
        with _setup_lock:
            if _litellm is None:
                import litellm

                from agents.offline import OfflineDebateModel

                litellm.telemetry = False
                litellm.suppress_debug_info = True
                providers = [
                    p for p in litellm.custom_provider_map if p.get("provider") != OFFLINE_PROVIDER
                ]
                providers.append(
                    {"provider": OFFLINE_PROVIDER, "custom_handler": OfflineDebateModel()}
                )
                litellm.custom_provider_map = providers
                litellm.utils.custom_llm_setup()
                _litellm = litellm
    return _litellm


def load() -> None:
    """Import litellm and register the offline provider now rather than on the first call."""
    _get_litellm()


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


def is_offline_model(model: str) -> bool:
    return model.split("/", 1)[0] == OFFLINE_PROVIDER


def _transient_errors(litellm) -> tuple[type[BaseException], ...]:
    return (
        litellm.RateLimitError,
        litellm.Timeout,
        litellm.APIConnectionError,
        litellm.InternalServerError,
        litellm.ServiceUnavailableError,
    )


_MILLION = Decimal(1_000_000)


def _price(model: str, deployment: routing.Deployment | None = None) -> tuple[Decimal, Decimal]:
    """USD per input and per output token: the deployment's litellm prices, then
    BUDGET_MODEL_PRICES (per million), then litellm's cost map; (0, 0) when none knows."""
    if is_offline_model(model):
        return Decimal(0), Decimal(0)
    params = deployment.params if deployment else {}
    if "input_cost_per_token" in params or "output_cost_per_token" in params:
        return (
            Decimal(str(params.get("input_cost_per_token") or 0)),
            Decimal(str(params.get("output_cost_per_token") or 0)),
        )
    table = settings.BUDGET_MODEL_PRICES.get(model)
    if isinstance(table, dict):
        return (
            Decimal(str(table.get("input", 0))) / _MILLION,
            Decimal(str(table.get("output", 0))) / _MILLION,
        )
    known = _get_litellm().model_cost
    entry = known.get(model) or known.get(model.split("/", 1)[-1]) or {}
    return (
        Decimal(str(entry.get("input_cost_per_token") or 0)),
        Decimal(str(entry.get("output_cost_per_token") or 0)),
    )


def _priced_here(model: str, deployment: routing.Deployment | None) -> bool:
    params = deployment.params if deployment else {}
    return (
        "input_cost_per_token" in params
        or "output_cost_per_token" in params
        or isinstance(settings.BUDGET_MODEL_PRICES.get(model), dict)
    )


def estimate_cost(target: routing.Target, *, tokens_in: int, tokens_out: int) -> Decimal:
    """The most a call to `target` may cost: its dearest deployment's prices."""
    candidates = [(d.model, d) for d in target.deployments] or [(target.name, None)]
    costs = []
    for model, deployment in candidates:
        price_in, price_out = _price(model, deployment)
        costs.append(price_in * tokens_in + price_out * tokens_out)
    return max(costs)


def _cost(litellm, response, model: str, deployment: routing.Deployment | None = None) -> Decimal:
    if is_offline_model(model):
        return Decimal(0)
    if _priced_here(model, deployment):
        usage = getattr(response, "usage", None)
        price_in, price_out = _price(model, deployment)
        return price_in * int(getattr(usage, "prompt_tokens", 0) or 0) + price_out * int(
            getattr(usage, "completion_tokens", 0) or 0
        )
    # litellm prices every reply as it builds it: take that figure rather than price it again.
    hidden = getattr(response, "_hidden_params", None) or {}
    if hidden.get("response_cost") is not None:
        return Decimal(str(hidden["response_cost"]))
    try:
        return Decimal(str(litellm.completion_cost(completion_response=response) or 0))
    except Exception:  # noqa: BLE001 - a model missing from the cost map costs "unknown" = 0
        logger.info("no cost known for model %s; recorded as 0", model)
        return Decimal(0)


_THINK_BLOCK = re.compile(r"<(think|thinking)>.*?</\1>", re.DOTALL)


def is_empty_reply(content: str) -> bool:
    """No answer: empty, whitespace, or nothing but `<think>` blocks."""
    return not _THINK_BLOCK.sub("", content).strip()


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
    reservation = _reserve(spender, target, messages, max_tokens)
    call = _start(
        acomplete(
            model=model,
            messages=messages,
            temperature=temperature,
            timeout=timeout,
            max_retries=max_retries,
            step=step,
            role=role,
            max_tokens=max_tokens,
        )
    )
    try:
        response = call.result()
    except BaseException:  # nothing came back: the call still counts, its estimate is freed
        call.cancel()
        _settle(reservation, None)
        raise
    _settle(reservation, response)
    return response


def _estimate(spender, target, messages, max_tokens) -> tuple[Decimal, int]:
    """A call's most likely spending: its prompt, and `max_tokens` of reply."""
    prompt = estimate_tokens(sum(len(str(m.get("content") or "")) for m in messages))
    reply = max_tokens or 0
    return estimate_cost(target, tokens_in=prompt, tokens_out=reply), prompt + reply


def _reserve(spender, target, messages, max_tokens) -> budget_accounting.Reservation | None:
    """Reserve a call's most likely spending against the spender's limits, or raise
    `BudgetStop`. None without a spender."""
    if spender is None:
        return None
    cost, tokens = _estimate(spender, target, messages, max_tokens)
    try:
        return budget_accounting.reserve(spender, cost=cost, tokens=tokens)
    except BudgetExceeded as exc:
        raise BudgetStop(exc) from None


def _settlement(reservation, response: LLMResponse | None) -> tuple[str, list[Any]] | None:
    """The statement that settles a call (None: nothing to settle)."""
    if reservation is None:
        return None
    if response is None:
        return budget_accounting.settle_sql(
            reservation, model="", tokens_in=0, tokens_out=0, cost=Decimal(0)
        )
    return budget_accounting.settle_sql(
        reservation,
        model=response.model,
        tokens_in=response.tokens_in,
        tokens_out=response.tokens_out,
        cost=response.cost_usd,
    )


def _settle(reservation, response: LLMResponse | None) -> None:
    if reservation is None:
        return
    if response is None:
        budget_accounting.settle(reservation, model="", tokens_in=0, tokens_out=0, cost=Decimal(0))
        return
    budget_accounting.settle(
        reservation,
        model=response.model,
        tokens_in=response.tokens_in,
        tokens_out=response.tokens_out,
        cost=response.cost_usd,
    )


class Settlement:
    """A returned call's settling, for a caller that runs it as a part of the statement storing
    the reply: with the calls that returned with it (`together`), or alone (`statement`); the
    caller sets `done` once it has run, and the gateway settles the call on its own otherwise.
    The statement for the call alone is written only when it is needed."""

    def __init__(self, reservation: budget_accounting.Reservation, response: LLMResponse):
        self.reservation, self.response = reservation, response
        self.done = False

    @classmethod
    def of(cls, reservation, response: LLMResponse) -> Settlement | None:
        """The call's settling, or None when there is nothing to settle."""
        if reservation is None or not budget_accounting.to_settle(reservation, response.model):
            return None
        return cls(reservation, response)

    @property
    def item(self) -> tuple:
        """The call as `settle_many_sql` takes it."""
        r = self.response
        return (self.reservation, r.model, r.tokens_in, r.tokens_out, r.cost_usd)

    def statement(self) -> tuple[str, list[Any]]:
        """The statement that settles this call alone."""
        return _settlement(self.reservation, self.response)

    @staticmethod
    def together(settlements: list[Settlement]) -> tuple[str, list[Any]] | None:
        """One statement settling `settlements` (calls of one spender), as each would alone."""
        return budget_accounting.settle_many_sql([s.item for s in settlements])


async def _complete(
    target: routing.Target,
    *,
    messages: list[dict[str, str]],
    temperature: float,
    timeout: float | None,
    max_retries: int | None,
    max_tokens: int | None,
) -> LLMResponse:
    litellm = _get_litellm()
    model = target.name
    limit = {"max_tokens": max_tokens} if max_tokens else {}
    timeout = settings.DEBATE_LLM_TIMEOUT if timeout is None else timeout
    max_retries = settings.DEBATE_LLM_MAX_RETRIES if max_retries is None else max_retries
    transient = _transient_errors(litellm)
    attempt = 0
    tokens_in = tokens_out = 0
    cost = Decimal(0)
    started = time.monotonic()
    while True:
        attempt += 1
        logged: dict[str, Any] = {}
        try:
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
        except transient as exc:
            if attempt > max_retries:
                raise LLMError(
                    f"{model}: gave up after {attempt} attempts: {exc}",
                    permanent=False,
                    attempts=attempt,
                    summary=f"{_summary(litellm, exc, model)}, {attempt} attempts",
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
            ) from exc

        deployment = _answered_by(target, response)
        answered_model = deployment.model if deployment else model
        usage = getattr(response, "usage", None)
        tokens_in += int(getattr(usage, "prompt_tokens", 0) or 0)
        tokens_out += int(getattr(usage, "completion_tokens", 0) or 0)
        cost += _cost(litellm, response, answered_model, deployment)
        message = response.choices[0].message
        content = message.content or ""
        if is_empty_reply(content) and attempt <= max_retries:
            delay = _backoff(attempt)
            logger.warning("%s: empty reply; retry %d in %.2fs", model, attempt, delay)
            await _pause(delay)
            continue
        break

    sent = _provider_message(logged.get("original_response"))
    raw = _text(sent.get("content")) if sent is not None else content
    return LLMResponse(
        model=answered_model,
        content=storable.clean_reply(content),
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        cost_usd=cost,
        latency_ms=int((time.monotonic() - started) * 1000),
        attempts=attempt,
        raw_content=raw,
        reasoning_content=_text(getattr(message, "reasoning_content", None)),
        deployment=deployment.id if deployment else "",
    )


async def _pause(seconds: float) -> None:
    """Wait before the next attempt."""
    await asyncio.sleep(seconds)


_loop: asyncio.AbstractEventLoop | None = None
_loop_thread: threading.Thread | None = None
_loop_pid: int | None = None
_in_flight: asyncio.Semaphore | None = None


#: The name of the calls' loop thread, and the prefix of its executor's threads (litellm runs
#: the synchronous part of each call there), in Python and at the OS level.
CALLS_THREAD_NAME = "llm-calls"


def _name_os_thread() -> None:
    """Give the calling thread its Python name at the OS level too (its first 15 bytes, as
    Linux keeps them), so `top -H`, `ps -L` and `/proc/<pid>/task/*/comm` tell the calls'
    threads from the others; Python 3.14 does this itself. Best effort: elsewhere, nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(15, threading.current_thread().name.encode()[:15], 0, 0, 0)  # PR_SET_NAME
    except (OSError, AttributeError):
        pass


def _run_forever(loop: asyncio.AbstractEventLoop) -> None:
    _name_os_thread()
    loop.run_forever()


def calls_loop() -> asyncio.AbstractEventLoop:
    """The process's one event loop for LLM calls, on a thread of its own ("llm-calls"),
    started on first use and kept for the life of the process. Every call is a coroutine on
    it (litellm's `acompletion`): a call waiting on its model holds no thread, so the calls of
    every debate the process runs share one thread instead of taking one each, and fewer
    threads contend for the interpreter. A forked child starts its own: threads do not
    survive a fork. The loop's thread and those of its default executor (where litellm runs
    the synchronous part of each call) are named `llm-calls`, in Python and at the OS level,
    so what the calls cost can be read per thread."""
    global _loop, _loop_thread, _loop_pid, _in_flight
    if _loop is None or _loop_pid != os.getpid():
        with _setup_lock:
            if _loop is None or _loop_pid != os.getpid():
                loop = asyncio.new_event_loop()
                loop.set_default_executor(
                    ThreadPoolExecutor(
                        thread_name_prefix=CALLS_THREAD_NAME, initializer=_name_os_thread
                    )
                )
                thread = threading.Thread(
                    target=_run_forever, args=(loop,), name=CALLS_THREAD_NAME, daemon=True
                )
                thread.start()
                _in_flight = asyncio.Semaphore(settings.DEBATE_LLM_MAX_IN_FLIGHT)
                _loop, _loop_thread, _loop_pid = loop, thread, os.getpid()
    return _loop


async def _held(call: Coroutine[Any, Any, LLMResponse]) -> LLMResponse:
    """`call`, once fewer than `DEBATE_LLM_MAX_IN_FLIGHT` calls of the process are in flight."""
    assert _in_flight is not None
    async with _in_flight:
        return await call


def _start(call: Coroutine[Any, Any, LLMResponse]) -> Future:
    """Start `call` on the calls' loop; its future, to wait on from any thread but the
    loop's own."""
    loop = calls_loop()
    if threading.current_thread() is _loop_thread:
        call.close()
        raise RuntimeError("an LLM call cannot be waited on from the calls' own loop")
    return asyncio.run_coroutine_threadsafe(_held(call), loop)


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
) -> LLMResponse:
    """`complete` as a coroutine on the calls' loop, without a spender (its caller reserves
    and settles, on its own thread: the spending limits live in the database). Every call,
    `complete`'s own and those of `complete_concurrently`, is made by this."""
    return await _complete(
        routing.config().target(model, step=step, role=role),
        messages=messages,
        temperature=temperature,
        timeout=timeout,
        max_retries=max_retries,
        max_tokens=max_tokens,
    )


def _prepare(items: list[tuple[Any, dict[str, Any]]]) -> list[tuple[Any, Spender, Any]]:
    """Take the spender out of each call's arguments (setting its `max_tokens`): the calls
    with a spender, in order, with their worst case (cost, tokens)."""
    found = []
    for key, kwargs in items:
        spender = kwargs.pop("spender", None)
        if spender is None:
            continue
        kwargs["max_tokens"] = kwargs.get("max_tokens") or spender.max_tokens
        target = routing.config().target(
            kwargs.get("model"), step=kwargs.get("step", ""), role=kwargs.get("role", "")
        )
        found.append(
            (key, spender, _estimate(spender, target, kwargs["messages"], kwargs["max_tokens"]))
        )
    return found


class StepReservation:
    """The calls of one step reserved together (they share one spender), by a statement the
    caller runs as a part of its own (`sql`, then `read` with its rows; without limits there
    is no statement: `sql` is None), then handed to `complete_concurrently(reserved=...)`."""

    def __init__(self, calls: dict[Any, dict[str, Any]]):
        wanted = _prepare([(key, dict(kwargs)) for key, kwargs in calls.items()])
        spenders = {id(spender) for _, spender, _ in wanted}
        if len(spenders) > 1:
            raise ValueError("the calls of a step reserved together share one spender")
        self.keys = [key for key, _, _ in wanted]
        self.spender = wanted[0][1] if wanted else None
        self.batch = (
            budget_accounting.batch(self.spender, [estimate for _, _, estimate in wanted])
            if wanted
            else None
        )
        self.reservations: dict[Any, budget_accounting.Reservation] = {}
        self.refused: Any = None
        self.stop: BudgetStop | None = None
        if self.batch is None:
            self.read([])

    def sql(self, skip_sql: str = "NULL::boolean[]", skip_params: list[Any] | None = None):
        """The reserving statement (None: nothing to reserve); `skip_sql`, an SQL boolean[]
        aligned with `keys`, leaves out the calls it marks true."""
        return None if self.batch is None else self.batch.sql(skip_sql, skip_params)

    def read(self, rows) -> None:
        """The reserving statement's rows: which calls hold a reservation, which was refused."""
        if self.batch is None:
            self.reservations = {
                key: budget_accounting.unlimited(self.spender) for key in self.keys
            }
            return
        held, refused = self.batch.read(rows)
        self.reservations = {self.keys[i]: reservation for i, reservation in held.items()}
        if refused is not None:
            self.refused, self.stop = self.keys[refused[0]], BudgetStop(refused[1])


def _reserve_all(
    items: list[tuple[Any, dict[str, Any]]], reserved: StepReservation | None = None
) -> tuple[dict[Any, budget_accounting.Reservation | None], Any, BudgetStop | None]:
    """Reserve the calls that have a spender, in order, as many as fit: one statement per
    spender (a step's calls share one), none when `reserved` already holds them. Sets each
    call's `max_tokens` (in `items`' dicts). Returns the reservations by key, and the first
    call refused with its `BudgetStop` (it and every call after it are not to be made) or
    (None, None)."""
    reservations: dict[Any, budget_accounting.Reservation | None] = {key: None for key, _ in items}
    wanted: dict[int, list[tuple[Any, tuple[Decimal, int]]]] = {}
    spenders: dict[int, Spender] = {}
    for key, spender, estimate in _prepare(items):
        spenders[id(spender)] = spender
        wanted.setdefault(id(spender), []).append((key, estimate))
    order = {key: i for i, (key, _) in enumerate(items)}
    refused_at, stop = len(items), None
    if reserved is not None:
        spent = {key for calls in wanted.values() for key, _ in calls}
        reservations.update((key, reserved.reservations.get(key)) for key in spent)
        if reserved.refused in order:
            refused_at, stop = order[reserved.refused], reserved.stop
        if [k for k in spent if order[k] < refused_at and k not in reserved.reservations]:
            raise RuntimeError("a call with a spender was not reserved")  # never made unpaid
        wanted = {}
    for group, calls in wanted.items():
        held, exceeded = budget_accounting.reserve_many(
            spenders[group], [estimate for _, estimate in calls]
        )
        for (key, _), reservation in zip(calls, held, strict=False):
            reservations[key] = reservation
        if exceeded is not None:
            first = order[calls[len(held)][0]]
            if first < refused_at:
                refused_at, stop = first, BudgetStop(exceeded)
    refused = items[refused_at][0] if stop is not None else None
    for key, _ in items[refused_at:]:  # not made: what they hold is given back
        held = reservations.pop(key, None)
        if held is not None:
            budget_accounting.release(held)
    return reservations, refused, stop


def complete_concurrently(
    calls: dict[Any, dict[str, Any]],
    *,
    max_workers: int,
    on_returned: Callable[[list[tuple]], None],
    on_failed: Callable[[Any, LLMError], None],
    store_settles: bool = False,
    reserved: StepReservation | None = None,
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
    `on_returned` then gets (key, reply, `Settlement` or None) and runs each settlement as a
    part of the statement that stores its reply (setting `done`); one it did not run is
    settled here after. With `reserved`, the calls were reserved by the caller's own
    statement (`StepReservation`): none is reserved here.
    """
    errors: list[LLMError] = []
    if not calls:
        return errors
    items = [(key, dict(kwargs)) for key, kwargs in calls.items()]
    reservations, refused, stop = _reserve_all(items, reserved)
    waiting = [(key, kwargs) for key, kwargs in items if key in reservations]
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
            futures[_start(acomplete(**kwargs))] = key

    def hand_over(answered: list[tuple[Any, LLMResponse]]) -> None:
        if not store_settles:
            for key, response in answered:
                _settle(reservations.pop(key), response)
            on_returned(answered)
            return
        settlements = {}
        for key, response in answered:
            settlements[key] = (Settlement.of(reservations.pop(key), response), response)
        try:
            on_returned([(key, response, s) for key, (s, response) in settlements.items()])
        finally:
            for settlement, _ in settlements.values():
                if settlement is not None and not settlement.done:
                    budget_accounting.settle_now(*settlement.statement())

    submit_more()
    try:
        while futures:
            returned, _ = wait(list(futures), return_when=FIRST_COMPLETED)
            answered, fatal = [], None
            for future in returned:
                key = futures.pop(future)
                exc = future.exception()
                if exc is None:
                    answered.append((key, future.result()))
                    continue
                _settle(reservations.pop(key), None)
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
                wait(list(futures))
                for key in futures.values():
                    _settle(reservations.pop(key), None)
                futures.clear()
                raise fatal
    finally:
        for key, _ in waiting:  # never sent: given back, not counted
            held = reservations.pop(key, None)
            if held is not None:
                budget_accounting.release(held)
    return errors
