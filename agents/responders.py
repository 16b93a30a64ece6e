"""What the offline model answers, step by step: each protocol registers its own scripted
responders (`register`), and `reply_to` hands a prompt to the one for its step.

The contract between a prompt and its responder is two machine-readable lines every protocol
writes: ``STEP: <step>`` opens the user message and ``Your role: <role>.`` is in the system
message (`protocols.prompting.system_message`); the question is the delimited
``<user_query>`` block. A responder reads anything else it needs with the line formats its
protocol wrote the prompt with.

Plain Python: no Django, no litellm (`agents.offline` wraps this for litellm).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from agents.offline_arbitrator import arbitration_reply

RE_ROLE = re.compile(r"^Your role: ([^.\n]+)\.", re.M)
RE_STEP = re.compile(r"^STEP: (\w+)", re.M)
RE_QUERY = re.compile(r"<user_query>(.*?)</user_query>", re.S)


@dataclass(frozen=True)
class OfflinePrompt:
    """A prompt as the offline model reads it."""

    step: str
    role: str
    user: str

    @property
    def query_block(self) -> str | None:
        """What stands between the ``<user_query>`` tags, untouched; None without them."""
        match = RE_QUERY.search(self.user)
        return match.group(1) if match else None

    @property
    def query(self) -> str:
        """The question, stripped ("" without the tags)."""
        block = self.query_block
        return block.strip() if block is not None else ""


Responder = Callable[[OfflinePrompt], str]

_RESPONDERS: dict[str, Responder] = {"arbitration": lambda p: arbitration_reply(p.user)}


def register(responders: Mapping[str, Responder]) -> None:
    """Answer these steps with these responders. A step belongs to one responder."""
    for step, responder in responders.items():
        known = _RESPONDERS.get(step)
        if known is not None and known is not responder:
            raise ValueError(f"the offline step '{step}' already has a responder")
        _RESPONDERS[step] = responder


def read_prompt(messages: list[dict]) -> OfflinePrompt:
    system = "\n".join(m.get("content") or "" for m in messages if m.get("role") == "system")
    user = "\n".join(m.get("content") or "" for m in messages if m.get("role") != "system")
    role_match = RE_ROLE.search(system)
    step_match = RE_STEP.search(user)
    return OfflinePrompt(
        step=step_match.group(1) if step_match else "",
        role=role_match.group(1) if role_match else "default",
        user=user,
    )


def reply_to(messages: list[dict]) -> str:
    """The whole model: read the prompt, answer as the role would."""
    prompt = read_prompt(messages)
    responder = _RESPONDERS.get(prompt.step)
    if responder is not None:
        return responder(prompt)
    return json.dumps(
        {
            "decision": "WARN",
            "confidence": 50,
            "risk": 50,
            "reasoning": "The offline demo model does not know this step; it answers with caution.",
        }
    )
