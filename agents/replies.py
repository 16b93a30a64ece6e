"""What a call to a language model returned, as the gateway hands it on."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from decimal import Decimal

from agents.errors import Lost


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
    # Attempts before the reply that were cut off at the timeout, counted at their most
    # (`agents.errors.Lost`): the spending limits count them with the reply.
    lost: Lost = Lost()
    # When the first attempt was sent and the reply came back (wall clock; None: not measured).
    started_at: dt.datetime | None = None
    ended_at: dt.datetime | None = None


_THINK_BLOCK = re.compile(r"<(think|thinking)>.*?</\1>", re.DOTALL)


def is_empty_reply(content: str) -> bool:
    """No answer: empty, whitespace, or nothing but `<think>` blocks."""
    return not _THINK_BLOCK.sub("", content).strip()
