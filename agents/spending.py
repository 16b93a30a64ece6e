"""A call's spending against the limits of `budgets`: reserved for its worst case before it is
made, settled with what it really spent after, alone or together with the calls of its step
(`StepReservation`, `Settlement`)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from agents import routing
from agents.errors import BudgetStop
from agents.pricing import estimate_cost
from agents.replies import LLMResponse
from budgets import accounting as budget_accounting
from budgets.limits import BudgetExceeded, Spender, estimate_tokens


def estimate(spender, target, messages, max_tokens) -> tuple[Decimal, int]:
    """A call's most likely spending: its prompt, and `max_tokens` of reply."""
    prompt = estimate_tokens(sum(len(str(m.get("content") or "")) for m in messages))
    reply = max_tokens or 0
    return estimate_cost(target, tokens_in=prompt, tokens_out=reply), prompt + reply


def reserve(spender, target, messages, max_tokens) -> budget_accounting.Reservation | None:
    """Reserve a call's most likely spending against the spender's limits, or raise
    `BudgetStop`. None without a spender."""
    if spender is None:
        return None
    cost, tokens = estimate(spender, target, messages, max_tokens)
    try:
        return budget_accounting.reserve(spender, cost=cost, tokens=tokens)
    except BudgetExceeded as exc:
        raise BudgetStop(exc) from None


def settlement(reservation, response: LLMResponse | None) -> tuple[str, list[Any]] | None:
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


def settle(reservation, response: LLMResponse | None) -> None:
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
            (key, spender, estimate(spender, target, kwargs["messages"], kwargs["max_tokens"]))
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


def reserve_all(
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
    for key, spender, estimate in prepare(items):
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
