"""What a call to a language model returned, as the gateway hands it on."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


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
