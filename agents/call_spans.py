"""A span per gateway call (docs/operations/traces.md#llm-calls), when traces are on: the
model asked for and the one that answered, the deployment, tokens in and out, cost, attempts
and how the call ended, under the GenAI semantic conventions' names where they have one
(`gen_ai.*`) and the service's own (`debates.llm.*`) for the rest. Never the messages or the
reply."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from agents.errors import LLMError
from agents.replies import LLMResponse, is_empty_reply
from agents.routing import Target
from config import tracing

OPERATION = "chat"


def _provider(model: str) -> str:
    """The provider part of a litellm model string ("openai/gpt-4o" -> "openai")."""
    return model.split("/", 1)[0] if "/" in model else ""


class CallSpan:
    """The span of one call: told the reply (`replied`) or, through the exception that
    leaves it, the failure."""

    def __init__(self, span):
        self.span = span

    def replied(self, response: LLMResponse) -> LLMResponse:
        if self.span.is_recording():
            attributes = {
                "gen_ai.response.model": response.model,
                "gen_ai.usage.input_tokens": response.tokens_in,
                "gen_ai.usage.output_tokens": response.tokens_out,
                "debates.llm.cost_usd": float(response.cost_usd),
                "debates.llm.attempts": response.attempts,
                "debates.llm.retries": response.attempts - 1,
                "debates.llm.outcome": "empty" if is_empty_reply(response.content) else "ok",
            }
            if response.deployment:
                attributes["debates.llm.deployment"] = response.deployment
            if provider := _provider(response.model):
                attributes["gen_ai.provider.name"] = provider
            self.span.set_attributes(attributes)
        return response


@contextmanager
def traced(
    target: Target, *, step: str, role: str, temperature: float, max_tokens: int | None
) -> Iterator[CallSpan]:
    """The span around one call to `target` (all its attempts), named as the GenAI
    conventions name it: "chat <model asked for>"."""
    attributes: dict[str, str | int | float] = {
        "gen_ai.operation.name": OPERATION,
        "gen_ai.request.model": target.name,
        "gen_ai.request.temperature": temperature,
    }
    if max_tokens:
        attributes["gen_ai.request.max_tokens"] = max_tokens
    if step:
        attributes["debates.llm.step"] = step
    if role:
        attributes["debates.llm.role"] = role
    with tracing.span(f"{OPERATION} {target.name}", attributes, client=True) as span:
        try:
            yield CallSpan(span)
        except LLMError as exc:
            span.set_attributes(
                {
                    "debates.llm.attempts": exc.attempts,
                    "debates.llm.retries": max(exc.attempts - 1, 0),
                    "debates.llm.outcome": "permanent_error" if exc.permanent else "gave_up",
                }
            )
            raise
