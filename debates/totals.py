"""What a debate's totals (tokens in and out, cost) add up: every call it made, each reply and
each attempt counted at its most (`LLMCall.lost_*`: cut off at its timeout, or in flight when a
worker died), so a failed debate reports what it spent as a completed one does."""

from __future__ import annotations

from typing import Any

from debates import one_statement
from debates.models import Debate, LLMCall

#: What a debate's totals add up, over its calls: their replies, and their attempts counted at
#: their most (`lost_*`: cut off at the timeout, or in flight when a worker died).
TOTALS = {
    "tokens_in": "tokens_in + lost_tokens_in",
    "tokens_out": "tokens_out + lost_tokens_out",
    "cost_usd": "cost_usd + lost_cost_usd",
}


def totals_sql(debate_id) -> dict[str, tuple[str, list[Any]]]:
    """The debate's totals (`TOTALS`) as SQL by field, every call the debate made so far."""
    table = LLMCall._meta.db_table
    return {
        name: (f"(SELECT COALESCE(SUM({added}), 0) FROM {table} WHERE debate_id = %s)", [debate_id])
        for name, added in TOTALS.items()
    }


def totals_of(debate_id) -> None:
    """Store the debate's totals (a failed debate's: what it spent reads as for a completed
    one, in the API, the analytics and the metrics). One statement."""
    one_statement.execute(
        [one_statement.update("d", Debate, debate_id, {}, raw=totals_sql(debate_id))], "SELECT 1"
    )
