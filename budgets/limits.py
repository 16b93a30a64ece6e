"""What a call may spend: the limits that apply to it, the periods they count in, and the
breach a refused call reports. No ORM, no settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError

COST, TOKENS, CALLS = "cost", "tokens", "calls"
DAY, MONTH, EVER = "day", "month", "ever"

# (scope, period, unit) -> what users read.
LABELS = {
    ("user", DAY, COST): "your daily cost limit",
    ("user", MONTH, COST): "your monthly cost limit",
    ("user", DAY, TOKENS): "your daily token limit",
    ("user", MONTH, TOKENS): "your monthly token limit",
    ("token", DAY, COST): "this API token's daily cost limit",
    ("token", MONTH, COST): "this API token's monthly cost limit",
    ("token", DAY, TOKENS): "this API token's daily token limit",
    ("token", MONTH, TOKENS): "this API token's monthly token limit",
    ("global", DAY, COST): "the installation's daily cost ceiling",
    ("global", DAY, TOKENS): "the installation's daily token ceiling",
    ("global", MONTH, COST): "the installation's monthly cost ceiling",
    ("global", MONTH, TOKENS): "the installation's monthly token ceiling",
    ("debate", EVER, COST): "the cost limit of one debate",
    ("debate", EVER, TOKENS): "the token limit of one debate",
    ("debate", EVER, CALLS): "the call limit of one debate",
    ("run", EVER, COST): "the cost limit of one contradiction run",
    ("run", EVER, TOKENS): "the token limit of one contradiction run",
    ("run", EVER, CALLS): "the call limit of one contradiction run",
}


def period_key(period: str, now: datetime) -> str:
    """The counter a period's spending goes to: "d2026-11-24", "m2026-11", "ever"."""
    if period == DAY:
        return f"d{now:%Y-%m-%d}"
    if period == MONTH:
        return f"m{now:%Y-%m}"
    return EVER


def resets_at(period: str, now: datetime) -> datetime | None:
    """When a period's counter starts again from zero (None: never)."""
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == DAY:
        return midnight + timedelta(days=1)
    if period == MONTH:
        first = midnight.replace(day=1)
        return (first + timedelta(days=32)).replace(day=1)
    return None


@dataclass(frozen=True)
class Allowance:
    """The limits of one scope in one period (None: no limit)."""

    scope: str  # "user", "token", "global", "debate", "run" (a contradiction run)
    key: str  # the counter's key: "user:5", "token:3", "global", "debate:<uuid>"
    period: str  # DAY, MONTH, EVER
    cost: Decimal | None = None
    tokens: int | None = None
    calls: int | None = None

    @property
    def limited(self) -> bool:
        return any(v is not None for v in (self.cost, self.tokens, self.calls))


@dataclass(frozen=True)
class Spender:
    """Who pays for a call and what bounds it: the allowances to reserve against and the
    `max_tokens` each reply may use. Built once per run (`budgets.services.spender_for`)."""

    allowances: tuple[Allowance, ...] = ()
    user_id: int | None = None
    token_id: int | None = None
    max_tokens: int | None = None
    label: str = ""  # the debate or run it pays for ("debate:<id>"); its holds name it
    admitted: bool = False  # its run's admission holds its most on the account limits

    def entries(
        self, *, now: datetime, cost: Decimal, tokens: int, extra: dict[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """What a reservation asks of each limited counter (JSON for the database); `extra`
        rides along in each entry (the call's key and its tokens in and out: what a hold
        charged after a crash says of itself)."""
        return [
            {
                **(extra or {}),
                **({"run": self.label} if self.label else {}),
                "key": a.key,
                "period": period_key(a.period, now),
                "cost": str(cost),
                "tokens": tokens,
                "calls": 1,
                "limit_cost": None if a.cost is None else str(a.cost),
                "limit_tokens": a.tokens,
                "limit_calls": a.calls,
            }
            for a in self.allowances
            if a.limited
        ]

    def allowance(self, key: str, period_key_: str, now: datetime) -> Allowance | None:
        return next(
            (
                a
                for a in self.allowances
                if a.key == key and period_key(a.period, now) == period_key_
            ),
            None,
        )


@dataclass(frozen=True)
class Breach:
    """A limit a call (or a debate about to start) would pass."""

    scope: str
    period: str
    unit: str
    used: Decimal | int
    limit: Decimal | int
    resets_at: datetime | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """A stable name clients can match: "user_daily_cost", "debate_calls" ..."""
        when = {DAY: "daily_", MONTH: "monthly_", EVER: ""}[self.period]
        return f"{self.scope}_{when}{self.unit}"

    @property
    def label(self) -> str:
        return LABELS.get((self.scope, self.period, self.unit), self.name)

    def amount(self, value) -> str:
        if self.unit == COST:
            return f"${Decimal(value):.4f}"
        return f"{int(value):,} {self.unit}"

    def message(self) -> str:
        text = (
            f"Spending limit reached: {self.label} ({self.name}) is {self.amount(self.limit)}; "
            f"{self.amount(self.used)} is used or reserved"
        )
        if "needed" in self.details:
            text += f", and a new debate may spend up to {self.amount(self.details['needed'])}"
        if self.resets_at is not None:
            text += f"; it resets at {self.resets_at.isoformat()}"
        return text + "."

    def retry_after(self, now: datetime) -> int | None:
        """Seconds until the limit resets (None: it does not)."""
        if self.resets_at is None:
            return None
        return max(1, int((self.resets_at - now).total_seconds()) + 1)

    def as_dict(self) -> dict[str, Any]:
        return {
            "limit": self.name,
            "description": self.label,
            "unit": "USD" if self.unit == COST else self.unit,
            "limit_value": str(self.limit) if self.unit == COST else int(self.limit),
            "used": str(self.used) if self.unit == COST else int(self.used),
            "resets_at": self.resets_at.isoformat() if self.resets_at else None,
            **({"needed": self._value(self.details["needed"])} if "needed" in self.details else {}),
        }

    def _value(self, value):
        return str(value) if self.unit == COST else int(value)


class BudgetExceeded(ValidationError):
    """A limit refused a call or a start. `breach` says which, how much is used, when it
    resets. A `ValidationError` keyed "budget", so every place that shows a service's
    validation errors (forms, the command line, schedules) shows this one too; the API answers
    it with 429 and `Retry-After`."""

    def __init__(self, breach: Breach):
        super().__init__({"budget": [breach.message()]})
        self.breach = breach

    def __str__(self) -> str:
        return self.breach.message()
