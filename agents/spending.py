"""A call's spending against the limits of `budgets`: reserved for its worst case before it is
made, settled with what it really spent after, alone or together with the calls of its step
(`StepReservation`, `Settlement`).

The worst case is an upper bound, not a guess: the prompt's most tokens (`agents.tokens`: its
model's tokenizer, or its UTF-8 bytes) and a reply of the full `max_tokens`, at the prices of
the dearest deployment the call may reach. A limit a call was reserved against is therefore
never passed by what the call is billed, whatever its text."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from decimal import Decimal
from typing import Any

from agents import routing, tokens
from agents.errors import BudgetStop, Lost
from agents.litellm_loader import get_litellm
from agents.pricing import price
from agents.replies import LLMResponse
from budgets import accounting as budget_accounting
from budgets.limits import BudgetExceeded, Spender

#: A reply's bound when the call sets no `max_tokens` and litellm does not know the model's
#: longest reply (docs: a limit is strict only with BUDGET_DEBATE_MAX_TOKENS_PER_CALL set).
UNKNOWN_REPLY_BOUND = 4096


def reply_bound(models: list[str], max_tokens: int | None) -> int:
    """The most tokens a reply may be billed: `max_tokens`, which the call sends, or else the
    longest reply litellm knows the models to give."""
    if max_tokens:
        return max_tokens
    known = get_litellm().model_cost
    found = []
    for model in models:
        entry = known.get(model) or known.get(model.split("/", 1)[-1]) or {}
        found.append(entry.get("max_output_tokens") or entry.get("max_tokens"))
    if found and all(isinstance(n, int) and n > 0 for n in found):
        return max(found)
    return UNKNOWN_REPLY_BOUND


def worst_case(target, messages, max_tokens) -> tuple[Decimal, int, int]:
    """The most a call may spend: (cost, prompt tokens, reply tokens), the dearest of the
    deployments it may reach, each with its own tokenizer's bound of the prompt."""
    candidates = [(d.model, d) for d in target.deployments] or [(target.name, None)]
    reply = reply_bound([model for model, _ in candidates], max_tokens)
    cost, prompt = Decimal(0), 0
    for model, deployment in candidates:
        bound = tokens.prompt_bound(model, messages)
        price_in, price_out = price(model, deployment)
        cost = max(cost, price_in * bound + price_out * reply)
        prompt = max(prompt, bound)
    return cost, prompt, reply


def dearest_price(models: list[str]) -> Decimal:
    """The most one token (in or out) may cost in a debate whose participants have these
    models (empty: routed, to any group's deployments)."""
    config = routing.config()
    candidates: list[tuple[str, routing.Deployment | None]] = []
    for name in models:
        if name:
            target = config.target(name)
            candidates += [(d.model, d) for d in target.deployments] or [(target.name, None)]
        else:
            candidates += [(d.model, d) for d in config.by_id.values()]
    return max((max(price(m, d)) for m, d in candidates), default=Decimal(0))


def debate_worst_case(
    models: list[str], *, max_tokens: int, max_cost: Decimal | None
) -> tuple[Decimal, int]:
    """The most a debate may spend, as its own limits bound it: `max_tokens` in all, and at
    most `max_cost` or those tokens at the dearest price it may reach, whichever is less."""
    cost = dearest_price(models) * max_tokens
    if max_cost is not None:
        cost = min(cost, max_cost)
    return cost, max_tokens


def need(target, messages, max_tokens, *, call: str = "") -> tuple[Decimal, int, dict[str, Any]]:
    """A call's worst case as `budgets.accounting` reserves it: (cost, tokens, what else its
    hold records: the call's key, model, tokens in and out, for a hold charged after a
    crash)."""
    cost, prompt, reply = worst_case(target, messages, max_tokens)
    extra = {"call": call, "model": target.name, "tokens_in": prompt, "tokens_out": reply}
    return cost, prompt + reply, extra


def reserve(spender, target, messages, max_tokens) -> budget_accounting.Reservation | None:
    """Reserve a call's worst case against the spender's limits, or raise `BudgetStop`. None
    without a spender."""
    if spender is None:
        return None
    cost, tokens_, extra = need(target, messages, max_tokens)
    try:
        return budget_accounting.reserve(spender, cost=cost, tokens=tokens_, extra=extra)
    except BudgetExceeded as exc:
        raise BudgetStop(exc) from None


def _spent(response: LLMResponse | None, lost: Lost | None) -> tuple[int, int, Decimal]:
    """Tokens in and out and cost a call is counted as: its reply's, and its attempts lost
    at the timeout (`Lost`), at their most."""
    lost = lost if lost is not None else (response.lost if response is not None else Lost())
    tokens_in = lost.tokens_in + (response.tokens_in if response is not None else 0)
    tokens_out = lost.tokens_out + (response.tokens_out if response is not None else 0)
    cost = lost.cost_usd + (response.cost_usd if response is not None else Decimal(0))
    return tokens_in, tokens_out, cost


def settlement(
    reservation, response: LLMResponse | None, *, lost: Lost | None = None, model: str = ""
) -> tuple[str, list[Any]] | None:
    """The statement that settles a call (None: nothing to settle). A call with no reply
    counts as a call, and what its lost attempts are counted as (under `model`)."""
    if reservation is None:
        return None
    tokens_in, tokens_out, cost = _spent(response, lost)
    if response is not None:
        model = response.model
    elif not (tokens_in or tokens_out or cost):
        model = ""
    return budget_accounting.settle_sql(
        reservation, model=model, tokens_in=tokens_in, tokens_out=tokens_out, cost=cost
    )


def settle(
    reservation, response: LLMResponse | None, *, lost: Lost | None = None, model: str = ""
) -> None:
    found = settlement(reservation, response, lost=lost, model=model)
    if found is not None:
        budget_accounting.settle_now(*found)


class RoomDesk:
    """Where calls in flight ask for room for one more attempt (a retry may be billed as much
    as the first): a call's coroutine asks on the calls' loop (`asker`), and the thread that
    reserved the call answers, on its own database connection, while it waits for replies
    (`serve`, when `wake` is done)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._asked: list[tuple[Any, Future]] = []
        self.wake: Future = Future()

    def asker(self, key) -> Callable[[], Awaitable[bool]]:
        async def more_room() -> bool:
            answer: Future = Future()
            with self._lock:
                self._asked.append((key, answer))
                if not self.wake.done():
                    self.wake.set_result(None)
            return await asyncio.wrap_future(answer)

        return more_room

    def serve(self, grant: Callable[[Any], bool]) -> None:
        """Answer every ask waiting: `grant(key)` reserves one more attempt, or says no."""
        with self._lock:
            asked, self._asked = self._asked, []
            if self.wake.done():
                self.wake = Future()
        for i, (key, answer) in enumerate(asked):
            try:
                answer.set_result(grant(key))
            except BaseException:
                for _, other in asked[i:]:
                    if not other.done():
                        other.set_result(False)
                raise


class Attempts:
    """The calls' attempts after their first, each reserved before it is made (the call's
    worst case again): what `acomplete` is given for them (`kwargs`), answering its asks
    (`serve`), and giving those reservations back once the call is settled (`release`)."""

    def __init__(self, reservation, target, messages, max_tokens, *, key=None):
        self.desk = RoomDesk()
        self._calls: dict[Any, tuple[Any, tuple]] = {}
        self._extra: dict[Any, list] = {}
        self._models: dict[Any, str] = {}
        if reservation is not None:
            self.add(key, reservation, target, messages, max_tokens)

    @classmethod
    def of_step(cls, reservations: dict, items: list[tuple[Any, dict[str, Any]]]) -> Attempts:
        """For the calls of `complete_concurrently` (`items`' kwargs as `prepare` left them)."""
        found = cls(None, None, None, None)
        for key, kwargs in items:
            reservation = reservations.get(key)
            if reservation is None:
                continue
            target = routing.config().target(
                kwargs.get("model"), step=kwargs.get("step", ""), role=kwargs.get("role", "")
            )
            found.add(key, reservation, target, kwargs["messages"], kwargs.get("max_tokens"))
        return found

    def add(self, key, reservation, target, messages, max_tokens) -> None:
        self._models[key] = target.name
        if not reservation.entries:  # nothing limits it: no reservation to make
            return
        self._calls[key] = (reservation.spender, need(target, messages, max_tokens, call=str(key)))

    def model(self, key) -> str:
        return self._models.get(key, "")

    def kwargs(self, key) -> dict[str, Any]:
        """What `acomplete` takes for the call: the most one attempt costs, and the ask."""
        if key not in self._calls:
            return {}
        cost, _, extra = self._calls[key][1]
        bound = Lost(cost, extra["tokens_in"], extra["tokens_out"])
        return {"attempt_bound": bound, "more_room": self.desk.asker(key)}

    def _grant(self, key) -> bool:
        spender, (cost, tokens_, extra) = self._calls[key]
        try:
            held = budget_accounting.reserve(spender, cost=cost, tokens=tokens_, extra=extra)
        except BudgetExceeded:
            return False
        self._extra.setdefault(key, []).append(held)
        return True

    def serve(self) -> None:
        if self.desk.wake.done():
            self.desk.serve(self._grant)

    def release(self, key) -> None:
        """Give back what the call's later attempts held (it was settled: its spending is
        counted)."""
        for held in self._extra.pop(key, []):
            budget_accounting.release(held)


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
        tokens_in, tokens_out, cost = _spent(self.response, None)
        return (self.reservation, self.response.model, tokens_in, tokens_out, cost)

    def statement(self) -> tuple[str, list[Any]]:
        """The statement that settles this call alone."""
        return settlement(self.reservation, self.response)

    @staticmethod
    def together(settlements: list[Settlement]) -> tuple[str, list[Any]] | None:
        """One statement settling `settlements` (calls of one spender), as each would alone."""
        return budget_accounting.settle_many_sql([s.item for s in settlements])


def prepare(items: list[tuple[Any, dict[str, Any]]]) -> list[tuple[Any, Spender, Any]]:
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
            (key, spender, need(target, kwargs["messages"], kwargs["max_tokens"], call=str(key)))
        )
    return found


class StepReservation:
    """The calls of one step reserved together (they share one spender), by a statement the
    caller runs as a part of its own (`sql`, then `read` with its rows; without limits there
    is no statement: `sql` is None), then handed to `complete_concurrently(reserved=...)`."""

    def __init__(self, calls: dict[Any, dict[str, Any]]):
        wanted = prepare([(key, dict(kwargs)) for key, kwargs in calls.items()])
        spenders = {id(spender) for _, spender, _ in wanted}
        if len(spenders) > 1:
            raise ValueError("the calls of a step reserved together share one spender")
        self.keys = [key for key, _, _ in wanted]
        self.spender = wanted[0][1] if wanted else None
        self.batch = (
            budget_accounting.batch(self.spender, [worst for _, _, worst in wanted])
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


def reserve_all(
    items: list[tuple[Any, dict[str, Any]]], reserved: StepReservation | None = None
) -> tuple[dict[Any, budget_accounting.Reservation | None], Any, BudgetStop | None]:
    """Reserve the calls that have a spender, in order, as many as fit: one statement per
    spender (a step's calls share one), none when `reserved` already holds them. Sets each
    call's `max_tokens` (in `items`' dicts). Returns the reservations by key, and the first
    call refused with its `BudgetStop` (it and every call after it are not to be made) or
    (None, None)."""
    reservations: dict[Any, budget_accounting.Reservation | None] = {key: None for key, _ in items}
    wanted: dict[int, list[tuple[Any, tuple[Decimal, int, dict[str, Any]]]]] = {}
    spenders: dict[int, Spender] = {}
    for key, spender, worst in prepare(items):
        spenders[id(spender)] = spender
        wanted.setdefault(id(spender), []).append((key, worst))
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
            spenders[group], [worst for _, worst in calls]
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
