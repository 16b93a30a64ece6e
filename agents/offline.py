"""The built-in offline model: a deterministic, heuristic demo model. It is not a language model.

It lets the service run end to end with no API key and no network, and it plays each role
sensibly enough that a demo shows the protocol working: it reads the step and role markers of
the prompt the protocol built and answers as that protocol's scripted responder would (each
protocol package's `offline` module, registered in `agents.responders`; the contradiction
arbitrator is `agents.offline_arbitrator`). Same prompt, same reply, every time.

Registered with litellm as the custom provider ``offline`` (see `agents.gateway`); any model
name under it (``offline/heuristic-demo``) selects it. `DEBATE_OFFLINE_LATENCY` seconds of
simulated latency are added to each call, for benchmarks and live demos.
"""

from __future__ import annotations

import asyncio
import time

from django.conf import settings
from litellm import CustomLLM
from litellm.types.utils import Usage

from agents.responders import reply_to
from agents.tokens import offline_tokens

__all__ = ["OfflineDebateModel", "reply_to"]


class OfflineDebateModel(CustomLLM):
    def _respond(self, model, messages, model_response, max_tokens=None):
        content = reply_to(messages)
        prompt_text = "".join(m.get("content") or "" for m in messages)
        model_response.choices[0].message.content = content
        model_response.model = model
        prompt_tokens, completion_tokens = offline_tokens(prompt_text), offline_tokens(content)
        if max_tokens:  # a model's reply stops at max_tokens: never billed beyond it
            completion_tokens = min(completion_tokens, max_tokens)
        model_response.usage = Usage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
        )
        # It costs nothing: say so, and litellm does not look it up in its cost map.
        model_response._hidden_params["response_cost"] = 0.0
        return model_response

    def completion(self, model, messages, *args, **kwargs):
        latency = settings.DEBATE_OFFLINE_LATENCY
        if latency:
            time.sleep(latency)
        return self._respond(model, messages, kwargs["model_response"], _max_tokens(kwargs))

    async def acompletion(self, model, messages, *args, **kwargs):
        latency = settings.DEBATE_OFFLINE_LATENCY
        if latency:
            await asyncio.sleep(latency)
        return self._respond(model, messages, kwargs["model_response"], _max_tokens(kwargs))


def _max_tokens(kwargs) -> int | None:
    params = kwargs.get("optional_params") or {}
    value = params.get("max_tokens") or params.get("max_completion_tokens")
    return value if isinstance(value, int) and value > 0 else None
