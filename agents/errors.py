"""The gateway's typed errors (`agents.gateway`), and how a stored failure is shown."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from agents import pg_text
from budgets.limits import BudgetExceeded


@dataclass(frozen=True)
class Lost:
    """What attempts whose outcome is unknown are counted as: cut off at the call's timeout
    (the provider may have answered, and billed, after the gateway stopped waiting), each at
    the most an attempt may cost (docs: Operations, Spending limits)."""

    cost_usd: Decimal = Decimal(0)
    tokens_in: int = 0
    tokens_out: int = 0

    def __add__(self, other: Lost) -> Lost:
        return Lost(
            self.cost_usd + other.cost_usd,
            self.tokens_in + other.tokens_in,
            self.tokens_out + other.tokens_out,
        )

    def __bool__(self) -> bool:
        return bool(self.cost_usd or self.tokens_in or self.tokens_out)


class LLMError(Exception):
    """A call that did not produce a reply. `permanent` errors are not worth retrying.
    `summary` says what went wrong without the provider's own words (addresses, keys, bodies),
    for users who are not staff; the gateway always gives one (an error made without one is
    shown whole)."""

    def __init__(
        self,
        message: str,
        *,
        permanent: bool,
        attempts: int = 0,
        summary: str = "",
        lost: Lost | None = None,
    ):
        super().__init__(pg_text.clean_text(message))
        self.permanent = permanent
        self.attempts = attempts
        self.summary = summary
        self.lost = lost or Lost()


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
